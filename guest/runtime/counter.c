/*
 * The guest half of Rewind's software counter (counter mode): link it into a
 * test program compiled with gcc's -fsanitize-coverage=trace-pc (guest/rewind-cc
 * does both). gcc then calls __sanitizer_cov_trace_pc() at the start of every
 * basic block; it counts down, and when the countdown the VMM armed reaches
 * zero it reads REWIND_PORT_COUNTER: one exit, at which the VMM may preempt
 * the program (exactly at that block) and which returns the next countdown.
 * This file itself must not be instrumented.
 *
 * Not under Rewind (or without port access) the counter never reads the port:
 * the same binary runs natively.
 */
#include "vmm/rewind_abi.h"

#include <stdint.h>
#include <sys/io.h>

/* Blocks left before the next read. One process's threads share it: a thread
 * only loses the CPU at an exit, never between the load and the store. */
static uint32_t countdown = UINT32_MAX;
static int counting; /* the VMM answers: this runs under Rewind with port access */

void __sanitizer_cov_trace_pc(void);

/* The next countdown; 0 means "stop counting" (the run is not in counter mode). */
static uint32_t read_counter(void)
{
	uint32_t next;

	__asm__ volatile("inl %w1, %0" : "=a"(next) : "Nd"((uint16_t)REWIND_PORT_COUNTER));
	if (next == 0) {
		counting = 0;
		next = UINT32_MAX;
	}
	return next;
}

static int under_rewind(void)
{
	uint32_t eax = REWIND_CPUID_SIGNATURE, ebx, ecx = 0, edx;

	__asm__ volatile("cpuid" : "+a"(eax), "=b"(ebx), "+c"(ecx), "=d"(edx));
	return ebx == REWIND_SIGNATURE_EBX && ecx == REWIND_SIGNATURE_ECX &&
	       edx == REWIND_SIGNATURE_EDX;
}

void __sanitizer_cov_trace_pc(void)
{
	if (__builtin_expect(--countdown == 0, 0))
		countdown = counting ? read_counter() : UINT32_MAX;
}

/* Before main and before any thread: threads inherit the port access (ioperm). */
__attribute__((constructor(101))) static void counter_start(void)
{
	if (!under_rewind() || ioperm(REWIND_PORT_COUNTER, 4, 1) < 0)
		return;
	counting = 1;
	countdown = read_counter(); /* may say: not counter mode, stop */
}

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

/*
 * The next countdown; 0 means "stop counting" (the run is not in counter
 * mode). pc, the block the program is at, tells the VMM where a preemption
 * lands.
 */
static uint32_t read_counter(uintptr_t pc)
{
	uint32_t next;

	__asm__ volatile("inl %w1, %0" : "=a"(next) : "Nd"((uint16_t)REWIND_PORT_COUNTER), "D"(pc));
	if (next == 0) {
		counting = 0;
		next = ~REWIND_COUNTER_PREEMPT;
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

/*
 * The countdown ran down at the block pc: store the next one, and when the
 * VMM says so, be preempted here. The store comes first: the other threads
 * run on it while this one is preempted.
 */
static __attribute__((noinline)) void counter_expired(uintptr_t pc)
{
	uint32_t next;

	if (!counting) {
		countdown = UINT32_MAX;
		return;
	}
	next = read_counter(pc);
	countdown = next & ~REWIND_COUNTER_PREEMPT;
	if (next & REWIND_COUNTER_PREEMPT)
		__asm__ volatile("outl %0, %w1"
				 :
				 : "a"(0u), "Nd"((uint16_t)REWIND_PORT_COUNTER)
				 : "memory");
}

void __sanitizer_cov_trace_pc(void)
{
	if (__builtin_expect(--countdown == 0, 0))
		counter_expired((uintptr_t)__builtin_return_address(0));
}

/* Before main and before any thread: threads inherit the port access (ioperm). */
__attribute__((constructor(101))) static void counter_start(void)
{
	if (!under_rewind() || ioperm(REWIND_PORT_COUNTER, 4, 1) < 0)
		return;
	counting = 1;
	counter_expired(0); /* the first read: counter mode or not, maybe a preemption */
}

/* SPDX-License-Identifier: MIT */
/*
 * The countdown of Rewind's software counter: precise schedule points
 * without a PMU. The program (built with guest/rewind-cc) reports its
 * schedule events through rt_event(); when the countdown the VMM armed
 * reaches zero the runtime reads REWIND_PORT_COUNTER: one exit, whose answer
 * is the next countdown and what to do here, before this event: take a new
 * SCHED_FIFO priority (a PCT change point, or the end of a time slice), be
 * preempted, or both. Between reads no exit happens, so counting costs the
 * program no round trip to the VMM.
 *
 * A trace-pc build (-fsanitize-coverage=trace-pc) counts basic blocks the
 * same way. Not under Rewind (or without port access) nothing is ever read:
 * the same binary runs natively.
 */
#include "guest/runtime/runtime.h"
#include "rewind/abi.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <sys/io.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One process's threads share it: a thread only loses the CPU at an exit or
 * a system call, never between this load and store, nor between its
 * counter read and its store of the answer (the VMM delivers no interrupt
 * at a read, vmm/counter.c). */
uint32_t rt_countdown = UINT32_MAX;
int rt_under_rewind;
static int counting; /* the VMM counts this program's events */
/* This process's id, in every counter read: the VMM keeps a countdown per
 * process (a runner's and the test it runs count apart). */
static uint32_t rt_process;
int rt_pct_priorities; /* the VMM hands out SCHED_FIFO priorities (pct mode) */

/* The lowest SCHED_FIFO priority: where the VMM also puts a thread whose pct
 * time slice ran out (vmm/counter.c). */
#define YIELD_PRIO 1

void __sanitizer_cov_trace_pc(void);

/*
 * The next countdown and its flags; 0 means "stop counting" (steps mode).
 * The event's code address goes in RDI, its data address in RSI and what
 * it is (RT_EV_*) in RCX: the port itself needs DX.
 */
static uint32_t read_counter(uintptr_t pc, uintptr_t addr, uint32_t what)
{
	uint64_t event = (uint64_t)rt_process << REWIND_COUNTER_PROCESS_SHIFT | what;
	uint32_t next;

	__asm__ volatile("inl %w1, %0"
			 : "=a"(next)
			 : "Nd"((uint16_t)REWIND_PORT_COUNTER), "D"(pc), "S"(addr), "c"(event)
			 : "memory");
	return next;
}

uint32_t rt_call(uint32_t call, uintptr_t arg, uintptr_t arg2)
{
	uint32_t answer;

	if (!rt_under_rewind)
		return 0;
	__asm__ volatile("inl %w1, %0"
			 : "=a"(answer)
			 : "Nd"((uint16_t)REWIND_PORT_RUNTIME), "D"((uintptr_t)call), "S"(arg),
			   "c"(arg2)
			 : "memory");
	return answer;
}

/* musl's sched_setscheduler() is a stub (ENOSYS): make the system call. */
void rt_set_priority(uint32_t prio)
{
	struct sched_param param = {.sched_priority = (int)prio};

	syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &param);
}

/*
 * The countdown ran down at the event at pc on addr. The countdown is stored
 * first: the other threads run on it when this one loses the CPU.
 */
__attribute__((noinline)) void rt_countdown_expired(uintptr_t pc, uintptr_t addr, uint32_t what)
{
	uint32_t next, prio;

	if (!counting) {
		rt_countdown = UINT32_MAX;
		return;
	}
	next = read_counter(pc, addr, what);
	if (next == 0) {
		counting = 0;
		rt_countdown = UINT32_MAX;
		return;
	}
	rt_countdown = next & REWIND_COUNTER_COUNT_MASK;
	prio = next >> REWIND_COUNTER_PRIO_SHIFT & REWIND_COUNTER_PRIO_MASK;
	if (prio && prio != REWIND_COUNTER_PRIO_FAIR)
		rt_set_priority(prio);
	if (next & REWIND_COUNTER_PREEMPT)
		__asm__ volatile("outl %0, %w1"
				 :
				 : "a"(0u), "Nd"((uint16_t)REWIND_PORT_COUNTER)
				 : "memory");
	/* after the OUTL: with a timer held at this read, that must be the next exit (vmm/vm.c) */
	if (prio == REWIND_COUNTER_PRIO_FAIR)
		rt_schedule_fairly();
}

/*
 * sched_yield() (guest/rewind-cc links the program with --wrap=sched_yield).
 * Under SCHED_FIFO a yield returns at once to the yielding thread when it
 * has the highest priority, so a thread that waits for another with a
 * yield loop would starve it forever: a livelock no fair scheduler shows.
 * In pct mode a yield first drops the thread to the lowest priority, as
 * controlled schedulers treat a yield (CHESS): every thread that can run
 * runs before it again, and threads that all wait this way take turns.
 */
int __real_sched_yield(void);
int __wrap_sched_yield(void);
int __wrap_sched_yield(void)
{
	if (rt_pct_priorities)
		rt_set_priority(YIELD_PRIO);
	return __real_sched_yield();
}

void rt_yield_to_others(void)
{
	__wrap_sched_yield();
}

void __sanitizer_cov_trace_pc(void)
{
	rt_event(RT_CALLER(), 0, RT_EV_BLOCK);
}

static int under_rewind(void)
{
	uint32_t eax = REWIND_CPUID_SIGNATURE, ebx, ecx = 0, edx;

	__asm__ volatile("cpuid" : "+a"(eax), "=b"(ebx), "+c"(ecx), "=d"(edx));
	return ebx == REWIND_SIGNATURE_EBX && ecx == REWIND_SIGNATURE_ECX &&
	       edx == REWIND_SIGNATURE_EDX;
}

/*
 * A forked child counts its own events from here: its first read, on a
 * countdown of its own (the parent's goes on in the parent).
 */
static void runtime_forked(void)
{
	rt_process = (uint32_t)getpid();
	rt_threads_forked();
	if (counting)
		rt_countdown_expired(0, 0, 0);
}

/*
 * Before main and before any thread (threads inherit the port access): the
 * main thread's priority (PCT mode), the feedback map, then the first read,
 * which says whether this run counts events and may already preempt.
 */
__attribute__((constructor(101))) static void runtime_start(void)
{
	uint32_t prio;

	/* rewind-init grants the ports to every job; a job that is not root
	 * cannot ask for them (EPERM) but has them */
	if (!under_rewind() ||
	    (ioperm(REWIND_RUNTIME_PORTS, REWIND_RUNTIME_PORTS_SPAN, 1) < 0 && errno != EPERM))
		return;
	rt_under_rewind = 1;
	rt_on_own_stack(0); /* the main thread's stack bounds, from here */
	prio = rt_call(REWIND_RT_THREAD_PRIORITY, 0, 0);
	if (prio) {
		rt_pct_priorities = 1;
		rt_set_priority(prio);
	}
	rt_threads_start();
	rt_feedback_register();
	rt_sites_register();
	rt_process = (uint32_t)getpid();
	pthread_atfork(NULL, NULL, runtime_forked);
	counting = 1;
	rt_countdown_expired(0, 0, 0); /* no event: the start */
}

/* The program exits normally: the VMM takes the feedback while it still can. */
__attribute__((destructor(101))) static void runtime_stop(void)
{
	rt_call(REWIND_RT_FLUSH, counting ? rt_countdown : 0, rt_process);
}

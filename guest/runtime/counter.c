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
 * the same binary runs natively. The runtime starts in start.c; its calls
 * to the VMM and priorities are call.c's.
 */
#include "guest/runtime/runtime.h"
#include "rewind/abi.h"

#include <unistd.h>

/* One process's threads share it: a thread only loses the CPU at an exit or
 * a system call, never between this load and store, nor between its
 * counter read and its store of the answer (the VMM delivers no interrupt
 * at a read, vmm/counter.c). */
uint32_t rt_countdown = UINT32_MAX;
static int counting; /* the VMM counts this program's events */
/* This process's id, in every counter read: the VMM keeps a countdown per
 * process (a runner's and the test it runs count apart). */
static uint32_t rt_process;

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

/* The VMM's answer to a read, or 0: it says "stop counting" (steps mode), and counting stops. */
static uint32_t read_or_stop(uintptr_t pc, uintptr_t addr, uint32_t what)
{
	uint32_t next = read_counter(pc, addr, what);

	if (next == 0) {
		counting = 0;
		rt_countdown = UINT32_MAX;
	}
	return next;
}

/* The VMM's answer, once the countdown is stored: a priority, a preemption, the fair continuation.
 */
static void take_answer(uint32_t next)
{
	uint32_t prio = next >> REWIND_COUNTER_PRIO_SHIFT & REWIND_COUNTER_PRIO_MASK;

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
 * A walk, or the profile run that counts each thread's events (walk.c):
 * the runtime's own countdown runs beside the VMM's, and rt_countdown is
 * the nearer of the two. vmm_left is the VMM's as of the last time
 * rt_countdown was set, to armed; the VMM is read exactly when its own
 * runs out, so it sees the same reads as without the walk's.
 */
static uint32_t vmm_left, armed;

static void own_countdown_expired(uintptr_t pc, uintptr_t addr, uint32_t what)
{
	uint32_t next = 0, own;

	vmm_left -= armed;
	own = rt_walk_events(armed);
	if (!vmm_left) {
		next = read_or_stop(pc, addr, what);
		if (next == 0)
			return;
		vmm_left = next & REWIND_COUNTER_COUNT_MASK;
	}
	armed = own < vmm_left ? own : vmm_left;
	rt_countdown = armed;
	if (next)
		take_answer(next);
	/* a priority from the VMM (a time slice's end) stands until the walk's next point */
	if (!(next >> REWIND_COUNTER_PRIO_SHIFT & REWIND_COUNTER_PRIO_MASK))
		rt_walk_switch();
}

/*
 * The countdown ran down at the event at pc on addr. The countdown is stored
 * first: the other threads run on it when this one loses the CPU.
 */
__attribute__((noinline)) void rt_countdown_expired(uintptr_t pc, uintptr_t addr, uint32_t what)
{
	uint32_t next;

	if (!counting) {
		rt_countdown = UINT32_MAX;
		return;
	}
	if (rt_walk_own_countdown) {
		own_countdown_expired(pc, addr, what);
		return;
	}
	next = read_or_stop(pc, addr, what);
	if (next == 0)
		return;
	rt_countdown = next & REWIND_COUNTER_COUNT_MASK;
	take_answer(next);
}

void __sanitizer_cov_trace_pc(void)
{
	rt_event(RT_CALLER(), 0, RT_EV_BLOCK);
}

/* The first read, at the start: whether this run counts events, and may already preempt. */
void rt_counter_start(void)
{
	rt_process = (uint32_t)getpid();
	counting = 1;
	rt_countdown_expired(0, 0, 0); /* no event: the start */
}

/*
 * A forked child counts its own events from here: its first read, on a
 * countdown of its own (the parent's goes on in the parent).
 */
void rt_counter_forked(void)
{
	rt_process = (uint32_t)getpid();
	rt_walk_forked(); /* the child's countdown is the VMM's alone */
	if (counting)
		rt_countdown_expired(0, 0, 0);
}

/* The program exits normally: the VMM takes the feedback while it still can. */
void rt_counter_flush(void)
{
	uint32_t left = rt_countdown;

	if (counting && rt_walk_own_countdown) { /* the VMM's part, and the last events counted */
		left = vmm_left - (armed - rt_countdown);
		rt_walk_events(armed - rt_countdown);
	}
	rt_call(REWIND_RT_FLUSH, counting ? left : 0, rt_process);
}

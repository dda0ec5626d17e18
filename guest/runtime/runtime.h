/* SPDX-License-Identifier: MIT */
/*
 * Rewind's guest runtime for instrumented test programs (guest/rewind-cc):
 * the pieces share this header. Every schedule event (a basic block of a
 * trace-pc build; a shared-memory access, an atomic or a synchronisation
 * operation of a -fsanitize=thread build) goes through rt_event(), which
 * counts down the countdown the VMM handed out and calls the VMM only when
 * it runs out. None of these files may be built with instrumentation.
 */
#ifndef REWIND_RUNTIME_H
#define REWIND_RUNTIME_H

#include "rewind/abi.h"

#include <stdint.h>

/* Events left before the next REWIND_PORT_COUNTER read; all threads share it. */
extern uint32_t rt_countdown;

/*
 * What an event is, passed to the VMM beside its address (REWIND_PORT_COUNTER):
 * the encoding of include/rewind/abi.h (enum rewind_sched_event). Only the
 * VMM's event log reads it (rewind-harness --event-log).
 */
#define RT_EV_SIZE_MASK REWIND_SCHED_SIZE_MASK
#define RT_EV_READ	REWIND_SCHED_WHAT(REWIND_SCHED_READ)
#define RT_EV_WRITE	REWIND_SCHED_WHAT(REWIND_SCHED_WRITE)
#define RT_EV_ATOMIC	REWIND_SCHED_WHAT(REWIND_SCHED_ATOMIC)
#define RT_EV_SYNC	REWIND_SCHED_WHAT(REWIND_SCHED_SYNC)
#define RT_EV_BLOCK	REWIND_SCHED_WHAT(REWIND_SCHED_BLOCK)

/* An access's size as the low bits of `what` (a range counts as its first 255 bytes). */
#define RT_EV_SIZE(n) ((n) < RT_EV_SIZE_MASK ? (uint32_t)(n) : RT_EV_SIZE_MASK)

/*
 * pct mode, and the process has one live thread (threads.c): nothing can
 * race with its accesses, so they are no events, as the guest kernel counts
 * a plain process's (no change point lands in a phase where nothing else
 * can run, and the runner of a test, its setup and its checks after the
 * join no longer dilute PCT's positions).
 */
extern int rt_events_off;

/* The countdown ran out at the event at pc on addr (counter.c). */
void rt_countdown_expired(uintptr_t pc, uintptr_t addr, uint32_t what);

/*
 * The countdown (counter.c): its first read at the start, a forked child's
 * first read, and the flush at a normal exit (start.c calls them).
 */
void rt_counter_start(void);
void rt_counter_forked(void);
void rt_counter_flush(void);

/*
 * One schedule event at pc on addr (0: none), what it is in `what`
 * (RT_EV_*): a preemption or a priority change may land here, before it.
 */
/* The site map of quiet sites (sites.c), used when this run counts racy events. */
extern uint8_t rt_sites[];
extern int rt_sites_on;
extern uint32_t rt_sites_passed;

/*
 * Whether the event at pc counts (sites.c): always, unless this run counts
 * racy events and pc is a quiet site; then 1 in REWIND_SITE_WEIGHT.
 */
static inline int rt_site_counts(uintptr_t pc)
{
	uint32_t bit;

	if (__builtin_expect(!rt_sites_on, 1))
		return 1;
	bit = rewind_site_bit(pc);
	if (!(rt_sites[bit / 8] & (1u << bit % 8)))
		return 1;
	return ++rt_sites_passed % REWIND_SITE_WEIGHT == 0;
}

static inline void rt_event(uintptr_t pc, uintptr_t addr, uint32_t what)
{
	if (rt_events_off || !rt_site_counts(pc))
		return;
	if (__builtin_expect(--rt_countdown == 0, 0))
		rt_countdown_expired(pc, addr, what);
}

/* Whether the program runs under Rewind with access to the runtime's ports (call.c). */
extern int rt_under_rewind;

/* A call on REWIND_PORT_RUNTIME with two arguments (0 when not under Rewind). */
uint32_t rt_call(uint32_t call, uintptr_t arg, uintptr_t arg2);

/* Makes the calling thread SCHED_FIFO at prio (1..99); the kernel may switch threads at once. */
void rt_set_priority(uint32_t prio);

/* The VMM hands out SCHED_FIFO priorities: pct mode (call.c). */
extern int rt_pct_priorities;

/* Lets every other thread that can run go first, as a fair yield does (call.c). */
void rt_yield_to_others(void);

/* Every thread of the process leaves SCHED_FIFO for the kernel's fair scheduler (fair.c). */
void rt_schedule_fairly(void);

/* Spin-waits (spin.c): a load of size bytes at addr, a store to addr, by this thread. */
void rt_spin_load(uintptr_t addr, unsigned long size);
void rt_spin_store(uintptr_t addr);
/* A lock taken, a lock released (after the release), by this thread (sync.c). */
void rt_spin_locked(void);
void rt_spin_unlocked(void);

/* Whether addr lies on the calling thread's own stack (its accesses are no events). */
int rt_on_own_stack(uintptr_t addr);

/* The calling thread's number (1, 2, ... in order of its first event). */
uint32_t rt_thread_number(void);

/*
 * Live threads (threads.c): the runtime starts (pct mode known), a thread is
 * about to be created (it may run first), its creation failed, the process
 * was forked (its one thread goes on).
 */
void rt_threads_start(void);
void rt_thread_creating(void);
void rt_thread_not_created(void);
void rt_threads_forked(void);

/* Feedback (feedback.c): a load at pc of addr, a store at pc to addr. */
void rt_feedback_load(uintptr_t pc, uintptr_t addr);
void rt_feedback_store(uintptr_t pc, uintptr_t addr);
/* A lock at addr taken at pc, and released. */
void rt_feedback_lock(uintptr_t pc, uintptr_t lock);
void rt_feedback_unlock(uintptr_t lock);
/* Hands the feedback map to the VMM (once, at start). */
void rt_feedback_register(void);

/* Registers the site map with the VMM, which says whether this run counts racy events (sites.c). */
void rt_sites_register(void);

/*
 * A walk (walk.c, include/rewind/abi.h): rt_walk_on in a walk run;
 * rt_walk_own_countdown when the runtime keeps a countdown of its own
 * beside the VMM's (a walk, or the profile run that counts each thread's
 * events). The start's priority call, which says which; a forked child
 * walks no more.
 */
extern int rt_walk_on;
extern int rt_walk_own_countdown;
uint32_t rt_walk_start(void);
void rt_walk_forked(void);
/*
 * The own countdown ran out after made events (the caller's): returns the
 * events to its next end (UINT32_MAX: none); a switch may be due there,
 * which rt_walk_switch makes once the countdown is stored.
 */
uint32_t rt_walk_events(uint32_t made);
void rt_walk_switch(void);
/* A thread is being created (its start routine, argument and priority may
 * change), a thread ends, a thread enters (1) or leaves (0) a wrapper that
 * may block. */
void rt_walk_creating(void *(**fn)(void *), void **arg, uint32_t *prio);
void rt_walk_thread_ended(void);
void rt_walk_waiting(int waits);

static inline void rt_walk_wait(int waits)
{
	if (__builtin_expect(rt_walk_on, 0))
		rt_walk_waiting(waits);
}

#define RT_CALLER() ((uintptr_t)__builtin_return_address(0))

#endif

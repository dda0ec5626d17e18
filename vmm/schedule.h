/* SPDX-License-Identifier: MIT */
/*
 * The interrupt-injection schedule of one execution: perturbations the VMM
 * applies at given steps of the job, each a pure function of its own
 * (step, kind, argument). Steps count from the job's start (the READY step
 * is step 0), so a schedule means the same from a keyframe and from boot.
 * An injection at step S applies while the guest is stopped at exit S,
 * before it re-enters; several at one step apply in schedule order, and
 * steps past the job's end never apply. Exact semantics of each kind:
 * docs/input-format.md.
 */
#ifndef REWIND_SCHEDULE_H
#define REWIND_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

#define SCHEDULE_MAX	   256	/* injections in one schedule */
#define INJECT_INSNS_MAX   4096 /* preempt-insns: at most this many single steps */
#define INJECT_PRIO_MAX	   99	/* priority, demote: SCHED_FIFO priorities 1..99 */
#define PCT_PRIO_DRAWN_MIN 16	/* pct: priorities drawn from the seed are 16..95 (vmm/pct.c), */
#define PCT_PRIO_DRAWN	   80	/* above every demotion a PCT sample makes (2..15) */
#define PCT_PRIO_WIDE_MIN  50	/* pct, wide priorities: drawn 50..95, */
#define PCT_PRIO_WIDE	   46	/* above demotions down from 49 (up to 48 change points) */

enum injection_kind {
	INJECT_RESCHED = 1, /* preempt the running task now; arg must be 0 */
	INJECT_STALL = 2,   /* hold the running task arg µs when it next returns to user space */
	INJECT_TIMER_LATE = 3, /* the next timer interrupt fires arg µs late */
	INJECT_PREEMPT = 4,    /* counter mode: preempt after basic block `step`; arg must be 0 */
	INJECT_PREEMPT_INSNS = 5, /* preempt arg instructions after step (single-stepped) */
	INJECT_PRIORITY =
		6, /* pct mode: thread number `step` (0: the main thread) gets priority arg */
	INJECT_DEMOTE = 7, /* pct mode: at position `step` (of 2^32: a fraction of the job's
			    * profiled events) the running thread drops to priority arg */
	INJECT_KIND_END
};

struct injection {
	uint32_t step; /* steps after READY; INJECT_PREEMPT: events since the job began;
			* INJECT_PRIORITY: a thread number; INJECT_DEMOTE: a position */
	uint16_t arg;  /* µs for STALL and TIMER_LATE */
	uint8_t kind;  /* enum injection_kind */
};

struct schedule {
	uint32_t count;
	struct injection at[SCHEDULE_MAX];
};

#define INJECT_KIND_BIT(kind) (1u << (kind)) /* a set of kinds, for schedule_queue_fill */
_Static_assert(INJECT_KIND_END <= 32, "a kind set is 32 bits");

/*
 * The injections one applier acts on, as indexes into a schedule, in
 * schedule order: vmm/inject.c's (at steps) and vmm/counter.c's (at events).
 * The schedule is split once per execution into storage sized once; each
 * applier walks its own queue and never skips the other's kinds.
 */
struct schedule_queue {
	uint32_t count;
	uint32_t next; /* the first not applied yet */
	uint16_t at[SCHEDULE_MAX];
};

/* Fills q with the injections of s (NULL: none) whose kind is in kinds; next = 0. */
void schedule_queue_fill(struct schedule_queue *q, const struct schedule *s, uint32_t kinds);

/* "resched", "stall", "timer-late"; NULL for an unknown kind. */
const char *injection_kind_name(unsigned int kind);

/* The kind named name, or 0 if none is. */
unsigned int injection_kind_from_name(const char *name);

/* Orders by step; injections at the same step keep their order. */
void schedule_sort(struct schedule *s);

#endif

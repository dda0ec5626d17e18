/* SPDX-License-Identifier: MIT */
/*
 * The spin rescue: a user task that spins without an exit, on memory no
 * schedule event watches, is yielded at its fixed point instead of being
 * reported stuck (vmm/spin_rescue.c).
 */
#ifndef REWIND_SPIN_RESCUE_H
#define REWIND_SPIN_RESCUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The rescue budget: the quiet time (as the watchdog counts it) before the
 * VMM looks for a fixed point; it doubles after each look in the same quiet
 * stretch that found none, so a long legitimate computation pays for only
 * a few looks (each at most SPIN_RESCUE_WINDOW single steps).
 */
#define SPIN_RESCUE_BUDGET_MS 200u
/* Instructions single-stepped at most in one look. */
#define SPIN_RESCUE_WINDOW 4096u
/*
 * How long a task yielded at its fixed point sleeps (virtual time): one
 * tick of a HZ=250 kernel, about what a spinner preempted by the tick
 * waits on a real machine before it runs again. A sleep, not a plain
 * preemption, so that under pct's SCHED_FIFO priorities a lower-priority
 * thread runs too.
 */
#define SPIN_RESCUE_SLEEP_NS 4000000ull

/* What the looks found, for the stuck detail: struct vm's part. */
struct spin_rescue {
	uint64_t looked_at; /* vm->progress at the last look (the note is of this quiet stretch) */
	uint64_t yields;    /* fixed points yielded at this execution */
	char note[128];	    /* what the last look found, "; ..." for the stuck detail */
};

struct vm;

/*
 * The watchdog asked for a look (the rescue budget passed without an exit):
 * single-steps the vCPU, and at a fixed point yields the task (a trace
 * record, TRACE_SPIN_YIELD). alone: the job computes alone (no look). Returns
 * -EINTR, or the reason of an exit the steps met (the caller handles it as
 * any other), or -errno where KVM_RUN failed.
 */
int spin_rescue(struct vm *vm, bool alone);

#endif

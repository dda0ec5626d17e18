/* SPDX-License-Identifier: MIT */
/*
 * Preemption N user-mode instructions after a step (preempt-insns), counted
 * by the guest kernel on the VMM's request; see vmm/single_step.c.
 */
#ifndef REWIND_SINGLE_STEP_H
#define REWIND_SINGLE_STEP_H

#include <stdbool.h>
#include <stdint.h>

/* A landing in progress: struct vm's part. */
struct single_step {
	bool active;	  /* a count was asked for and has not ended */
	uint64_t from;	  /* the step the landing counts from */
	uint64_t stepped; /* instructions counted in landings ended this execution */
};

struct vm;

/* Preempts the running user task after insns of its user-mode instructions. */
void single_step_start(struct vm *vm, uint16_t insns);
void single_step_stop(struct vm *vm); /* forgets a count in progress (a new execution) */
/* At each step while a count is in progress: records its landing when it ended. */
void single_step_check(struct vm *vm);

#endif

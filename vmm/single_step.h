/*
 * Preemption N user-mode instructions after a step (preempt-insns), by
 * single-stepping the running user task; see vmm/single_step.c.
 */
#ifndef REWIND_SINGLE_STEP_H
#define REWIND_SINGLE_STEP_H

#include <stdbool.h>
#include <stdint.h>

/* A landing in progress: struct vm's part. */
struct single_step {
	bool active;	      /* a task is stepped: #DB traps exit to the VMM */
	bool user;	      /* its first trap came: KVM single-steps too */
	uint32_t left;	      /* instructions to go */
	uint64_t from;	      /* the step the landing counts from */
	uint64_t stray_exits; /* debug exits after stepping ended (ignored) */
	uint64_t stepped;     /* instructions single-stepped so far this execution */
};

struct vm;

/* Preempts the running user task after insns of its user-mode instructions. */
void single_step_start(struct vm *vm, uint16_t insns);
void single_step_exit(struct vm *vm); /* a KVM_EXIT_DEBUG */
void single_step_stop(struct vm *vm);
/* At each exit while stepping: ends it if the guest found no user task to step. */
void single_step_check(struct vm *vm);

#endif

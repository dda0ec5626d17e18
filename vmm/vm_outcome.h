/* SPDX-License-Identifier: MIT */
/*
 * How a run ends: exactly one outcome, the first vm_finish's, with a detail
 * for humans, recorded in the trace. Every part of the VMM may end the run,
 * so vm_outcome.c sits below them all and calls none of them
 * (tests/unit/call-graph).
 */
#ifndef REWIND_VM_OUTCOME_H
#define REWIND_VM_OUTCOME_H

enum vm_outcome {
	VM_RUNNING = 0,
	VM_EXITED,	 /* the job ended and the guest powered off */
	VM_POWER_OFF,	 /* the guest powered off without a job status */
	VM_PANIC,	 /* guest kernel panic */
	VM_DEADLOCK,	 /* idle with no timer armed: nothing can ever happen */
	VM_STUCK,	 /* no exit for longer than the wall budget */
	VM_STEP_BUDGET,	 /* more steps than allowed */
	VM_GUEST_FAULT,	 /* invalid Rewind call, unknown port or MMIO, triple fault */
	VM_HOST_ERROR,	 /* KVM or the host failed */
	VM_WALL_BUDGET,	 /* the run took longer than its wall budget (host-timed) */
	VM_TRACE_BUDGET, /* the trace outgrew its byte budget: a flood of output or events */
};

struct vm;

const char *vm_outcome_name(enum vm_outcome outcome);

/* Ends the run with an outcome and a printf-style detail (first call wins). */
void vm_finish(struct vm *vm, enum vm_outcome outcome, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Preemption N user-mode instructions after a step, for unmodified
 * binaries and without a PMU (preempt-insns). At the exit the injection
 * names, the VMM writes N to the shared page and raises
 * REWIND_PENDING_STEP; the guest kernel (patch 0009) sets TF in the running
 * user task's saved flags, counts the single-step traps in its own #DB
 * handler and, at the Nth, clears the TF it set and preempts the task. The
 * landing is exact, and no trap leaves the guest: KVM reflects each #DB
 * back into it without a VMM exit, and the guest's #DB entry knows a
 * counted step without reading DR6 (an exit of its own in a VM), so a
 * counted instruction costs one exit that KVM handles itself (38 us in
 * the KVM box, against 46 us for a trap the VMM took; bench/single-step).
 *
 * Counting in the guest is what keeps a program's own trap flag its own:
 * the kernel sees where user code loads the flags (POPF, IRET, sigreturn),
 * delivers the traps of the task's own TF as SIGTRAP and only Rewind's
 * not, and leaves the task's own TF set at the landing. The VMM cannot
 * tell the two apart from outside.
 *
 * The VMM follows the count through step_state at each exit and writes
 * the landing into the trace at the first exit after it, stamped with the
 * step it happened at (no step passes between the two).
 */
#include "vmm/single_step.h"

#include "vmm/ports_shared.h"
#include "vmm/vm.h"
#include "vmm/vm_outcome.h"

#include <inttypes.h>

void single_step_start(struct vm *vm, uint16_t insns)
{
	struct rewind_shared *sh = ports_shared(vm);

	if (insns == 0 || vm->single_step.active || !sh)
		return; /* one landing at a time: a second request is dropped, on every run */
	vm->single_step.active = true;
	vm->single_step.from = vm->steps;
	sh->step_insns = insns;
	sh->step_done = 0;
	sh->step_state = REWIND_STEP_ASKED;
	ports_raise(vm, REWIND_PENDING_STEP);
}

void single_step_stop(struct vm *vm)
{
	vm->single_step.active = false;
}

/* The landing, in the trace: the step counted from, and the code address. */
static void record_landing(struct vm *vm, uint64_t pc)
{
	struct trace_record rec = {.step = vm->steps, .type = TRACE_PREEMPT};

	rec.args[0] = vm->single_step.from;
	rec.args[1] = PREEMPT_WHY_INSNS;
	rec.args[2] = pc;
	trace_append(&vm->trace, &rec, NULL);
}

void single_step_check(struct vm *vm)
{
	const struct rewind_shared *sh = ports_shared(vm);
	uint32_t state;

	if (!sh) {
		single_step_stop(vm);
		return;
	}
	state = sh->step_state;
	switch (state) {
	case REWIND_STEP_ASKED:
	case REWIND_STEP_COUNTING:
		return;
	case REWIND_STEP_LANDED:
		record_landing(vm, sh->step_pc);
		break;
	case REWIND_STEP_DROPPED:
		break; /* nothing to count, or the task ended first */
	default:
		vm_finish(vm, VM_GUEST_FAULT, "the guest kernel wrote step state %" PRIu32, state);
		break;
	}
	vm->single_step.stepped += sh->step_done;
	single_step_stop(vm);
}

/*
 * Applying the schedule: each injection acts at its own step after READY,
 * while the vCPU is stopped at an exit the guest made, so the guest sees it
 * at the same instruction on every run.
 */
#include "vmm/inject.h"

#include "vmm/ports_shared.h"
#include "vmm/single_step.h"
#include "vmm/user_context.h"
#include "vmm/vm.h"

#include <string.h>

void inject_set_schedule(struct vm *vm, const struct schedule *s)
{
	vm->schedule = s;
	vm->schedule_next = 0;
	vm->timer_late_ns = 0;
	vm->injected = 0;
	vm->landing_count = 0;
	vm->counter = (struct vm_counter){.started = false};
	memset(&vm->feedback, 0, sizeof(vm->feedback));
	single_step_stop(vm); /* a run that ended while stepping leaves it on */
	vm->stepped = 0;
}

static void stall_running_task(struct vm *vm, uint16_t us)
{
	struct rewind_shared *sh = ports_shared(vm);

	if (!sh || us == 0)
		return;
	sh->stall_ns = (uint64_t)us * 1000;
	ports_raise(vm, REWIND_PENDING_STALL);
}

/* Injections that act at a step are in the trace: a reader sees where each one landed. */
static void trace_injection(struct vm *vm, const struct injection *inj)
{
	struct trace_record rec = {.step = vm->steps,
				   .type = TRACE_INJECT,
				   .args = {inj->kind, inj->arg, vm->schedule_next - 1}};

	trace_append(&vm->trace, &rec, NULL);
}

static void apply(struct vm *vm, const struct injection *inj)
{
	switch (inj->kind) {
	case INJECT_RESCHED:
		ports_raise(vm, REWIND_PENDING_RESCHED);
		break;
	case INJECT_STALL:
		stall_running_task(vm, inj->arg);
		break;
	case INJECT_TIMER_LATE:
		vm->timer_late_ns += (uint64_t)inj->arg * 1000;
		break;
	case INJECT_PREEMPT_INSNS:
		single_step_start(vm, inj->arg);
		break;
	default:
		return; /* the input parser admits no other kind */
	}
	trace_injection(vm, inj);
	if (vm->landings && vm->landing_count < vm->landing_cap)
		user_context_read(vm, &vm->landings[vm->landing_count++]);
	vm->injected++;
}

static bool acts_at_step(const struct injection *inj)
{
	return inj->kind != INJECT_PREEMPT && inj->kind != INJECT_PRIORITY &&
	       inj->kind != INJECT_DEMOTE;
}

void inject_due(struct vm *vm)
{
	const struct schedule *s = vm->schedule;

	if (!s || !vm->ready_step)
		return;
	/* `preempt` and `demote` count events (vmm/counter.c), `priority` names a
	 * thread (vmm/pct.c): not steps */
	while (vm->schedule_next < s->count && vm->outcome == VM_RUNNING &&
	       (!acts_at_step(&s->at[vm->schedule_next]) ||
		vm->ready_step + s->at[vm->schedule_next].step <= vm->steps)) {
		const struct injection *inj = &s->at[vm->schedule_next++];

		if (acts_at_step(inj))
			apply(vm, inj);
	}
}

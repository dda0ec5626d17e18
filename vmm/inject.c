/* SPDX-License-Identifier: MIT */
/*
 * Applying the schedule: each injection acts at its own step after READY,
 * while the vCPU is stopped at an exit the guest made, so the guest sees it
 * at the same instruction on every run.
 */
#include "vmm/inject.h"

#include "vmm/counter.h"
#include "vmm/ports_shared.h"
#include "vmm/single_step.h"
#include "vmm/user_context.h"
#include "vmm/vm.h"

#include <string.h>

/* The kinds that act at a step; `preempt` and `demote` count events (vmm/counter.c),
 * `priority` names a thread (vmm/pct.c). */
#define STEP_KINDS                                                                                 \
	(INJECT_KIND_BIT(INJECT_RESCHED) | INJECT_KIND_BIT(INJECT_STALL) |                         \
	 INJECT_KIND_BIT(INJECT_TIMER_LATE) | INJECT_KIND_BIT(INJECT_PREEMPT_INSNS))

void inject_set_schedule(struct vm *vm, const struct schedule *s)
{
	vm->schedule = s;
	schedule_queue_fill(&vm->step_queue, s, STEP_KINDS);
	vm->timer_late_ns = 0;
	vm->injected = 0;
	vm->landing_count = 0;
	counter_reset(vm); /* the injections that count events */
	memset(&vm->feedback, 0, sizeof(vm->feedback));
	single_step_stop(vm); /* a run that ended while stepping leaves it on */
	vm->single_step.stepped = 0;
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
static void trace_injection(struct vm *vm, const struct injection *inj, uint32_t index)
{
	struct trace_record rec = {
		.step = vm->steps, .type = TRACE_INJECT, .args = {inj->kind, inj->arg, index}};

	trace_append(&vm->trace, &rec, NULL);
}

/* Applies the schedule's injection number index. */
static void apply(struct vm *vm, uint32_t index)
{
	const struct injection *inj = &vm->schedule->at[index];

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
		return; /* STEP_KINDS has no other kind */
	}
	trace_injection(vm, inj, index);
	if (vm->landings && vm->landing_count < vm->landing_cap)
		user_context_read(vm, &vm->landings[vm->landing_count++]);
	vm->injected++;
}

bool inject_would_act(const struct vm *vm)
{
	const struct schedule *s = vm->schedule;
	const struct schedule_queue *q = &vm->step_queue;

	return s && vm->ready_step && q->next < q->count && vm->outcome == VM_RUNNING &&
	       vm->ready_step + s->at[q->at[q->next]].step <= vm->steps;
}

void inject_due(struct vm *vm)
{
	struct schedule_queue *q = &vm->step_queue;

	while (inject_would_act(vm))
		apply(vm, q->at[q->next++]);
}

/*
 * The software counter: precise preemption of CPU-bound code without a PMU.
 * A test program built with gcc's -fsanitize-coverage=trace-pc and the guest
 * runtime (guest/runtime/counter.c) decrements a countdown in every basic
 * block and reads REWIND_PORT_COUNTER when it reaches zero. The VMM hands
 * out countdowns that end exactly at the next block where it wants a
 * preemption: the next `preempt` injection of the schedule, or the end of
 * the default time slice. At that read the VMM adds the blocks' virtual time
 * and answers "preempt" (REWIND_COUNTER_PREEMPT); the runtime stores its next
 * countdown and writes the port, and at that exit the VMM raises the
 * reschedule request, which the guest takes right after the write: the
 * preemption lands at that block on every run, and the threads that run
 * meanwhile count their blocks on the stored countdown. The runtime passes
 * the block's address in RDI: the trace records where each injected
 * preemption landed, and coverage tells preemption sites apart.
 */
#include "vmm/vm.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#define COUNTDOWN_MAX (1u << 24) /* read at least this often: virtual time moves */

/* The block of the next `preempt` injection after the current count, or UINT64_MAX. */
static uint64_t next_preempt(const struct vm *vm)
{
	const struct schedule *s = vm->schedule;

	for (uint32_t i = vm->counter.next; s && i < s->count; i++)
		if (s->at[i].kind == INJECT_PREEMPT)
			return s->at[i].step;
	return UINT64_MAX;
}

/* The address of the block the program is at: the runtime's RDI at its read. */
static uint64_t block_address(struct vm *vm)
{
	struct kvm_regs regs;

	if (ioctl(vm->km.vcpu_fd, KVM_GET_REGS, &regs) < 0) {
		vm_finish(vm, VM_HOST_ERROR, "KVM_GET_REGS at a counter read: %s", strerror(errno));
		return 0;
	}
	return regs.rdi;
}

static void trace_preempt(struct vm *vm, enum preempt_why why)
{
	struct trace_record rec = {.step = vm->steps,
				   .type = TRACE_PREEMPT,
				   .args = {vm->counter.blocks, why, block_address(vm)}};

	trace_append(&vm->trace, &rec, NULL);
}

/* Applies the `preempt` injections at the current count (and skips ones already past). */
static bool take_preempts(struct vm *vm)
{
	const struct schedule *s = vm->schedule;
	bool due = false;

	for (; s && vm->counter.next < s->count; vm->counter.next++) {
		const struct injection *inj = &s->at[vm->counter.next];

		if (inj->kind != INJECT_PREEMPT)
			continue;
		if (inj->step > vm->counter.blocks)
			break;
		due = true;
		vm->injected++;
	}
	return due;
}

uint32_t counter_read(struct vm *vm)
{
	struct vm_counter *c = &vm->counter;
	uint64_t until, slice_end, next;
	bool preempt = false;

	if (!vm->cfg.counter_mode) {
		c->started = true; /* noticed, and told to stop: exit mode ignores blocks */
		return 0;
	}

	if (c->started) {
		c->blocks += c->armed;
		vclock_advance(&vm->clock, c->armed * vm->cfg.block_ns);
	}
	c->started = true;
	if (take_preempts(vm)) {
		trace_preempt(vm, PREEMPT_WHY_BLOCK);
		preempt = true;
	} else if (vm->cfg.slice_blocks && c->blocks >= c->slice_start + vm->cfg.slice_blocks) {
		trace_preempt(vm, PREEMPT_WHY_SLICE);
		preempt = true;
	}
	if (preempt)
		c->slice_start = c->blocks;
	c->preempt_due = preempt;
	until = c->blocks + COUNTDOWN_MAX;
	slice_end = c->slice_start + vm->cfg.slice_blocks;
	if (vm->cfg.slice_blocks && slice_end < until)
		until = slice_end;
	next = next_preempt(vm);
	if (next < until)
		until = next;
	c->armed = until > c->blocks ? (uint32_t)(until - c->blocks) : 1;
	return c->armed | (preempt ? REWIND_COUNTER_PREEMPT : 0);
}

void counter_preempt(struct vm *vm)
{
	if (!vm->counter.preempt_due) {
		vm_finish(vm, VM_GUEST_FAULT, "counter write without a preemption due");
		return;
	}
	vm->counter.preempt_due = false;
	vm_raise(vm, REWIND_PENDING_RESCHED);
}

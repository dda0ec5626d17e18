/*
 * The software counter: precise preemption of CPU-bound code without a PMU.
 * A test program built with guest/rewind-cc reports every schedule event (a
 * shared-memory access, an atomic, a synchronisation operation; a basic
 * block for a trace-pc build) to its runtime (guest/runtime/), which counts
 * down and reads REWIND_PORT_COUNTER when the countdown reaches zero. The
 * VMM hands out countdowns that end exactly at the next event where it
 * wants to act: the next `preempt` (counter mode) or `demote` (pct mode)
 * injection of the schedule, or the end of the default time slice. At that
 * read the VMM adds the events' virtual time and answers:
 *   - "preempt" (REWIND_COUNTER_PREEMPT): the runtime stores its next
 *     countdown and writes the port, and at that exit the VMM raises the
 *     reschedule request, which the guest takes right after the write;
 *   - a SCHED_FIFO priority (a `demote`, or a pct time slice's end): the
 *     runtime takes it at once, and the kernel runs the job's
 *     highest-priority runnable thread (PCT).
 * Either lands before that event on every run, and the threads that run
 * meanwhile count their events on the stored countdown. The runtime passes
 * the event's address in RDI: the trace records where each injection
 * landed, and coverage tells the sites apart.
 */
#include "vmm/vm.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#define COUNTDOWN_MAX  REWIND_COUNTER_COUNT_MASK /* read this often at least: virtual time moves */
#define PCT_SLICE_PRIO 1 /* pct: a thread whose time slice ran out drops to the lowest priority */

/* The event count at which inj acts, or UINT64_MAX for a kind that acts at steps or never. */
static uint64_t event_of(const struct vm *vm, const struct injection *inj)
{
	if (inj->kind == INJECT_PREEMPT)
		return inj->step;
	if (inj->kind == INJECT_DEMOTE && vm->cfg.pct)
		return (uint64_t)inj->step * vm->cfg.pct_events >> 32;
	return UINT64_MAX;
}

/* The event of the next injection after the current count, or UINT64_MAX. */
static uint64_t next_event(const struct vm *vm)
{
	const struct schedule *s = vm->schedule;

	for (uint32_t i = vm->counter.next; s && i < s->count; i++) {
		uint64_t at = event_of(vm, &s->at[i]);

		if (at != UINT64_MAX)
			return at;
	}
	return UINT64_MAX;
}

/* The address of the event the program is at: the runtime's RDI at its read. */
static uint64_t event_address(struct vm *vm)
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
				   .args = {vm->counter.blocks, why, event_address(vm)}};

	trace_append(&vm->trace, &rec, NULL);
}

/* What the injections due at the current count ask for. */
struct due {
	bool preempt;
	uint32_t prio; /* 0: keep the priority */
};

/* Takes the injections due at the current count (and skips ones already past). */
static struct due take_due(struct vm *vm)
{
	const struct schedule *s = vm->schedule;
	struct due due = {.preempt = false, .prio = 0};

	for (; s && vm->counter.next < s->count; vm->counter.next++) {
		const struct injection *inj = &s->at[vm->counter.next];
		uint64_t at = event_of(vm, inj);

		if (at == UINT64_MAX)
			continue;
		if (at > vm->counter.blocks)
			break;
		if (inj->kind == INJECT_DEMOTE)
			due.prio = inj->arg;
		else
			due.preempt = true;
		vm->injected++;
	}
	return due;
}

/* The default time slice ran out: preempt (pct: and drop to the lowest priority). */
static bool slice_over(struct vm *vm, struct due *due)
{
	const struct vm_counter *c = &vm->counter;

	if (due->preempt || due->prio || !vm->cfg.slice_blocks ||
	    c->blocks < c->slice_start + vm->cfg.slice_blocks)
		return false;
	trace_preempt(vm, PREEMPT_WHY_SLICE);
	due->preempt = true;
	if (vm->cfg.pct)
		due->prio = PCT_SLICE_PRIO;
	return true;
}

/* The countdown to the next event the VMM wants to see: an injection or the slice's end. */
static uint32_t next_countdown(struct vm *vm)
{
	struct vm_counter *c = &vm->counter;
	uint32_t max = vm->cfg.countdown_max && vm->cfg.countdown_max < COUNTDOWN_MAX
			       ? vm->cfg.countdown_max
			       : COUNTDOWN_MAX;
	uint64_t until = c->blocks + max, slice_end, next;

	slice_end = c->slice_start + vm->cfg.slice_blocks;
	if (vm->cfg.slice_blocks && slice_end < until)
		until = slice_end;
	next = next_event(vm);
	if (next < until)
		until = next;
	return until > c->blocks ? (uint32_t)(until - c->blocks) : 1;
}

uint32_t counter_read(struct vm *vm)
{
	struct vm_counter *c = &vm->counter;
	struct due due;

	if (!vm->cfg.counter_mode) {
		c->started = true; /* noticed, and told to stop: steps mode ignores events */
		return 0;
	}
	if (c->started) {
		c->blocks += c->armed;
		vclock_advance(&vm->clock, c->armed * vm->cfg.block_ns);
	}
	c->started = true;
	due = take_due(vm);
	if (due.preempt)
		trace_preempt(vm, PREEMPT_WHY_BLOCK);
	if (due.prio)
		trace_preempt(vm, PREEMPT_WHY_DEMOTE);
	slice_over(vm, &due);
	if (due.preempt || due.prio)
		c->slice_start = c->blocks;
	c->preempt_due = due.preempt;
	c->armed = next_countdown(vm);
	return c->armed | due.prio << REWIND_COUNTER_PRIO_SHIFT |
	       (due.preempt ? REWIND_COUNTER_PREEMPT : 0);
}

void counter_settle(struct vm *vm, uint64_t left)
{
	struct vm_counter *c = &vm->counter;

	if (!vm->cfg.counter_mode || !c->started || left > c->armed)
		return;
	c->blocks += c->armed - left;
	vclock_advance(&vm->clock, (c->armed - left) * vm->cfg.block_ns);
	c->armed = (uint32_t)left;
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

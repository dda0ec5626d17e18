/* SPDX-License-Identifier: MIT */
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
 *
 * The event log (vm->event_log, rewind-harness --event-log) sees every
 * event: the VMM answers every read with a countdown of 1 and keeps the
 * real countdown itself (log_left). A read before the real countdown runs
 * out is "unseen": handle_exit (vmm/vm.c) takes it before anything else,
 * so it is no step, moves no time, takes no context-switch record (their
 * steps stay those of the next real exit, and the guest, which reads the
 * ring's tail, sees the same ring) and fires no timer. The read where the
 * real countdown runs out is the real read, answered 1 plus its flags. The
 * guest sees nothing else: between two real reads only its own runtime runs
 * more user instructions (so a preempt-insns landing, which counts them,
 * is not the same with the log). The runtime passes the data address in
 * RSI and what the event is in RCX (guest/runtime/runtime.h RT_EV_*). An
 * event where a preemption or a priority change lands is marked
 * (VM_EVENT_LANDED_*): its access comes when its thread runs again, after
 * the other threads' events logged next.
 *
 * Each process counts down a countdown of its own (its threads share it),
 * so the VMM keeps one per process (struct counter_owed, by the pid the
 * runtime passes in RCX's upper half): a read counts the events of the
 * reading process's last countdown, and a process's first read counts
 * none. A test runner that forks and execs the test (libuv's) holds a
 * countdown of up to a whole time slice while it waits; counted at the
 * child's first read, it put nearly every change point there. With
 * several processes making events at once, an event's number counts the
 * others' only up to their last reads.
 */
#include "vmm/counter.h"

#include "rewind/abi.h"

#include "lib/mix64.h"
#include "vmm/guest_mem.h"
#include "vmm/ports_shared.h"
#include "vmm/user_context.h"
#include "vmm/vm.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#define COUNTDOWN_MAX REWIND_COUNTER_COUNT_MASK /* read this often at least: virtual time moves */
/*
 * Events the guest kernel makes (a job not instrumented, pct mode:
 * REWIND_RT_KERNEL_EVENTS) cost a fault and a single step each: read at
 * least this often, so that a run makes exits (the stuck watchdog's sign
 * of life) every few thousand of them.
 */
#define KERNEL_COUNTDOWN_MAX 1024u

#define PCT_SLICE_PRIO 1 /* pct: a thread whose time slice ran out drops to the lowest priority */

#define EVENT_KIND(what) REWIND_SCHED_KIND_OF(what) /* include/rewind/abi.h */
#define EVENT_SIZE(what) REWIND_SCHED_SIZE_OF(what)

/* The event count at which inj acts, or UINT64_MAX: a demote outside pct mode never acts. */
static uint64_t event_of(const struct vm *vm, const struct injection *inj)
{
	if (inj->kind == INJECT_PREEMPT)
		return inj->step;
	if (inj->kind == INJECT_DEMOTE && vm->cfg.pct && !vm->counter.fair)
		return (uint64_t)inj->step *
			       (vm->counter.racy ? vm->cfg.pct_racy_events : vm->cfg.pct_events) >>
		       32;
	return UINT64_MAX;
}

/* The injection the event queue holds at position i. */
static const struct injection *queued(const struct vm *vm, uint32_t i)
{
	return &vm->schedule->at[vm->counter.event_queue.at[i]];
}

/* The event of the next injection after the current count, or UINT64_MAX. */
static uint64_t next_event(const struct vm *vm)
{
	const struct schedule_queue *q = &vm->counter.event_queue;

	for (uint32_t i = q->next; i < q->count; i++) {
		uint64_t at = event_of(vm, queued(vm, i));

		if (at != UINT64_MAX) /* a demote outside pct mode never acts */
			return at;
	}
	return UINT64_MAX;
}

void counter_reset(struct vm *vm)
{
	/* both kinds whatever the mode: the harness sets the mode after the schedule */
	vm->counter = (struct vm_counter){.started = false};
	schedule_queue_fill(&vm->counter.event_queue, vm->schedule,
			    INJECT_KIND_BIT(INJECT_PREEMPT) | INJECT_KIND_BIT(INJECT_DEMOTE));
}

/* The vCPU's registers at a read (RDI, RSI, RCX: the event); false, and the run ends, if not. */
static bool read_registers(struct vm *vm, struct kvm_regs *regs)
{
	if (ioctl(vm->km.vcpu_fd, KVM_GET_REGS, regs) < 0) {
		vm_finish(vm, VM_HOST_ERROR, "KVM_GET_REGS at a counter read: %s", strerror(errno));
		return false;
	}
	return true;
}

/* The reading process (RCX's upper half): 0 for the guest kernel, which counts one at a time. */
static uint32_t reading_process(const struct kvm_regs *regs)
{
	return (uint32_t)(regs->rcx >> REWIND_COUNTER_PROCESS_SHIFT);
}

/* What the event at a read is (RCX's low bits, guest/runtime/runtime.h RT_EV_*). */
static uint32_t event_what(const struct kvm_regs *regs)
{
	return (uint32_t)regs->rcx & 0xffffu;
}

/* A process's first read (its runtime starts, or it was forked): no event, nothing run yet. */
static bool first_read(const struct kvm_regs *regs)
{
	return event_what(regs) == 0;
}

/* pid's countdown, or NULL. */
static struct counter_owed *owed_find(struct vm_counter *c, uint32_t pid)
{
	for (struct counter_owed *o = c->owed; o < c->owed + COUNTER_PROCESSES; o++)
		if (o->used && o->pid == pid)
			return o;
	return NULL;
}

/* pid's countdown; a new one (nothing handed out) where it has none, in a free or the oldest slot.
 */
static struct counter_owed *owed_by(struct vm_counter *c, uint32_t pid)
{
	struct counter_owed *o = owed_find(c, pid), *room = &c->owed[0];

	if (o)
		return o;
	for (o = c->owed; o < c->owed + COUNTER_PROCESSES; o++)
		if (!o->used || (room->used && o->last < room->last))
			room = o;
	*room = (struct counter_owed){.used = true, .pid = pid};
	return room;
}

/* A preemption at the read whose registers are regs (RDI: the event's code address). */
static void trace_preempt(struct vm *vm, enum preempt_why why, const struct kvm_regs *regs)
{
	struct trace_record rec = {.step = vm->steps,
				   .type = TRACE_PREEMPT,
				   .args = {vm->counter.blocks, why, regs->rdi}};

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
	struct schedule_queue *q = &vm->counter.event_queue;
	struct due due = {.preempt = false, .prio = 0};

	for (; q->next < q->count; q->next++) {
		const struct injection *inj = queued(vm, q->next);
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

/*
 * The current time slice's length in events (0: none): the mode's slice S
 * on average (counter mode's --slice-blocks, pct's 200,000; the fair
 * continuation has counter mode's), each slice drawn from
 * [S - S/2, 2S - S/2) by a hash of the execution seed and the slice's
 * number. A slice of one length every time ends at the same instruction of
 * any loop whose events per turn divide it: a spin that holds a mutex for
 * three of its four events was preempted with it held at every slice, and
 * the thread it waited for never ran its unlock (docs/bugs-found.md,
 * libatomic_ops). A length that varies lands anywhere in a turn, as a
 * kernel's tick does; a function of the seed and the count only, so a run
 * stays a pure function of its input, and a new seed moves every slice.
 */
static uint64_t slice_length(const struct vm *vm)
{
	uint64_t slice = vm->counter.fair ? vm->cfg.fair_slice_blocks : vm->cfg.slice_blocks;
	uint64_t seed = (uint64_t)vm->cfg.exec_seed[1] << 32 | vm->cfg.exec_seed[0];

	if (slice < 2)
		return slice;
	/* a salt ("slicesli"): not the drawn priorities' hash of the same numbers (vmm/pct.c) */
	return slice - slice / 2 +
	       mix64(seed ^ mix64(vm->counter.slices ^ 0x736c696365736c69ull)) % slice;
}

/*
 * The default time slice ran out: preempt (pct: and drop to the lowest
 * priority; the preemption puts the thread behind the others there, see
 * linux/patches/0004: threads that all end up there take turns).
 */
static bool slice_over(struct vm *vm, struct due *due, const struct kvm_regs *regs)
{
	const struct vm_counter *c = &vm->counter;
	uint64_t slice = slice_length(vm);

	if (due->preempt || due->prio || !slice || c->blocks < c->slice_start + slice)
		return false;
	trace_preempt(vm, PREEMPT_WHY_SLICE, regs);
	due->preempt = true;
	if (vm->cfg.pct && !c->fair)
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

	if (vm->counter.kernel_events && max > KERNEL_COUNTDOWN_MAX)
		max = KERNEL_COUNTDOWN_MAX;
	uint64_t until = c->blocks + max, slice = slice_length(vm), next;

	if (slice && c->slice_start + slice < until)
		until = c->slice_start + slice;
	next = next_event(vm);
	if (next < until)
		until = next;
	return until > c->blocks ? (uint32_t)(until - c->blocks) : 1;
}

/* The first min(size, 8) bytes at ev's address now (0 if not mapped). */
static uint64_t value_at(struct vm *vm, const struct vm_event *ev)
{
	uint64_t value = 0;

	if (EVENT_SIZE(ev->what) && ev->addr &&
	    !guest_virt_copy(vm, ev->addr, &value,
			     EVENT_SIZE(ev->what) < 8 ? EVENT_SIZE(ev->what) : 8))
		value = 0;
	return value;
}

/*
 * The thread's previous event has made its access by now (even one a
 * preemption landed at): its value after it, which is what a store wrote.
 */
static void note_after(struct vm *vm, struct vm_event_log *log, uint32_t at, uint32_t pid)
{
	uint32_t tid = log->at[at].tid, t = 0;
	struct vm_event *before = at ? &log->at[at - 1] : NULL;

	/* another thread's event came just before, not where a preemption landed: its
	 * access is done too (a thread's last event has no next one of its own) */
	if (before && before->tid != tid &&
	    !(before->what &
	      (VM_EVENT_AFTER | VM_EVENT_LANDED_PREEMPT | VM_EVENT_LANDED_PRIORITY))) {
		before->after = value_at(vm, before);
		before->what |= VM_EVENT_AFTER;
	}

	while (t < log->threads && log->last_tid[t] != tid)
		t++;
	if (t == log->threads) {
		if (t == VM_EVENT_THREADS)
			return;
		log->threads++;
		log->last_tid[t] = tid;
	} else {
		struct vm_event *prev = &log->at[log->last_at[t]];

		if (!(prev->what & VM_EVENT_AFTER)) {
			prev->after = value_at(vm, prev);
			prev->what |= VM_EVENT_AFTER;
		}
	}
	log->last_at[t] = at;
	log->last_pid[t] = pid;
}

/* Logs the event at this read (the runtime's RDI, RSI, RCX) as event number index. */
static struct vm_event *log_event(struct vm *vm, const struct kvm_regs *regs, uint64_t index)
{
	struct vm_event_log *log = vm->event_log;
	struct vm_event *ev;

	if (log->count >= log->cap) {
		log->dropped++;
		return NULL;
	}
	ev = &log->at[log->count++];
	*ev = (struct vm_event){.index = index,
				.tid = ports_current_tid(vm),
				.what = event_what(regs),
				.pc = regs->rdi,
				.addr = regs->rsi};
	/* a little-endian value of up to 8 bytes; an address not mapped yet reads 0 */
	ev->value = value_at(vm, ev);
	note_after(vm, log, log->count - 1, reading_process(regs));
	return ev;
}

void counter_event_name(uint32_t what, char *name, size_t len)
{
	static const char *const kinds[] = {"?", "read", "write", "atomic", "sync", "block"};
	const char *kind =
		EVENT_KIND(what) < sizeof(kinds) / sizeof(kinds[0]) ? kinds[EVENT_KIND(what)] : "?";

	if (EVENT_SIZE(what))
		snprintf(name, len, "%s%u", kind, EVENT_SIZE(what));
	else
		snprintf(name, len, "%s", kind);
}

/* Logging, and the process's real countdown has not run out: the event is only logged. */
bool counter_read_unseen(struct vm *vm, uint32_t *answer)
{
	struct vm_counter *c = &vm->counter;
	struct counter_owed *o;
	struct kvm_regs regs;

	if (!vm->event_log || !vm->cfg.counter_mode || !c->started || !read_registers(vm, &regs) ||
	    first_read(&regs))
		return false;
	o = owed_find(c, reading_process(&regs));
	if (!o || o->log_left <= 1)
		return false;
	o->log_left--;
	log_event(vm, &regs, c->blocks + o->armed - o->log_left);
	*answer = 1;
	return true;
}

/*
 * The real read's answer: the runtime is told 1 and the VMM keeps the real
 * countdown; a log that stops when full and is full gets the real answer
 * (log_left 0: the process's reads are real from here).
 */
static uint32_t logged_answer(struct vm *vm, struct counter_owed *o, uint32_t answer)
{
	const struct vm_event_log *log = vm->event_log;

	if (!log)
		return answer;
	if (log->stop_when_full && log->count >= log->cap) {
		o->log_left = 0;
		return answer;
	}
	o->log_left = answer & REWIND_COUNTER_COUNT_MASK;
	return (answer & ~REWIND_COUNTER_COUNT_MASK) | 1;
}

uint32_t counter_read(struct vm *vm)
{
	struct vm_counter *c = &vm->counter;
	struct vm_event *logged = NULL;
	struct counter_owed *o;
	struct kvm_regs regs;
	struct due due;

	if (!vm->cfg.counter_mode) {
		c->started = true; /* noticed, and told to stop: steps mode ignores events */
		return 0;
	}
	if (!read_registers(vm, &regs))
		return 0;
	/* the events run since this process's last read: its countdown, not another's */
	o = owed_by(c, reading_process(&regs));
	o->last = ++c->reads;
	if (c->started && !first_read(&regs)) {
		c->blocks += o->armed;
		vclock_advance(&vm->clock, o->armed * vm->cfg.block_ns);
		if (vm->event_log)
			logged = log_event(vm, &regs, c->blocks);
	}
	c->started = true;
	due = take_due(vm);
	if (due.preempt)
		trace_preempt(vm, PREEMPT_WHY_BLOCK, &regs);
	if (due.prio)
		trace_preempt(vm, PREEMPT_WHY_DEMOTE, &regs);
	slice_over(vm, &due, &regs);
	if (due.preempt || due.prio) { /* a new time slice starts */
		c->slice_start = c->blocks;
		c->slices++;
	}
	c->preempts_due += due.preempt;
	if (logged)
		logged->what |= (due.preempt ? VM_EVENT_LANDED_PREEMPT : 0) |
				(due.prio ? VM_EVENT_LANDED_PRIORITY : 0);
	if (c->fair) /* every process that reads leaves SCHED_FIFO (its runtime does it once) */
		due.prio = REWIND_COUNTER_PRIO_FAIR;
	o->armed = next_countdown(vm);
	return logged_answer(vm, o,
			     o->armed | due.prio << REWIND_COUNTER_PRIO_SHIFT |
				     (due.preempt ? REWIND_COUNTER_PREEMPT : 0));
}

/*
 * Process pid is about to exit: its threads' last events get their values
 * after them now (their next events never come: a thread ended, or the
 * process was left with one thread, which makes none in pct mode).
 */
static void note_after_exit(struct vm *vm, uint32_t pid)
{
	struct vm_event_log *log = vm->event_log;

	for (uint32_t t = 0; t < log->threads; t++) {
		struct vm_event *ev = &log->at[log->last_at[t]];

		if (log->last_pid[t] == pid && !(ev->what & VM_EVENT_AFTER)) {
			ev->after = value_at(vm, ev);
			ev->what |= VM_EVENT_AFTER;
		}
	}
}

void counter_settle(struct vm *vm, uint64_t left, uint32_t pid)
{
	struct vm_counter *c = &vm->counter;
	struct counter_owed *o = owed_find(c, pid);

	if (vm->event_log)
		note_after_exit(vm, pid);

	if (!o)
		return;
	if (vm->event_log && left == 1 && o->log_left)
		left = o->log_left; /* logging, the runtime counts down from 1: the real count */
	if (!vm->cfg.counter_mode || !c->started || left > o->armed)
		return;
	c->blocks += o->armed - left;
	vclock_advance(&vm->clock, (o->armed - left) * vm->cfg.block_ns);
	o->armed = (uint32_t)left;
}

void counter_preempt(struct vm *vm, uint32_t value)
{
	(void)value; /* ignored (the ABI) */
	if (vm->counter.ack_next) {
		vm->counter.ack_next = false; /* only the held timer or injection: applied now */
		return;
	}
	if (!vm->counter.preempts_due) {
		vm_finish(vm, VM_GUEST_FAULT, "counter write without a preemption due");
		return;
	}
	vm->counter.preempts_due--;
	ports_raise(vm, REWIND_PENDING_RESCHED);
}

void counter_go_fair(struct vm *vm, uint64_t budget)
{
	struct trace_record rec = {.step = vm->steps,
				   .type = TRACE_PREEMPT,
				   .args = {vm->counter.blocks, PREEMPT_WHY_FAIR, 0}};

	vm->counter.fair = true;
	vm->counter.fair_until = vm->steps + budget;
	trace_append(&vm->trace, &rec, NULL);
}

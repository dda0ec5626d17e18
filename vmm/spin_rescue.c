/* SPDX-License-Identifier: MIT */
/*
 * A task that spins in user space on memory no schedule event watches
 * makes no exit; on a real machine the tick would preempt it and the task
 * it waits for would run. Here nothing preempts it, and the watchdog would
 * end the run stuck: a false verdict for a test that passes natively.
 *
 * A pure spin is a loop that reaches the same instruction with the same
 * registers without writing memory in between: a fixed point. With one
 * vCPU and no exit, nothing else changes memory, so it can never end
 * until another task runs. When no exit came for the rescue budget, the
 * VMM single-steps the vCPU (KVM_GUESTDBG_SINGLESTEP, invisible to the
 * guest) for at most SPIN_RESCUE_WINDOW instructions, each checked before
 * it runs: one that writes no memory and no FPU/SSE state
 * (spin_insn_decode), reading only mapped memory. After each it records
 * (RIP, every GPR, RFLAGS); the first state seen twice closes the cycle.
 * The task is yielded at the cycle's canonical state (its lowest RIP, then
 * its lowest registers), not where the look began: the cycle is the same
 * whenever the host looked, so the yield lands at the same state, with the
 * same virtual time and step, however late the watchdog fired. The yield
 * is a trace record (TRACE_SPIN_YIELD) and a sleep of SPIN_RESCUE_SLEEP_NS
 * for the task (REWIND_PENDING_STALL, raised while the vCPU is stopped at
 * that state, not at an exit: the one injection that is not, safe because
 * the state is a fixed point); the yield moves no virtual time itself and
 * makes no step.
 *
 * A look that meets anything else (a write, a call, a system call, a
 * fault) leaves the guest exactly where it would have been: only
 * whitelisted instructions ran under the VMM's trap flag. A pure spin
 * that nothing could end (no other task runnable, no timer armed) is not
 * yielded: it is stuck.
 */
#include "vmm/spin_rescue.h"

#include "vmm/ports_shared.h"
#include "vmm/spin_insn.h"
#include "vmm/user_context.h"
#include "vmm/vm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#define USER_TOP     0x800000000000ull /* user addresses are below */
#define INSN_MAX     15		       /* bytes an x86 instruction has at most */
#define RFLAGS_TF    (1ull << 8)
#define RFLAGS_TF_RF (RFLAGS_TF | (1ull << 16)) /* the debugger's, not the task's */
/* A task's entry frame (struct pt_regs) at the top of its kernel stack, x86-64. */
#define KERNEL_STACK_SIZE (16u << 10)
#define PT_REGS_WORDS	  21
#define PT_REGS_RIP	  16
#define PT_REGS_CS	  17
#define PT_REGS_FLAGS	  18
#define USER_CS		  0x33			   /* __USER_CS */
#define STATE_SLOTS	  (2 * SPIN_RESCUE_WINDOW) /* a power of two, half full at most */

/* One state of the task: every GPR, RIP and RFLAGS, without the debugger's flags. */
struct spin_state {
	struct kvm_regs regs;
};

/* The look's record: states in step order and a hash table of their indexes. */
struct spin_window {
	struct kvm_sregs sregs; /* FS and GS bases: no whitelisted instruction changes them */
	struct spin_state at[SPIN_RESCUE_WINDOW + 1];
	uint32_t slot[STATE_SLOTS]; /* index + 1; 0: empty */
	uint32_t count;
};

static uint64_t state_hash(const struct spin_state *s)
{
	const uint64_t *w = (const uint64_t *)&s->regs;
	uint64_t h = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < sizeof(s->regs) / 8; i++)
		h = (h ^ w[i]) * 0x100000001b3ull;
	return h ^ h >> 29;
}

/* The earlier index of the newest state, or -1 (then it is added). */
static int64_t seen_before(struct spin_window *win)
{
	const struct spin_state *s = &win->at[win->count];
	uint64_t i = state_hash(s) & (STATE_SLOTS - 1);

	for (; win->slot[i]; i = (i + 1) & (STATE_SLOTS - 1))
		if (!memcmp(&win->at[win->slot[i] - 1], s, sizeof(*s)))
			return (int64_t)win->slot[i] - 1;
	win->slot[i] = ++win->count;
	return -1;
}

static bool read_state(struct vm *vm, struct spin_state *s)
{
	memset(s, 0, sizeof(*s));
	if (ioctl(vm->km.vcpu_fd, KVM_GET_REGS, &s->regs) < 0)
		return false;
	s->regs.rflags &= ~RFLAGS_TF_RF;
	return true;
}

static int set_stepping(struct vm *vm, bool on)
{
	struct kvm_guest_debug dbg = {.control = on ? KVM_GUESTDBG_ENABLE | KVM_GUESTDBG_SINGLESTEP
						    : 0};

	return ioctl(vm->km.vcpu_fd, KVM_SET_GUEST_DEBUG, &dbg) < 0 ? -errno : 0;
}

/* Runs one instruction: KVM_EXIT_DEBUG, another exit's reason, or -errno (a kick is retried). */
static int step_one(struct vm *vm)
{
	int reason;

	do
		reason = kvm_machine_run(&vm->km);
	while (reason == -EINTR);
	return reason;
}

/*
 * Whether the instruction at the task's RIP may run in a pure spin: it is
 * whitelisted, and what it reads is mapped (8 bytes, at most the size of a
 * whitelisted load), so it cannot fault into the guest kernel: a page the
 * kernel watches for schedule events (linux/patches/0016) is one it does
 * not run.
 */
static bool next_insn_is_pure(struct vm *vm, const struct kvm_regs *r,
			      const struct kvm_sregs *sregs)
{
	uint8_t code[INSN_MAX], word[8];
	size_t len = INSN_MAX;
	struct spin_insn insn;
	uint64_t ea;

	if (r->rip >= USER_TOP)
		return false;
	if (4096 - r->rip % 4096 < len && !guest_virt_copy(vm, r->rip, code, len))
		len = 4096 - r->rip % 4096; /* the next page is not mapped */
	if (!guest_virt_copy(vm, r->rip, code, len) || !spin_insn_decode(code, len, &insn))
		return false;
	if (!insn.mem)
		return true;
	ea = spin_insn_address(&insn, r, sregs);
	return ea < USER_TOP - sizeof(word) && guest_virt_copy(vm, ea, word, sizeof(word));
}

enum look_result { LOOK_EXIT, LOOK_FIXED_POINT, LOOK_NOT_PURE, LOOK_WINDOW, LOOK_ERROR };

/*
 * Steps until a state repeats. *cycle: the index of the repeated state; the
 * states from it to the newest (excluded) are the cycle, and the vCPU is at
 * that state again. *reason: an exit met (LOOK_EXIT).
 */
static enum look_result look_for_cycle(struct vm *vm, struct spin_window *win, uint32_t *cycle,
				       int *reason)
{
	for (;;) {
		struct spin_state *s = &win->at[win->count];
		int64_t earlier;

		if (!read_state(vm, s))
			return LOOK_ERROR;
		if (s->regs.rip >= USER_TOP)
			return LOOK_NOT_PURE; /* an exception took it into the kernel */
		earlier = seen_before(win);
		if (earlier >= 0) {
			*cycle = (uint32_t)earlier;
			return LOOK_FIXED_POINT;
		}
		if (win->count > SPIN_RESCUE_WINDOW)
			return LOOK_WINDOW;
		if (!next_insn_is_pure(vm, &s->regs, &win->sregs))
			return LOOK_NOT_PURE;
		*reason = step_one(vm);
		if (*reason != KVM_EXIT_DEBUG)
			return *reason < 0 ? LOOK_ERROR : LOOK_EXIT;
	}
}

/* The cycle's canonical state: the lowest RIP, then the lowest registers. */
static uint32_t canonical_state(const struct spin_window *win, uint32_t from)
{
	uint32_t best = from;

	for (uint32_t i = from + 1; i < win->count; i++) {
		const struct kvm_regs *a = &win->at[i].regs, *b = &win->at[best].regs;

		if (a->rip < b->rip || (a->rip == b->rip && memcmp(a, b, sizeof(*a)) < 0))
			best = i;
	}
	return best;
}

/* Whether a yield could let anything end the spin: another task, or a timer. */
static bool yield_can_help(struct vm *vm)
{
	const struct rewind_shared *sh = ports_shared(vm);

	return sh && (__atomic_load_n(&sh->nr_runnable, __ATOMIC_RELAXED) != 1 ||
		      __atomic_load_n(&sh->timer_deadline, __ATOMIC_RELAXED) != 0);
}

/* The task sleeps from this state on; the trace says where. */
static void yield_here(struct vm *vm, uint64_t rip)
{
	struct rewind_shared *sh = ports_shared(vm);
	struct trace_record rec = {.step = vm->steps,
				   .type = TRACE_SPIN_YIELD,
				   .tid = ports_current_tid(vm),
				   .args = {rip, SPIN_RESCUE_SLEEP_NS}};

	trace_append(&vm->trace, &rec, NULL);
	sh->stall_ns = SPIN_RESCUE_SLEEP_NS;
	ports_raise(vm, REWIND_PENDING_STALL);
	vm->rescue.yields++;
}

static void note(struct vm *vm, const char *what, uint64_t rip)
{
	snprintf(vm->rescue.note, sizeof(vm->rescue.note), "; %s at RIP %#llx", what,
		 (unsigned long long)rip);
}

/* From the cycle's repeated state (where the vCPU is) to its canonical one, and the yield. */
static int yield_at_fixed_point(struct vm *vm, struct spin_window *win, uint32_t cycle)
{
	uint32_t target = canonical_state(win, cycle);
	uint64_t rip = win->at[target].regs.rip;

	if (!yield_can_help(vm)) {
		note(vm, "a pure spin, with no other task runnable and no timer armed", rip);
		return -EINTR;
	}
	for (uint32_t i = cycle; i < target; i++) {
		int reason = step_one(vm);

		if (reason != KVM_EXIT_DEBUG)
			return reason; /* a whitelisted instruction ran before: cannot happen */
	}
	note(vm, "a pure spin, yielded", rip);
	yield_here(vm, rip);
	return -EINTR;
}

/* Whether a look may begin: after READY, no preempt-insns count running, in user space. */
static bool may_look(struct vm *vm, bool alone)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs;

	if (alone || !vm->ready_step || vm->outcome != VM_RUNNING || vm->single_step.active ||
	    !ports_shared(vm))
		return false;
	/* 64-bit user code (the whitelist decodes nothing else), without a TF of its own */
	return ioctl(vm->km.vcpu_fd, KVM_GET_SREGS, &sregs) == 0 && (sregs.cs.selector & 3) == 3 &&
	       sregs.cs.l && ioctl(vm->km.vcpu_fd, KVM_GET_REGS, &regs) == 0 &&
	       !(regs.rflags & RFLAGS_TF);
}

static int look(struct vm *vm, struct spin_window *win)
{
	uint32_t cycle = 0;
	int reason = -EINTR;
	uint64_t from = 0;

	switch (look_for_cycle(vm, win, &cycle, &reason)) {
	case LOOK_FIXED_POINT:
		return yield_at_fixed_point(vm, win, cycle);
	case LOOK_EXIT:
		return reason;
	case LOOK_NOT_PURE:
		from = win->at[win->count ? win->count - 1 : 0].regs.rip;
		note(vm, "not a pure spin where the rescue looked (an instruction that writes)",
		     from);
		return -EINTR;
	case LOOK_WINDOW:
		note(vm, "no fixed point within the rescue's instructions, from",
		     win->at[0].regs.rip);
		return -EINTR;
	case LOOK_ERROR:
	default:
		return reason < 0 ? reason : -EIO;
	}
}

/*
 * The VMM's trap flag rides in RFLAGS: where a stepped instruction entered
 * the guest kernel (a fault on a load, a page the kernel watches for
 * schedule events) and the kernel made an exit before its return to user
 * space, the task's saved flags at the top of its kernel stack carry that
 * TF, and the return would trap into the guest once stepping is off. The
 * flag goes from the frame here: the task's own TF is never set during a
 * look (may_look). False if the frame is not where a task's entry frame is.
 */
static bool clear_frame_tf(struct vm *vm, uint64_t kernel_rsp)
{
	uint64_t top = (kernel_rsp | (KERNEL_STACK_SIZE - 1)) + 1;
	uint64_t frame[PT_REGS_WORDS];

	if (!guest_virt_copy(vm, top - sizeof(frame), frame, sizeof(frame)) ||
	    frame[PT_REGS_CS] != USER_CS || frame[PT_REGS_RIP] >= USER_TOP)
		return false;
	if (!(frame[PT_REGS_FLAGS] & RFLAGS_TF))
		return true;
	frame[PT_REGS_FLAGS] &= ~RFLAGS_TF;
	return guest_virt_write(vm, top - sizeof(frame) + PT_REGS_FLAGS * 8, &frame[PT_REGS_FLAGS],
				8);
}

/* Stepping off; a look that ended inside the guest kernel leaves no TF behind. */
static int stop_stepping(struct vm *vm)
{
	struct kvm_regs regs;

	if (ioctl(vm->km.vcpu_fd, KVM_GET_REGS, &regs) < 0)
		return -errno;
	if (regs.rip >= USER_TOP && !clear_frame_tf(vm, regs.rsp)) {
		vm_finish(vm, VM_HOST_ERROR,
			  "the spin rescue's steps ended in the guest kernel at RIP %#llx, "
			  "away from the task's entry frame",
			  (unsigned long long)regs.rip);
		return -EIO;
	}
	return set_stepping(vm, false);
}

int spin_rescue(struct vm *vm, bool alone)
{
	struct spin_window *win;
	int reason, rc;

	if (!may_look(vm, alone))
		return -EINTR;
	win = calloc(1, sizeof(*win));
	if (!win)
		return -ENOMEM;
	if (ioctl(vm->km.vcpu_fd, KVM_GET_SREGS, &win->sregs) < 0) {
		free(win);
		return -errno;
	}
	vm->rescue.looked_at = vm->progress;
	vm->rescue.note[0] = '\0';
	rc = set_stepping(vm, true);
	reason = rc < 0 ? rc : look(vm, win);
	rc = stop_stepping(vm);
	free(win);
	return rc < 0 && reason == -EINTR ? rc : reason;
}

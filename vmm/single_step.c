/*
 * Preemption N user-mode instructions after a step, for unmodified
 * binaries and without a PMU (preempt-insns). At the exit the injection
 * names, the VMM asks the guest kernel (REWIND_PENDING_STEP, patch 0009)
 * to set TF in the running user task's flags, and intercepts the #DB trap
 * that TF raises after each of its user-mode instructions
 * (KVM_SET_GUEST_DEBUG with KVM_GUESTDBG_USE_HW_BP and no breakpoint set:
 * every #DB exits to the VMM, none reaches the guest). After the Nth, the
 * VMM clears TF and raises the reschedule request. The landing is exact;
 * each instruction costs an exit, which is why N is capped
 * (INJECT_INSNS_MAX).
 *
 * Why not KVM_GUESTDBG_SINGLESTEP from the start: KVM would set TF at the
 * kernel instruction the vCPU stopped at, and the kernel's return to user
 * space (SYSRET or IRET) loads the task's own flags: stepping either ended
 * silently in the kernel, before any user code, or stepped all the kernel
 * code on the way. Stepping the task from its own flags counts only its
 * user-mode instructions (kernel entry clears TF, the return restores it),
 * so interrupts need not be held off: the kernel code they run is never
 * stepped and cannot shift the count.
 *
 * KVM_GUESTDBG_SINGLESTEP is added at the first trap, in user space: an
 * instruction KVM completes itself (a port access from user space, as the
 * counter runtime makes) raises its single-step trap in KVM, which hands it
 * to the guest as a #DB (a SIGTRAP) unless that flag is set.
 */
#include "vmm/single_step.h"

#include "vmm/log.h"
#include "vmm/ports_shared.h"
#include "vmm/vm.h"

#include <string.h>
#include <sys/ioctl.h>

#define RFLAGS_TF	 (1ull << 8)
#define STEP_TID_ASKED	 UINT32_MAX /* step_tid until the guest answers */
#define STEP_TID_NOTHING 0	    /* the guest had no user task to step */

static int set_guest_debug(struct vm *vm, uint32_t control)
{
	struct kvm_guest_debug dbg;

	memset(&dbg, 0, sizeof(dbg));
	dbg.control = control;
	if (ioctl(vm->km.vcpu_fd, KVM_SET_GUEST_DEBUG, &dbg) < 0) {
		rw_err_errno(errno, "KVM_SET_GUEST_DEBUG(%#x)", control);
		return -errno;
	}
	return 0;
}

void single_step_start(struct vm *vm, uint16_t insns)
{
	struct rewind_shared *sh = ports_shared(vm);

	if (insns == 0 || vm->single_step.active || !sh)
		return; /* one landing at a time: a second request is dropped, on every run */
	if (set_guest_debug(vm, KVM_GUESTDBG_ENABLE | KVM_GUESTDBG_USE_HW_BP) < 0) {
		vm_finish(vm, VM_HOST_ERROR, "this KVM cannot intercept the guest's debug traps");
		return;
	}
	vm->single_step.active = true;
	vm->single_step.left = insns;
	vm->single_step.from = vm->steps;
	sh->step_tid = STEP_TID_ASKED;
	ports_raise(vm, REWIND_PENDING_STEP);
}

/* Turns stepping off whenever it is on: the count of instructions left says nothing of it. */
void single_step_stop(struct vm *vm)
{
	if (vm->single_step.active && set_guest_debug(vm, 0) < 0)
		vm_finish(vm, VM_HOST_ERROR, "cannot turn single-stepping off");
	vm->single_step.active = false;
	vm->single_step.user = false;
	vm->single_step.left = 0;
}

void single_step_check(struct vm *vm)
{
	const struct rewind_shared *sh = ports_shared(vm);

	if (sh && sh->step_tid == STEP_TID_NOTHING)
		single_step_stop(vm); /* idle or a kernel thread: nothing will trap */
}

/*
 * The stepped task is in user space at the landing: its TF lives in RFLAGS
 * only. (KVM also drops TF when KVM_GUESTDBG_SINGLESTEP goes off; this
 * does not rely on it.)
 */
static void clear_trap_flag(struct vm *vm)
{
	struct kvm_regs regs;

	if (ioctl(vm->km.vcpu_fd, KVM_GET_REGS, &regs) < 0) {
		vm_finish(vm, VM_HOST_ERROR, "KVM_GET_REGS at a landing: %s", strerror(errno));
		return;
	}
	regs.rflags &= ~RFLAGS_TF;
	if (ioctl(vm->km.vcpu_fd, KVM_SET_REGS, &regs) < 0)
		vm_finish(vm, VM_HOST_ERROR, "KVM_SET_REGS at a landing: %s", strerror(errno));
}

void single_step_exit(struct vm *vm)
{
	struct trace_record rec = {.step = vm->steps, .type = TRACE_PREEMPT};

	if (!vm->single_step.left) {
		/* a trap of an instruction in flight when stepping ended: the guest saw
		 * nothing; ignore it */
		vm->single_step.stray_exits++;
		return;
	}
	if (!vm->single_step.user &&
	    set_guest_debug(vm, KVM_GUESTDBG_ENABLE | KVM_GUESTDBG_USE_HW_BP |
					KVM_GUESTDBG_SINGLESTEP) < 0) {
		vm_finish(vm, VM_HOST_ERROR, "this KVM cannot single-step the guest");
		return;
	}
	vm->single_step.user = true;
	vm->single_step.stepped++;
	if (--vm->single_step.left)
		return;
	clear_trap_flag(vm);
	single_step_stop(vm);
	/* the landing: which instruction, counted from which step */
	rec.args[0] = vm->single_step.from;
	rec.args[1] = PREEMPT_WHY_INSNS;
	rec.args[2] = vm->km.run->debug.arch.pc;
	trace_append(&vm->trace, &rec, NULL);
	ports_raise(vm, REWIND_PENDING_RESCHED);
}

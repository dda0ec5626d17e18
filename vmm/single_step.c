/*
 * Preemption N instructions after a step, for unmodified binaries: from the
 * exit the injection names, the guest is single-stepped (KVM_SET_GUEST_DEBUG,
 * one KVM_EXIT_DEBUG per instruction) with interrupts held back
 * (KVM_GUESTDBG_BLOCKIRQ), and after the Nth instruction the VMM raises the
 * reschedule request. The landing is exact; the cost is one exit per stepped
 * instruction, which is why N is capped (INJECT_INSNS_MAX).
 */
#include "vmm/log.h"
#include "vmm/vm.h"

#include <string.h>
#include <sys/ioctl.h>

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
	if (insns == 0 || vm->stepping_left)
		return; /* one landing at a time: a second request is dropped, on every run */
	if (set_guest_debug(vm, KVM_GUESTDBG_ENABLE | KVM_GUESTDBG_SINGLESTEP |
					KVM_GUESTDBG_BLOCKIRQ) < 0) {
		vm_finish(vm, VM_HOST_ERROR, "this KVM cannot single-step the guest");
		return;
	}
	vm->single_stepping = true;
	vm->stepping_left = insns;
	vm->stepping_from = vm->steps;
}

/* Turns stepping off whenever it is on: the count of instructions left says nothing of it. */
void single_step_stop(struct vm *vm)
{
	if (vm->single_stepping && set_guest_debug(vm, 0) < 0)
		vm_finish(vm, VM_HOST_ERROR, "cannot turn single-stepping off");
	vm->single_stepping = false;
	vm->stepping_left = 0;
}

void single_step_exit(struct vm *vm)
{
	struct trace_record rec = {.step = vm->steps, .type = TRACE_PREEMPT};

	if (!vm->stepping_left) {
		/* KVM can report the trap of the instruction that was in flight when
		 * stepping was turned off: the guest saw nothing; ignore it */
		vm->stray_debug_exits++;
		return;
	}
	vm->stepped++;
	if (--vm->stepping_left)
		return;
	single_step_stop(vm);
	/* the landing: which instruction, counted from which step */
	rec.args[0] = vm->stepping_from;
	rec.args[1] = 2; /* 0 block injection, 1 time slice, 2 instruction injection */
	rec.args[2] = vm->km.run->debug.arch.pc;
	trace_append(&vm->trace, &rec, NULL);
	vm_raise(vm, REWIND_PENDING_RESCHED);
}

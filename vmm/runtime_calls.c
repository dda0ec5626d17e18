/* SPDX-License-Identifier: MIT */
/*
 * REWIND_PORT_RUNTIME: the calls of an instrumented job's runtime
 * (guest/runtime/), and of the guest kernel where it counts a plain job's
 * events (linux/patches/0016). RDI holds the call, RSI and RCX its arguments (DX holds the port);
 * the answer is the INL's value. An unknown call is a guest fault.
 */
#include "vmm/runtime_calls.h"

#include "vmm/counter.h"
#include "vmm/feedback.h"
#include "vmm/pct.h"
#include "vmm/sites.h"
#include "vmm/vm.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

uint32_t runtime_call(struct vm *vm)
{
	struct kvm_regs regs;

	if (ioctl(vm->km.vcpu_fd, KVM_GET_REGS, &regs) < 0) {
		vm_finish(vm, VM_HOST_ERROR, "KVM_GET_REGS at a runtime call: %s", strerror(errno));
		return 0;
	}
	switch (regs.rdi) {
	case REWIND_RT_THREAD_PRIORITY:
		/* RSI: the runtime's walk page, from its start only (include/rewind/abi.h) */
		if (regs.rsi)
			return pct_runtime_start(vm, regs.rsi, (uint32_t)regs.rcx);
		return pct_thread_priority(vm);
	case REWIND_RT_FEEDBACK:
		return feedback_register(vm, regs.rsi, (uint32_t)regs.rcx);
	case REWIND_RT_FLUSH:
		counter_settle(vm, regs.rsi, (uint32_t)regs.rcx);
		pct_walk_flush(vm, (uint32_t)regs.rcx);
		feedback_read(vm);
		return 0;
	case REWIND_RT_KERNEL_EVENTS:
		vm->counter.kernel_events = true;
		return 0;
	case REWIND_RT_SITES:
		return sites_register(vm, regs.rsi);
	default:
		vm_finish(vm, VM_GUEST_FAULT, "unknown runtime call %llu",
			  (unsigned long long)regs.rdi);
		return 0;
	}
}

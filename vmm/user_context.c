/* SPDX-License-Identifier: MIT */
#include "vmm/user_context.h"

#include "vmm/guest_mem.h"
#include "vmm/vm.h"

#include <string.h>
#include <sys/ioctl.h>

#define KERNEL_STACK_SIZE (16u << 10) /* x86-64 THREAD_SIZE (no KASAN), THREAD_ALIGN too */
#define PT_REGS_SIZE	  (21u * 8)   /* struct pt_regs on x86-64 */
#define PT_REGS_RIP	  16	      /* word indexes into it */
#define PT_REGS_CS	  17
#define PT_REGS_RSP	  19
#define PT_REGS_SS	  20
#define USER_CS		  0x33 /* __USER_CS */
#define USER_SS		  0x2b /* __USER_DS */
#define USER_TOP	  0x800000000000ull

/* Copies len bytes between buf and guest-virtual gva, into the guest if to_guest. */
static bool guest_virt_access(struct vm *vm, uint64_t gva, uint8_t *buf, uint64_t len,
			      bool to_guest)
{
	while (len > 0) {
		struct kvm_translation tr = {.linear_address = gva};
		uint64_t chunk = 4096 - gva % 4096;
		uint8_t *mem;

		if (chunk > len)
			chunk = len;
		if (ioctl(vm->km.vcpu_fd, KVM_TRANSLATE, &tr) < 0 || !tr.valid ||
		    (to_guest && !tr.writeable))
			return false;
		mem = guest_mem_ptr(&vm->km, tr.physical_address, chunk);
		if (!mem)
			return false;
		if (to_guest)
			memcpy(mem, buf, chunk);
		else
			memcpy(buf, mem, chunk);
		buf += chunk;
		gva += chunk;
		len -= chunk;
	}
	return true;
}

bool guest_virt_copy(struct vm *vm, uint64_t gva, void *out, uint64_t len)
{
	return guest_virt_access(vm, gva, out, len, false);
}

bool guest_virt_write(struct vm *vm, uint64_t gva, const void *from, uint64_t len)
{
	return guest_virt_access(vm, gva, (uint8_t *)(uintptr_t)from, len, true);
}

/* The user frame a task entered the kernel with: at the top of its kernel stack. */
static bool entry_frame(struct vm *vm, uint64_t kernel_rsp, struct user_context *uc)
{
	uint64_t top = (kernel_rsp | (KERNEL_STACK_SIZE - 1)) + 1;
	uint64_t regs[PT_REGS_SIZE / 8];

	/* a frame from user mode has user segments: anything else (an IRQ stack, a
	 * kernel thread) is not the task's entry frame */
	if (!guest_virt_copy(vm, top - PT_REGS_SIZE, regs, sizeof(regs)) ||
	    regs[PT_REGS_CS] != USER_CS || regs[PT_REGS_SS] != USER_SS ||
	    regs[PT_REGS_RIP] >= USER_TOP || regs[PT_REGS_RSP] >= USER_TOP)
		return false;
	uc->rip = regs[PT_REGS_RIP];
	uc->rsp = regs[PT_REGS_RSP];
	return true;
}

/* Words of the user stack from rsp up, as far as they are mapped. */
static void read_stack(struct vm *vm, struct user_context *uc)
{
	uc->stack_words = 0;
	while (uc->stack_words < USER_CONTEXT_STACK_WORDS &&
	       guest_virt_copy(vm, uc->rsp + 8ull * uc->stack_words, &uc->stack[uc->stack_words],
			       8))
		uc->stack_words++;
}

void user_context_read(struct vm *vm, struct user_context *uc)
{
	struct kvm_regs regs;
	struct kvm_sregs sregs;

	uc->valid = false;
	uc->stack_words = 0;
	if (ioctl(vm->km.vcpu_fd, KVM_GET_REGS, &regs) < 0 ||
	    ioctl(vm->km.vcpu_fd, KVM_GET_SREGS, &sregs) < 0)
		return;
	uc->in_kernel = (sregs.cs.selector & 3) != 3;
	if (uc->in_kernel) {
		if (!entry_frame(vm, regs.rsp, uc))
			return;
	} else {
		uc->rip = regs.rip;
		uc->rsp = regs.rsp;
	}
	uc->valid = true;
	read_stack(vm, uc);
}

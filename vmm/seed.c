/* SPDX-License-Identifier: MIT */
#include "vmm/seed.h"

#include "vmm/guest_mem.h"
#include "vmm/vm.h"

#include <string.h>
#include <sys/ioctl.h>

bool seed_locate(struct vm *vm, uint32_t gva)
{
	struct kvm_translation tr = {.linear_address = gva};

	/* one page, so one translation covers the whole buffer */
	if (gva % 4 || gva % MEM_PAGE_SIZE > MEM_PAGE_SIZE - SEED_BYTES) {
		vm_finish(vm, VM_GUEST_FAULT,
			  "READY names the seed buffer %#x, which is unaligned or crosses a page",
			  gva);
		return false;
	}
	/* x86 KVM_TRANSLATE tells only whether the address is mapped (its writeable
	 * and usermode fields are fixed): a wrong buffer harms only the guest */
	if (ioctl(vm->km.vcpu_fd, KVM_TRANSLATE, &tr) < 0 || !tr.valid ||
	    !seed_gpa_valid(&vm->km, tr.physical_address, vm->shared_gpa)) {
		vm_finish(vm, VM_GUEST_FAULT,
			  "READY names the seed buffer %#x, which is not mapped to guest RAM", gva);
		return false;
	}
	vm->seed_gpa = tr.physical_address;
	return true;
}

void seed_put(struct vm *vm)
{
	void *at = vm->seed_gpa ? guest_mem_ptr(&vm->km, vm->seed_gpa, SEED_BYTES) : NULL;

	if (at)
		memcpy(at, vm->cfg.exec_seed, SEED_BYTES);
}

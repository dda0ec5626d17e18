/* SPDX-License-Identifier: MIT */
#include "vmm/lapic.h"

#include "lib/log.h"

#include <sys/ioctl.h>

#define APIC_MSI_ADDRESS 0xfee00000u /* destination APIC id 0, physical mode */
#define IOAPIC_ROUTES	 0	     /* split irqchip without IOAPIC pins */
/* Intel needs these two pages reserved below 4 GiB for real-mode emulation. */
#define TSS_GPA		 0xfffbd000u
#define IDENTITY_MAP_GPA 0xfffbc000u

int lapic_create(struct kvm_machine *m)
{
	struct kvm_enable_cap cap = {.cap = KVM_CAP_SPLIT_IRQCHIP, .args = {IOAPIC_ROUTES}};
	uint64_t identity = IDENTITY_MAP_GPA;

	if (ioctl(m->vm_fd, KVM_SET_TSS_ADDR, TSS_GPA) < 0 ||
	    ioctl(m->vm_fd, KVM_SET_IDENTITY_MAP_ADDR, &identity) < 0) {
		rw_err_errno(errno, "KVM_SET_TSS_ADDR / KVM_SET_IDENTITY_MAP_ADDR");
		return -EIO;
	}
	if (ioctl(m->vm_fd, KVM_ENABLE_CAP, &cap) < 0) {
		rw_err_errno(errno, "KVM_ENABLE_CAP(KVM_CAP_SPLIT_IRQCHIP)");
		return -EIO;
	}
	return 0;
}

int lapic_inject(struct kvm_machine *m, uint8_t vector)
{
	struct kvm_msi msi = {.address_lo = APIC_MSI_ADDRESS, .data = vector};

	if (ioctl(m->vm_fd, KVM_SIGNAL_MSI, &msi) < 0) {
		rw_err_errno(errno, "KVM_SIGNAL_MSI vector %#x", vector);
		return -EIO;
	}
	return 0;
}

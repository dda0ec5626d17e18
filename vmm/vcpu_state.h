/* SPDX-License-Identifier: MIT */
/*
 * Everything KVM holds about the vCPU that decides what it does next:
 * general and special registers, x87/SSE state (the CPU model has no XSAVE,
 * so the FXSAVE image is all of it), debug registers, pending events, MP
 * state, the local APIC and the MSRs below.
 * Saved and loaded as a whole, for keyframes.
 */
#ifndef REWIND_VCPU_STATE_H
#define REWIND_VCPU_STATE_H

#include "vmm/kvm.h"

#define VCPU_STATE_MSRS 16

struct vcpu_state {
	struct kvm_regs regs;
	struct kvm_sregs sregs;
	struct kvm_fpu fpu;
	struct kvm_debugregs debugregs;
	struct kvm_vcpu_events events;
	struct kvm_mp_state mp_state;
	struct kvm_lapic_state lapic;
	uint32_t msr_count;
	struct kvm_msr_entry msrs[VCPU_STATE_MSRS];
};

/* Both return 0 or -EIO with the failing ioctl named. */
int vcpu_state_save(const struct kvm_machine *m, struct vcpu_state *s);
int vcpu_state_load(struct kvm_machine *m, const struct vcpu_state *s);

#endif

/* SPDX-License-Identifier: MIT */
#include "vmm/vcpu_state.h"

#include "lib/log.h"

#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>

/* MSRs a 64-bit Linux guest changes after boot; the rest keep KVM's power-on values. */
static const uint32_t saved_msrs[] = {
	0x174,	    /* SYSENTER_CS */
	0x175,	    /* SYSENTER_ESP */
	0x176,	    /* SYSENTER_EIP */
	0x1a0,	    /* MISC_ENABLE */
	0x277,	    /* PAT */
	0x2ff,	    /* MTRR_DEF_TYPE */
	0xc0000081, /* STAR */
	0xc0000082, /* LSTAR */
	0xc0000083, /* CSTAR */
	0xc0000084, /* SYSCALL_MASK */
	0xc0000102, /* KERNEL_GS_BASE */
	0x4b564d04, /* KVM's paravirtual EOI (patch 0011): the guest sets it at boot */
};

#define MSR_COUNT (sizeof(saved_msrs) / sizeof(saved_msrs[0]))
_Static_assert(MSR_COUNT <= VCPU_STATE_MSRS, "vcpu_state.msrs is too small");

struct vcpu_ioctl {
	unsigned long get, set;
	size_t offset;
	const char *name;
};

#define VCPU_IOCTL(get, set, field)                                                                \
	{                                                                                          \
		get, set, offsetof(struct vcpu_state, field), #field                               \
	}

/* Load order matters: MSRs and sregs before events and the APIC. */
static const struct vcpu_ioctl vcpu_ioctls[] = {
	VCPU_IOCTL(KVM_GET_SREGS, KVM_SET_SREGS, sregs),
	VCPU_IOCTL(KVM_GET_REGS, KVM_SET_REGS, regs),
	VCPU_IOCTL(KVM_GET_FPU, KVM_SET_FPU, fpu),
	VCPU_IOCTL(KVM_GET_DEBUGREGS, KVM_SET_DEBUGREGS, debugregs),
	VCPU_IOCTL(KVM_GET_MP_STATE, KVM_SET_MP_STATE, mp_state),
	VCPU_IOCTL(KVM_GET_LAPIC, KVM_SET_LAPIC, lapic),
	VCPU_IOCTL(KVM_GET_VCPU_EVENTS, KVM_SET_VCPU_EVENTS, events),
};

struct msr_buffer {
	struct kvm_msrs hdr;
	struct kvm_msr_entry entries[MSR_COUNT];
};

static int msrs_ioctl(int fd, unsigned long request, struct msr_buffer *buf)
{
	int done = ioctl(fd, request, buf);

	if (done != (int)MSR_COUNT) {
		rw_err_errno(done < 0 ? errno : EINVAL, "%s transferred %d of %zu MSRs",
			     request == KVM_GET_MSRS ? "KVM_GET_MSRS" : "KVM_SET_MSRS", done,
			     MSR_COUNT);
		return -EIO;
	}
	return 0;
}

static int msrs_save(int fd, struct vcpu_state *s)
{
	struct msr_buffer buf = {.hdr.nmsrs = MSR_COUNT};

	for (size_t i = 0; i < MSR_COUNT; i++)
		buf.entries[i].index = saved_msrs[i];
	if (msrs_ioctl(fd, KVM_GET_MSRS, &buf) < 0)
		return -EIO;
	memcpy(s->msrs, buf.entries, sizeof(buf.entries));
	s->msr_count = MSR_COUNT;
	return 0;
}

/*
 * Only the MSRs of saved_msrs, whatever the state names: a keyframe file
 * is untrusted, and one saved by another build may list others.
 */
static int msrs_load(int fd, const struct vcpu_state *s)
{
	struct msr_buffer buf = {.hdr.nmsrs = MSR_COUNT};

	if (s->msr_count != MSR_COUNT) {
		rw_err("the saved vCPU state lists %u MSRs where this build saves %zu: a keyframe "
		       "of another build?",
		       s->msr_count, MSR_COUNT);
		return -EINVAL;
	}
	for (size_t i = 0; i < MSR_COUNT; i++) {
		if (s->msrs[i].index != saved_msrs[i]) {
			rw_err("the saved vCPU state lists other MSRs than this build saves "
			       "(MSR %#x where %#x belongs): a keyframe of another build?",
			       s->msrs[i].index, saved_msrs[i]);
			return -EINVAL;
		}
		buf.entries[i] =
			(struct kvm_msr_entry){.index = saved_msrs[i], .data = s->msrs[i].data};
	}
	return msrs_ioctl(fd, KVM_SET_MSRS, &buf);
}

int vcpu_state_save(const struct kvm_machine *m, struct vcpu_state *s)
{
	for (size_t i = 0; i < sizeof(vcpu_ioctls) / sizeof(vcpu_ioctls[0]); i++) {
		if (ioctl(m->vcpu_fd, vcpu_ioctls[i].get, (char *)s + vcpu_ioctls[i].offset) < 0) {
			rw_err_errno(errno, "saving vCPU %s", vcpu_ioctls[i].name);
			return -EIO;
		}
	}
	return msrs_save(m->vcpu_fd, s);
}

/*
 * Restored memory can map virtual addresses to other physical pages than the
 * run that just ended did (copy-on-write after fork, for one), and the
 * vCPU's TLB still holds that run's translations. KVM flushes it when the
 * VMM changes CR3 or CR4, not when it sets the same values again, so set
 * different ones first.
 */
static int flush_guest_tlb(struct kvm_machine *m, const struct vcpu_state *s)
{
	struct kvm_sregs other = s->sregs;

	other.cr3 ^= 0x1000;
	if (ioctl(m->vcpu_fd, KVM_SET_SREGS, &other) < 0) {
		rw_err_errno(errno, "KVM_SET_SREGS to flush the guest TLB");
		return -EIO;
	}
	return 0;
}

/*
 * KVM on AMD reports TR as busy (type 11) whatever the VMCB holds, but an
 * SVM guest runs as well with the available type (9) that LTR leaves in the
 * segment cache, and QEMU's emulated SVM (the KVM box) refuses the I/O
 * bitmap of a busy TR: user-space port access would fault after a restore.
 */
static void fix_tr_type(const struct kvm_machine *m, struct kvm_sregs *sregs)
{
	if (m->cpu_vendor_amd && sregs->tr.type == 11)
		sregs->tr.type = 9;
}

int vcpu_state_load(struct kvm_machine *m, const struct vcpu_state *s)
{
	struct kvm_sregs sregs = s->sregs;

	fix_tr_type(m, &sregs);
	if (flush_guest_tlb(m, s) < 0 || msrs_load(m->vcpu_fd, s) < 0)
		return -EIO;
	for (size_t i = 0; i < sizeof(vcpu_ioctls) / sizeof(vcpu_ioctls[0]); i++) {
		const void *from = vcpu_ioctls[i].set == KVM_SET_SREGS
					   ? (const void *)&sregs
					   : (const char *)s + vcpu_ioctls[i].offset;

		if (ioctl(m->vcpu_fd, vcpu_ioctls[i].set, from) < 0) {
			rw_err_errno(errno, "loading vCPU %s", vcpu_ioctls[i].name);
			return -EIO;
		}
	}
	return 0;
}

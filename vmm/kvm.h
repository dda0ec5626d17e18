/* SPDX-License-Identifier: MIT */
/*
 * KVM setup: /dev/kvm, one VM, its guest RAM and one vCPU with its shared
 * kvm_run page. Everything deterministic about the machine is built on top
 * of this; nothing here knows about Linux or the guest's ABI.
 */
#ifndef REWIND_KVM_H
#define REWIND_KVM_H

#include "vmm/stats.h"

#include <linux/kvm.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The KVM API version every stable kernel reports (KVM_GET_API_VERSION). */
#define REWIND_KVM_API_VERSION 12

struct kvm_machine {
	int sys_fd;  /* /dev/kvm */
	int vm_fd;   /* KVM_CREATE_VM */
	int vcpu_fd; /* KVM_CREATE_VCPU, -1 until created */
	struct kvm_run *run;
	size_t run_size;
	uint8_t *ram;	       /* host mapping of guest-physical [0, ram_size) */
	uint64_t ram_size;     /* bytes, a multiple of the page size */
	int cpu_vendor_amd;    /* set by cpuid_model_apply */
	bool dirty_log_manual; /* KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 is on (mem_tracking_enable) */
	struct vm_stats stats; /* exits and restores, for bench/exec (vmm/stats.h) */
};

/* Opens /dev/kvm, checks the API version and creates an empty VM. */
int kvm_machine_open(struct kvm_machine *m);

/* Maps ram_size bytes of anonymous memory at guest-physical address 0. */
int kvm_machine_add_ram(struct kvm_machine *m, uint64_t ram_size);

/* Creates vCPU 0 and maps its kvm_run page. */
int kvm_machine_create_vcpu(struct kvm_machine *m);

/* True if the host's KVM has capability cap (a KVM_CAP_* value). */
int kvm_machine_has_cap(const struct kvm_machine *m, long cap);

/*
 * Enters the guest until its next exit. Returns the exit reason (KVM_EXIT_*)
 * or -errno; EINTR is returned to the caller, which owns the run's budget.
 */
int kvm_machine_run(struct kvm_machine *m);

/* Releases everything kvm_machine_open and later calls acquired. */
void kvm_machine_close(struct kvm_machine *m);

#endif

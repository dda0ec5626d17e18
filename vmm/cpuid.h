/* SPDX-License-Identifier: MIT */
/*
 * The fixed CPU model a guest sees: one per vendor, the same on every host of
 * that vendor, without TSC, TSC-deadline, RDRAND, RDSEED, kvmclock or a PMU.
 */
#ifndef REWIND_CPUID_H
#define REWIND_CPUID_H

#include "vmm/kvm.h"

#include <stdint.h>

/*
 * Sets the model on vCPU 0 and names it in *name ("rewind-amd-v1" or
 * "rewind-intel-v1"; part of a run's inputs). Refuses (-ENOTSUP, naming the
 * feature) a host whose KVM cannot provide a feature the model needs.
 */
int cpuid_model_apply(struct kvm_machine *m, const char **name);

/* The brand string every model shows the guest (CPUID 0x80000002-4). */
#define CPUID_MODEL_BRAND "Rewind virtual CPU"

/* The name of the model a guest gets on this host, from the host's own CPUID vendor. */
const char *cpuid_model_name_here(void);

#endif

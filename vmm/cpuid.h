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

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Model-specific registers at power-on: what firmware would have set up
 * before Linux runs (memory types), with fixed values on every host.
 */
#ifndef REWIND_MSR_H
#define REWIND_MSR_H

#include "vmm/kvm.h"

int msr_init(struct kvm_machine *m);

#endif

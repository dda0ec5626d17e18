/* SPDX-License-Identifier: MIT */
/*
 * Checked access to guest RAM. Every guest-physical address or length the
 * guest hands the VMM goes through guest_mem_ptr() before the VMM touches it.
 */
#ifndef REWIND_GUEST_MEM_H
#define REWIND_GUEST_MEM_H

#include "vmm/kvm.h"

#include <stdint.h>

/* Host pointer to guest-physical [gpa, gpa + len), or NULL if any byte is outside RAM. */
static inline void *guest_mem_ptr(const struct kvm_machine *m, uint64_t gpa, uint64_t len)
{
	if (gpa > m->ram_size || len > m->ram_size - gpa)
		return NULL;
	return m->ram + gpa;
}

#endif

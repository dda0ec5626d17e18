/* SPDX-License-Identifier: MIT */
/* The site map of a run that counts racy events (vmm/sites.c). */
#ifndef REWIND_VMM_SITES_H
#define REWIND_VMM_SITES_H

#include <stdint.h>

struct vm;

/* The runtime registers its site map (REWIND_RT_SITES): 1 if the VMM filled it in. */
uint32_t sites_register(struct vm *vm, uint64_t gva);

#endif

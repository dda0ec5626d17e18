/* SPDX-License-Identifier: MIT */
/*
 * The execution seed in guest memory: rewind-init names its buffer at READY
 * (include/rewind/abi.h), and the VMM writes the seed there at that exit and
 * at every restore of the keyframe, so the seed costs no exit of its own.
 */
#ifndef REWIND_SEED_H
#define REWIND_SEED_H

#include "rewind/abi.h"
#include "vmm/guest_mem.h"
#include "vmm/mem_snapshot.h"

#include <stdbool.h>
#include <stdint.h>

struct vm;

#define SEED_BYTES (REWIND_SEED_WORDS * 4u)

/*
 * Finds the guest-physical address of the user buffer at gva (a READY's
 * value) and keeps it in vm->seed_gpa; false, with the run ended as a guest
 * fault, if it is not mapped to guest RAM or not within one page.
 */
bool seed_locate(struct vm *vm, uint32_t gva);

/* Writes vm->cfg.exec_seed into the buffer found at READY (none found: nothing). */
void seed_put(struct vm *vm);

/* Whether gpa can hold the seed: within one page of RAM, aligned, not the shared page. */
static inline bool seed_gpa_valid(const struct kvm_machine *m, uint64_t gpa, uint64_t shared_gpa)
{
	return gpa && gpa % 4 == 0 && gpa % MEM_PAGE_SIZE <= MEM_PAGE_SIZE - SEED_BYTES &&
	       gpa / MEM_PAGE_SIZE != shared_gpa / MEM_PAGE_SIZE &&
	       guest_mem_ptr(m, gpa, SEED_BYTES);
}

#endif

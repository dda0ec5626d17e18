/* SPDX-License-Identifier: MIT */
/*
 * Guest RAM at a keyframe, and its restore in time proportional to the pages
 * written since: KVM's dirty log names the pages the guest wrote; the VMM
 * names the few it wrote itself (the dirty log does not see those).
 */
#ifndef REWIND_MEM_SNAPSHOT_H
#define REWIND_MEM_SNAPSHOT_H

#include "vmm/kvm.h"

#include <stddef.h>
#include <stdint.h>

#define MEM_PAGE_SIZE 4096u
/* manual protection: a writable page found unchanged this many restores in a row is
 * write-protected again (one fault when next written, against a compare at every restore) */
#define MEM_KEEP_UNCHANGED 8u

struct mem_snapshot {
	uint8_t *copy;		/* guest RAM as it was at the keyframe */
	uint64_t size;		/* bytes */
	uint64_t *bitmap;	/* one bit a page, filled by KVM_GET_DIRTY_LOG */
	uint64_t *clear;	/* manual protection: the pages KVM_CLEAR_DIRTY_LOG protects */
	uint8_t *unchanged;	/* manual protection: restores in a row that found a writable
				 * page unchanged */
	uint64_t last_restored; /* pages copied back by the last restore */
};

/* Turns on dirty logging for guest RAM (slot 0). */
int mem_tracking_enable(struct kvm_machine *m);

/* Copies all of guest RAM and starts a fresh dirty log. */
int mem_snapshot_take(struct kvm_machine *m, struct mem_snapshot *s);

/*
 * Copies back every page written since the snapshot (or the last restore)
 * plus the pages at vmm_gpas[0..n) that the VMM itself wrote. No allocation.
 * With manual dirty-log protection, pages the execution wrote stay writable
 * (no write-protection fault when the next execution writes them) and are
 * compared at every restore until MEM_KEEP_UNCHANGED restores in a row
 * found them unchanged.
 */
int mem_snapshot_restore(struct kvm_machine *m, struct mem_snapshot *s, const uint64_t *vmm_gpas,
			 size_t n);

void mem_snapshot_free(struct mem_snapshot *s);

#endif

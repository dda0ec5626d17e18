/*
 * Keyframes: the whole machine at one step (vCPU, guest RAM, the VMM's own
 * clock, counters and trace position), captured once and restored for every
 * execution in time proportional to the pages the execution dirtied.
 */
#ifndef REWIND_KEYFRAME_H
#define REWIND_KEYFRAME_H

#include "vmm/mem_snapshot.h"
#include "vmm/vcpu_state.h"
#include "vmm/vm.h"

/* The VMM's part of the machine state (what struct vm adds to KVM's). */
struct vmm_state {
	struct vclock clock;
	uint64_t steps;
	uint64_t shared_gpa;
	uint64_t ready_step;
	unsigned int seed_words_read;
	size_t trace_len;
	uint64_t trace_count;
	XXH3_state_t *trace_hash;
};

struct keyframe {
	struct vcpu_state vcpu;
	struct mem_snapshot mem;
	struct vmm_state vmm;
};

/*
 * Captures vm at its current exit. A pending port instruction is completed
 * first (KVM_RUN with immediate_exit), or the restored guest would execute
 * it twice. Dirty logging must have been on since the VM was created.
 */
int keyframe_capture(struct vm *vm, struct keyframe *kf);

/* Puts vm back exactly as it was at capture. Allocates nothing. */
int keyframe_restore(struct vm *vm, struct keyframe *kf);

void keyframe_free(struct keyframe *kf);

#endif

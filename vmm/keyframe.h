/* SPDX-License-Identifier: MIT */
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

/* The trace up to the keyframe: its bytes stay in the trace's buffer, which an execution only
 * writes past len. */
struct keyframe_trace {
	size_t len;
	uint64_t count;
	XXH3_state_t *hash; /* allocated by keyframe_capture */
};

/*
 * The VMM's part of the machine at the keyframe (what struct vm adds to
 * KVM's vCPU and RAM), in one struct: keyframe.c saves it and puts it back
 * whole, keyframe_file.c writes and reads it. The execution's own state
 * (outcome, job status, schedule, counter, feedback, single-stepping) is not
 * in it: a restore starts that afresh.
 */
struct keyframe_vmm {
	struct vclock clock;
	uint64_t steps;
	uint64_t shared_gpa;
	uint64_t ready_step;
	uint64_t seed_gpa; /* rewind-init's seed buffer (vmm/seed.c) */
	struct keyframe_trace trace;
};

struct keyframe {
	struct vcpu_state vcpu;
	struct mem_snapshot mem;
	struct keyframe_vmm vmm;
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

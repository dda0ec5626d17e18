/* SPDX-License-Identifier: MIT */
/*
 * The instrumented runtime's feedback map; see vmm/feedback.c.
 */
#ifndef REWIND_FEEDBACK_H
#define REWIND_FEEDBACK_H

#include "rewind/abi.h"
#include "vmm/trace.h"

#include <stdbool.h>
#include <stdint.h>

/*
 * The runtime's feedback map (vmm/feedback.c): features (reads-from pairs,
 * lock order) the instrumented job sets in its own memory; the VMM ORs them
 * into `seen` while the job's process is alive.
 */
struct vm_feedback {
	bool registered;
	uint32_t pid;				    /* the process whose map it is */
	uint64_t gpa[REWIND_FEEDBACK_BYTES / 4096]; /* its pages */
	uint8_t seen[REWIND_FEEDBACK_BYTES];
	bool any; /* some bit of seen is set */
};

struct vm;

/* The runtime registers its map (REWIND_RT_FEEDBACK): 1 if the VMM reads it. */
uint32_t feedback_register(struct vm *vm, uint64_t gva, uint32_t pid);
/* ORs the map into seen while its process is alive. */
void feedback_read(struct vm *vm);
/* An event the guest sent: the map is read before its process dies. */
void feedback_on_event(struct vm *vm, const struct trace_record *rec);

#endif

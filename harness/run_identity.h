/* SPDX-License-Identifier: MIT */
/*
 * A run's identity: what it is a function of besides its input (the
 * kernel, the base initramfs, the job's command and added files, the CPU
 * model, the VMM's ABI and the clock quantum). Artifacts record it and a
 * replay compares it with its own.
 */
#ifndef REWIND_RUN_IDENTITY_H
#define REWIND_RUN_IDENTITY_H

#include "harness/executor.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

struct run_identity {
	uint64_t kernel_xxh3, initramfs_xxh3, job_xxh3;
	char cpu_model[128];
	uint64_t abi_version, quantum_ns;
};

/* The identity of the runs of an opened executor. */
void run_identity_of(const struct executor *ex, struct run_identity *id);

/* Whether the runs of ex are those id names: then an input runs the same. */
bool run_identity_is(const struct run_identity *id, const struct executor *ex);

/* As an artifact's "identity" object (hashes as "0x" and 16 hex digits). */
cJSON *run_identity_to_json(const struct run_identity *id);

#endif

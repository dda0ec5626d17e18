/*
 * The job rewind-harness fuzzes or replays: guest kernel, base initramfs,
 * command, files to add, memory and budgets. The defaults are the bundled
 * racy example next to the harness binary (build/guest/...); a job file
 * (JSON, docs/harness.md) or flags override them. Also stored in every
 * crash artifact, so a replay rebuilds the same job.
 */
#ifndef REWIND_JOB_H
#define REWIND_JOB_H

#include "vmm/run.h"

#include <cjson/cJSON.h>
#include <stdint.h>

#define JOB_MAX_ARGS 64

#define JOB_DEFAULT_COMMAND	 "/bin/ledger"
#define JOB_DEFAULT_EPOCH_S	 1767225600ull /* 2026-01-01T00:00:00Z, as `rewind run` */
#define JOB_DEFAULT_MEM		 (128ull << 20)
#define JOB_DEFAULT_STEP_BUDGET	 100000ull
#define JOB_DEFAULT_STUCK_MS	 2000ull
#define JOB_DEFAULT_WALL_MS	 10000ull
#define JOB_DEFAULT_SLICE_BLOCKS 10000ull /* counter mode: a preemption every N blocks */
#define JOB_DEFAULT_BLOCK_NS	 1ull	  /* counter mode: virtual time of one block */

struct harness_job {
	struct run_options run; /* points into the strings below */
	uint64_t wall_ms;
	uint64_t slice_blocks, block_ns; /* counter mode */
	char *kernel, *initramfs;
	char *argv[JOB_MAX_ARGS + 1];
	char *adds[RUN_MAX_ADDS];
};

/* The defaults, with paths found relative to this executable. 0 or -errno (reported). */
int job_init_defaults(struct harness_job *job);

/* Overrides fields present in a job object (a job file's or an artifact's "job"). */
int job_apply_json(struct harness_job *job, const cJSON *obj, const char *what);

/* Reads a job file and applies it. */
int job_load_file(struct harness_job *job, const char *path);

int job_set_kernel(struct harness_job *job, const char *path);
int job_set_initramfs(struct harness_job *job, const char *path);
int job_add_file(struct harness_job *job, const char *spec);
int job_set_command(struct harness_job *job, char *const *argv, size_t argc);

/* The job as an object that job_apply_json accepts. */
cJSON *job_to_json(const struct harness_job *job);

void job_free(struct harness_job *job);

#endif

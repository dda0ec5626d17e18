/*
 * One `rewind run`: its inputs (the run is a pure function of them), the
 * machine built from them, and what it leaves behind: the guest's output as
 * it happens, a summary line, and a run directory with the inputs manifest
 * (JSON), the binary event trace and its hash.
 */
#ifndef REWIND_RUN_H
#define REWIND_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rewind/abi.h"

#define RUN_MAX_ADDS 64
#define RUN_MAX_ENVS 64
/* An instrumented job (guest/rewind-cc) gets a time slice every this many of
 * its schedule events, each costing this much virtual time, as under a
 * real scheduler (rewind-harness: counter mode's defaults). */
#define RUN_DEFAULT_SLICE_BLOCKS 10000ull
#define RUN_DEFAULT_BLOCK_NS	 1ull

struct run_options {
	const char *kernel_path;
	const char *initrd_path;
	const char *out_dir; /* NULL: rewind-runs/<run id> */
	uint64_t seed;
	uint64_t epoch_s; /* wall clock at power-on, UNIX seconds */
	uint64_t mem_bytes;
	uint64_t step_budget;
	uint64_t stuck_ms;
	uint64_t slice_blocks;		/* an instrumented job's time slice, in events (0: none) */
	uint64_t block_ns;		/* the virtual time of one of its events */
	bool verbose;			/* also print the kernel console */
	const char *keyframe_path;	/* boot and write it if absent, else restore from it */
	uint64_t repeat;		/* run again from the keyframe this many times */
	const char *adds[RUN_MAX_ADDS]; /* HOST[:GUEST]: a file, or a directory and all in it */
	size_t add_count;
	const char *user;		/* the job's user: NAME or UID[:GID] (NULL: root) */
	const char *cwd;		/* the job's working directory (NULL: /) */
	const char *envs[RUN_MAX_ENVS]; /* NAME=VALUE set in the job's environment */
	size_t env_count;
	/* a job archive made before (a crash bundle's), used as it is instead of
	 * one built from the command, adds, user, cwd and environment */
	const char *job_archive_path;
	char *const *argv; /* the job's command */
	size_t argc;
};

/* Exit statuses of `rewind run` besides the job's own. */
enum run_status {
	RUN_STATUS_USAGE = 2,
	RUN_STATUS_SETUP = 64, /* bad inputs or no KVM: nothing ran */
	RUN_STATUS_POWER_OFF = 65,
	RUN_STATUS_PANIC = 66,
	RUN_STATUS_DEADLOCK = 67,
	RUN_STATUS_STUCK = 68,
	RUN_STATUS_STEP_BUDGET = 69,
	RUN_STATUS_GUEST_FAULT = 70,
	RUN_STATUS_HOST_ERROR = 71,
	RUN_STATUS_TRACE_BUDGET = 72, /* the trace outgrew its budget: a flood */
	RUN_STATUS_OUTPUT_LOST = 73,  /* the run ended but its run directory was not written */
};

struct run_result {
	uint64_t run_id; /* XXH3-64 of every input */
	int exit_status; /* what `rewind run` exits with */
	double wall_s;
};

/* Runs the job; returns the process exit status (the job's, or a run_status). */
int run_job(const struct run_options *opt);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The settings of one run (the run is a pure function of them and the files
 * they name): the guest kernel and image, the machine, the clock, the
 * budgets and the job. Filled in by `rewind run` (cli/) and rewind-harness
 * (harness/job.c); read by the VMM's run inputs (vmm/run_inputs.c), which
 * give the job's part to the job's archive (image/job_archive.c).
 */
#ifndef REWIND_RUN_OPTIONS_H
#define REWIND_RUN_OPTIONS_H

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
	bool verbose;			/* also print the kernel console and the settings */
	bool json;			/* the result as one JSON object on stdout, the
					 * guest's output on stderr */
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

#endif

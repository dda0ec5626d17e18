/* SPDX-License-Identifier: MIT */
/*
 * One `rewind run`: the machine built from its options (vmm/run_options.h),
 * and what it leaves behind: the guest's output as it happens, a summary
 * line, and a run directory with the inputs manifest (JSON), the binary
 * event trace and its hash.
 */
#ifndef REWIND_CLI_RUN_H
#define REWIND_CLI_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/exit_status.h"
#include "vmm/run_options.h"

struct run_result {
	uint64_t run_id; /* XXH3-64 of every input */
	int exit_status; /* what `rewind run` exits with: an enum rewind_exit */
	double wall_s;
	char run_dir[2048];   /* opt->out_dir or rewind-runs/<run id> */
	bool run_dir_written; /* its trace.bin and manifest.json are there */
};

/*
 * Runs the job; returns what `rewind run` exits with (lib/exit_status.h):
 * 0 the job exited 0, 1 it failed (any other outcome but a host error),
 * 2 inputs refused or no usable KVM (nothing ran), 3 a --repeat trace
 * differs, 4 a host error or a run directory that could not be written.
 */
int run_job(const struct run_options *opt);

#endif

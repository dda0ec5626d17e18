/* SPDX-License-Identifier: MIT */
/*
 * `rewind explore --engine slurm`: a night as a Slurm job array of workers
 * plus a final merge task (docs/explore.md, docs/cluster.md).
 */
#ifndef REWIND_SLURM_H
#define REWIND_SLURM_H

#include <stdbool.h>

struct slurm_options {
	const char *partition;	     /* NULL: the cluster's default partition */
	unsigned int time_limit_min; /* 0: derived from the night's seconds plus a margin */
	unsigned int array;	     /* number of array tasks (workers) */
	const char
		*wrapper; /* NULL, or a command prefix each task runs under, e.g. "tests/box/run" */
	bool wait;	  /* wait for the final task and return its exit status */
};

/*
 * Checks the options (--array, --partition, --worker-wrapper) before a night
 * is made; 0 or -1 (reported).
 */
int slurm_check_options(const struct slurm_options *o);

/*
 * Submits the night as a Slurm job array plus a final merge task; returns 0 and sets *status
 * (with wait: the final task's exit status, rewind explore's 0, 1, 2 or 4; without: 0) or -1 with
 * a message.
 *
 * Array task K runs `[WRAPPER] SELF_EXE --worker K --workers N --night NIGHT_DIR`; the final
 * task, once every array task has ended (afterany), runs `[WRAPPER] SELF_EXE --finish --night
 * NIGHT_DIR`. The batch scripts, the tasks' output and the job ids (jobs.json) are written to
 * NIGHT_DIR/slurm/. The tasks run in the current directory, which, like NIGHT_DIR and SELF_EXE,
 * must be on storage every node sees.
 */
int slurm_submit(const struct slurm_options *o, const char *self_exe, const char *night_dir,
		 unsigned int seconds, int *status);

#endif

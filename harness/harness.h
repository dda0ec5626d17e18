/* SPDX-License-Identifier: MIT */
/*
 * One execution as afl-fuzz sees it: bytes in; coverage map, status and
 * (for a failure) a crash artifact out. Shared by the forkserver and the
 * one-shot run of a file.
 */
#ifndef REWIND_HARNESS_H
#define REWIND_HARNESS_H

#include "harness/executor.h"
#include "harness/job.h"
#include "harness/said.h"

#include <stdbool.h>

#define COUNTER_MISSING                                                                            \
	"counter mode needs a job built with guest/rewind-cc, pct mode one so built or one that "  \
	"starts a thread: " SAID_NOT_INSTRUMENTED

/* SAID_KERNEL_EVENTS as the harness prints it. */
#define KERNEL_EVENTS "rewind-harness: " SAID_KERNEL_EVENTS

struct harness {
	struct harness_job job;
	struct executor ex;
	uint8_t *map; /* coverage map (afl's shared memory, or map_buf) */
	size_t map_size;
	const char *artifact_dir;  /* NULL: no artifacts */
	const char *progress_path; /* NULL, or a file rewritten with the counts every few seconds */
	uint64_t progress_due_ns;
	uint64_t first_exec_ns; /* --progress: when the first execution began (coarse clock) */
	double busy_seconds;	/* --progress: wall seconds spent in harness_exec */
	bool quiet;		/* no line per artifact written */
	uint64_t execs, failures, rejected, artifacts;
	uint64_t answered; /* afl's re-runs answered from the outcome cache (not in execs) */
	uint64_t skips;	   /* runs that ended in the job's skip status */
	uint64_t decoded;  /* inputs made valid by input_decode */
	uint64_t first_failure_exec; /* the execution (1, 2, ...) of the first failure; 0: none */
	uint64_t first_failure_profiles; /* the racy-events profile runs before it */
	/* the exits of the first run that passed in the stall samples' mode
	 * (steps, or a plain job's pct): where they land (0: none yet) */
	uint64_t steps_profiled;
	/* a pct run was seen (0: none yet), and whether the guest kernel made its
	 * events (a job not instrumented): the mutator's samplers follow it */
	bool pct_seen, kernel_events;
	enum exec_class first_failure_class;
	char first_failure_artifact[4096]; /* its artifact ("" if none was written) */
};

struct harness_exec {
	enum exec_class cls;
	struct exec_result res; /* valid unless the input was rejected */
	char why[160];		/* the rejection reason */
};

/*
 * Runs data (len bytes) as an input: fills the map and, for a failure,
 * writes its artifact. Returns 0, or -EIO if the host failed (fatal).
 */
int harness_exec(struct harness *h, const uint8_t *data, size_t len, struct harness_exec *out);

/* Writes the counts to --progress's file now (the last counts, when afl-fuzz is done). */
void harness_write_progress(const struct harness *h);

/* The waitpid()-style status afl-fuzz gets: a signal for a failure, else exit 0. */
int harness_wait_status(const struct harness_exec *e);

#endif

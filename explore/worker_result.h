/* SPDX-License-Identifier: MIT */
/*
 * A worker's result file for one test (TEST/worker-K.json, docs/explore.md):
 * the worker writes it (explore/worker.c); the progress line and the
 * night's finish read it (explore/progress.c, explore/finish.c).
 */
#ifndef REWIND_WORKER_RESULT_H
#define REWIND_WORKER_RESULT_H

#include "explore/night.h"

#define WORKER_RESULT_FMT   "worker-%u.json"
#define WORKER_PROGRESS_FMT "progress-%u.json" /* rewind-harness --progress */
#define WORKER_SAMPLES_FMT  "samples-%u.tsv"   /* t, execs, failures, corpus, edges */

/* A test whose first this many runs all ended in its skip status is stopped: it skips. */
#define WORKER_SKIP_RUNS 50

/* What a worker keeps of one test: TEST/worker-K.json. */
struct worker_result {
	char state[16]; /* done, interrupted, failed, skipped (every run ended in the skip status)
			 */
	double seconds_run;
	double execs, exec_per_s, edges, crashes;
	double runs, skips; /* the harness's count of runs, and of those that skipped */
	char error[256];
};

/* Reads TEST/worker-K.json; -1 if it is missing or has no state. */
int worker_read_result(const char *path, struct worker_result *r);

/* Is test t worker k's? */
bool worker_has_test(const struct night *n, const struct suite_test *t, unsigned int k);

/* Writes TEST/worker-K.json (path) for test t of worker k; 0 or -1. */
int worker_write_result(const char *path, const struct suite_test *t, unsigned int k,
			const struct worker_result *r);

#endif

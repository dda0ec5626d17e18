/* SPDX-License-Identifier: MIT */
/*
 * A worker of a night: fuzzes its share of the tests with afl-fuzz and
 * rewind-harness, one test after another, and writes TEST/worker-K.json
 * for each (docs/explore.md). Workers write files only, never the history.
 */
#ifndef REWIND_WORKER_H
#define REWIND_WORKER_H

#include "reports/night.h"

#include <signal.h>

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

/*
 * Runs worker k's tests; a test already done (its result says so) is
 * skipped, one interrupted earlier gets its remaining seconds. A worker
 * whose tests start slower than the plan counts gives the rest less
 * (plan_test_seconds) so that the night ends on time. When *stop is
 * set (a signal), afl-fuzz is stopped and the test recorded as interrupted.
 * 0 if every test ran, 1 if one was interrupted, -1 on a setup error.
 */
int worker_run(const struct night *n, unsigned int k, volatile const sig_atomic_t *stop);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * A worker of a night: fuzzes its share of the tests with afl-fuzz and
 * rewind-harness, one test after another, and writes TEST/worker-K.json
 * for each (docs/explore.md). Workers write files only, never the history.
 */
#ifndef REWIND_WORKER_H
#define REWIND_WORKER_H

#include "explore/night.h"
#include "explore/worker_result.h"

#include <signal.h>

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

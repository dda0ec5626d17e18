/* SPDX-License-Identifier: MIT */
/*
 * One night of a results directory: RESULTS/nights/NNNN/ and its night.json,
 * the plan every worker and the finishing step read (docs/explore.md).
 */
#ifndef REWIND_NIGHT_H
#define REWIND_NIGHT_H

#include "explore/plan.h"
#include "explore/suite.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#define NIGHT_FILE "night.json"

/* The programs and inputs a night runs with, fixed when it is planned. */
struct night_tools {
	char harness[PATH_MAX], mutator[PATH_MAX];
	char corpus_pct[PATH_MAX], corpus_ledger[PATH_MAX];
};

struct night {
	char results[PATH_MAX]; /* RESULTS, absolute */
	char dir[PATH_MAX];	/* RESULTS/nights/NNNN */
	int64_t id;
	int64_t started;
	unsigned int seconds, workers;
	enum night_layout layout;
	char engine[16];
	char suite_path[PATH_MAX];
	struct night_tools tools;
	struct suite suite;
	size_t planned, first_planned; /* the tests that get time (plan.h), when planned */
};

/* Where the tools are by default: next to this executable, in a checkout's build/. */
int night_default_tools(struct night_tools *t);

/*
 * A new night in results (created if needed): its id from the history, its
 * folder, the plan (plan.h: which worker fuzzes which test for how long),
 * written to night.json. n->suite, seconds, workers, layout, engine, tools
 * are set by the caller.
 */
int night_create(struct night *n, const char *results);

/* Reads RESULTS/nights/NNNN/night.json. */
int night_load(const char *night_dir, struct night *n);

/* RESULTS/nights/NNNN/TEST (and sub, if given), into out. */
int night_test_path(const struct night *n, const char *test, const char *sub, char *out,
		    size_t len);

/* The newest night's folder of results, or -1 (reported) if there is none. */
int night_latest_dir(const char *results, char *out, size_t len);

void night_free(struct night *n);

#endif

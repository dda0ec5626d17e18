/* SPDX-License-Identifier: MIT */
/*
 * What explore/suite_runner.c shares with the runner kinds kept in files of
 * their own (explore/runner_ctest.c): the runner being run and the helpers
 * every kind uses (explore/runner_kind.c). For those files only; the rest of Rewind uses
 * explore/suite_runner.h.
 */
#ifndef REWIND_RUNNER_KIND_H
#define REWIND_RUNNER_KIND_H

#include "explore/host_command.h"
#include "explore/name_pattern.h"
#include "explore/suite_runner.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#define RUNNER_NOTES_SHOWN 20 /* lines about what a runner left out; then a count */

struct runner {
	const cJSON *obj;
	const char *dir, *what, *kind;
	unsigned int timeout_s;
	struct name_patterns excludes; /* "exclude", compiled */
	size_t excluded, left_out;
	cJSON *tests;
};

/* Says what is wrong with the runner on stderr; -1. */
__attribute__((format(printf, 2, 3))) int runner_fail(const struct runner *r, const char *fmt, ...);

/* A test the runner gave that the suite leaves out, and why (the first few said). */
__attribute__((format(printf, 2, 3))) void runner_left_out(struct runner *r, const char *fmt, ...);

/* Does "exclude" leave the test name out? (Counted.) */
bool runner_excluded(struct runner *r, const char *name);

/* A non-empty list of strings (at most max), or NULL. */
const cJSON *runner_string_list(const cJSON *v, int max);

/*
 * The runner's key, a folder of this host from the suite file: made
 * absolute against the suite file's folder, then resolved into out
 * (PATH_MAX bytes). 0 or -1 (reported).
 */
int runner_host_dir(const struct runner *r, const char *key, char *out);

/* A program of a host command: one with a '/' but not absolute is the suite folder's. */
int runner_host_program(const struct runner *r, const char *program, char *out, size_t len);

/* A new test object named name, at the end of the runner's tests. */
cJSON *runner_new_test(struct runner *r, const char *name);

/* Appends text to o's list key (made if missing). */
void runner_add_string(cJSON *o, const char *key, const char *text);

/*
 * host_command_run with the runner's timeout; a command that could not run,
 * ran too long, printed too much or did not exit with 0 is said as the
 * runner's error. 0 (o->out its stdout, to free) or -1 (reported).
 */
int runner_run_host(const struct runner *r, char *const argv[], const char *cwd, char *const env[],
		    size_t max, struct host_output *o);

/* The "ctest" kind (explore/runner_ctest.c): its keys, and its run. */
extern const char *const RUNNER_CTEST_KEYS[];
int runner_ctest(struct runner *r);

#endif

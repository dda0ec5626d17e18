/* SPDX-License-Identifier: MIT */
/*
 * A suite test's settings (docs/explore.md): the job keys ("kernel",
 * "mem_mib", ...) and the others ("add", "mode", "share", "user", "cwd",
 * "env", "skip_status") that a test, its runner and the suite's top level
 * may give, checked and turned into the test's rewind-harness options.
 */
#ifndef REWIND_SUITE_SETTINGS_H
#define REWIND_SUITE_SETTINGS_H

#include "explore/suite.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Where a test's settings come from, the most general first: the suite's
 * top level, its runner (for a test the runner gave), the test itself.
 * A setting is taken from the most specific that gives it; "add" lists
 * are joined, and "env" lists merged (a later NAME replaces an earlier).
 */
struct suite_layers {
	const cJSON *of[4]; /* top level, runner, a runner's override, test: the last wins */
	size_t count;
};

/* Is key a test's setting? (The top level and a runner may give any as a default.) */
bool suite_is_setting(const char *key);

/*
 * t's mode and share, and its rewind-harness options (t->args) from every
 * other setting; relative host paths are made absolute against dir (NULL:
 * kept). 0, or -1 (reported, naming what and the test).
 */
int suite_settings_parse(const struct suite_layers *l, const char *dir, struct suite_test *t,
			 const char *what);

/* Appends a copy of text to the list; 0, -E2BIG (SUITE_MAX_ARGS) or -ENOMEM. */
int suite_push(char ***list, size_t *count, const char *text);

/* "rewind explore: error: WHAT: test "NAME": WHY" on stderr; -1. */
int suite_fail(const char *what, const char *name, const char *why);

/*
 * Refuses a key of obj that is neither one of own (NULL-ended) nor a
 * setting: "WHAT: WHERE: unknown key "K"; the keys are ..." on stderr, -1.
 */
int suite_check_keys(const cJSON *obj, const char *const *own, const char *what, const char *where);

/* own's keys (NULL-ended, may be NULL), then every setting's, ", " between, into out. */
void suite_keys_text(const char *const *own, char *out, size_t len);

#endif

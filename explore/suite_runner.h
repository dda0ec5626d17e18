/* SPDX-License-Identifier: MIT */
/*
 * A suite's "runner" (docs/explore.md): the project's own test runner, run
 * on this host to list the tests: "list" (a command that prints one test
 * name a line), "ctest" (ctest --show-only=json-v1 in a build folder) or
 * "directory" (every executable file of a folder).
 */
#ifndef REWIND_SUITE_RUNNER_H
#define REWIND_SUITE_RUNNER_H

#include <cjson/cJSON.h>
#include <stdbool.h>

/* Longest a runner's host command may take by default, and the most it may print. */
#define RUNNER_TIMEOUT_S	60
#define RUNNER_LIST_MAX		(4u << 20)
#define RUNNER_CTEST_MAX	(64u << 20)
#define RUNNER_TEST_NAME_MAX	1024 /* a longer line of a list is not a test name */
#define RUNNER_TEST_PLACEHOLDER "{test}"

/*
 * Runs the runner object on this host and returns its tests, in its order,
 * as a cJSON array of test objects: "name" (as the runner names the test),
 * "command", and "add", "cwd", "env", "skip_status" where the runner gives
 * them. dir: the suite file's folder (relative host paths); what: the suite
 * file, for messages; is_setting: the test settings a runner object may
 * also give (suite.c applies them), every other key must be the runner's.
 * What the runner left out is said on stderr. NULL on an error (reported).
 */
cJSON *suite_runner_tests(const cJSON *runner, const char *dir, const char *what,
			  bool (*is_setting)(const char *key));

#endif

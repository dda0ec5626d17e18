/* SPDX-License-Identifier: MIT */
/*
 * A suite's "ctest" runner (docs/explore.md): ctest --show-only=json-v1 in
 * a CMake build folder, and its JSON read into tests.
 */
#include "explore/ctest_files.h"
#include "explore/runner_kind.h"
#include "lib/file.h"
#include "lib/log.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const RUNNER_CTEST_KEYS[] = {"kind",    "build_dir", "ctest",     "config",
					 "exclude", "timeout_s", "overrides", NULL};

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* CMake's true: a JSON true or non-zero number, or 1, ON, YES, TRUE or Y as text. */
static bool cmake_true(const cJSON *v)
{
	static const char *const yes[] = {"1", "ON", "YES", "TRUE", "Y"};

	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v);
	if (cJSON_IsNumber(v))
		return v->valuedouble != 0;
	for (size_t i = 0; cJSON_IsString(v) && i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!strcasecmp(v->valuestring, yes[i]))
			return true;
	return false;
}

static long skip_code(const cJSON *v)
{
	char *end;
	long code;

	if (cJSON_IsNumber(v))
		return v->valuedouble >= 1 && v->valuedouble <= 255 ? (long)v->valuedouble : 0;
	if (!cJSON_IsString(v))
		return 0;
	code = strtol(v->valuestring, &end, 10);
	return !*end && code >= 1 && code <= 255 ? code : 0;
}

/* Why CTest's properties make a test one Rewind cannot run as it is, or NULL. */
static const char *ctest_unfit(const cJSON *props)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, props)
	{
		const cJSON *name = get(p, "name"), *value = get(p, "value");

		if (!cJSON_IsString(name))
			continue;
		if (!strcmp(name->valuestring, "DISABLED") && cmake_true(value))
			return "DISABLED";
		if (!strcmp(name->valuestring, "WILL_FAIL") && cmake_true(value))
			return "WILL_FAIL: it passes when it fails";
		if (!strcmp(name->valuestring, "PASS_REGULAR_EXPRESSION"))
			return "PASS_REGULAR_EXPRESSION: it passes by its output, not its exit "
			       "status";
	}
	return NULL;
}

static void ctest_property(cJSON *t, const char *name, const cJSON *value)
{
	if (!strcmp(name, "WORKING_DIRECTORY") && cJSON_IsString(value)) {
		cJSON_AddStringToObject(t, "cwd", value->valuestring);
	} else if (!strcmp(name, "ENVIRONMENT") && cJSON_IsString(value)) {
		runner_add_string(t, "env", value->valuestring);
	} else if (!strcmp(name, "ENVIRONMENT") && cJSON_IsArray(value)) {
		const cJSON *item;

		cJSON_ArrayForEach(item, value)
		{
			if (cJSON_IsString(item))
				runner_add_string(t, "env", item->valuestring);
		}
	} else if (!strcmp(name, "SKIP_RETURN_CODE") && skip_code(value)) {
		cJSON_AddNumberToObject(t, "skip_status", (double)skip_code(value));
	}
}

/* A working directory outside the build folder is made empty in the guest: said as it changes. */
static void note_outside_cwd(const struct runner *r, const char *build, const cJSON *t, char *said,
			     size_t len)
{
	const cJSON *cwd = get(t, "cwd");

	if (!cJSON_IsString(cwd) || !strcmp(said, cwd->valuestring) ||
	    file_path_under(cwd->valuestring, build))
		return;
	snprintf(said, len, "%s", cwd->valuestring);
	fprintf(stderr,
		"%s: %s: runner \"ctest\": the working directory %s is outside the "
		"build folder: the guest has none of the host's files there unless the suite adds "
		"them (\"add\")\n",
		rw_log.program, r->what, cwd->valuestring);
}

/* The test's part of the build folder (explore/ctest_files.c), or all of it. */
static void add_build_files(struct runner *r, const struct ctest_files *files, const cJSON *command,
			    cJSON *t, bool *said_whole)
{
	char add[2 * PATH_MAX + 2];

	if (ctest_files_add(files, command, t) >= 0)
		return;
	snprintf(add, sizeof(add), "%s:%s", files->build, files->build);
	runner_add_string(t, "add", add);
	if (!*said_whole)
		fprintf(stderr,
			"%s: %s: runner \"ctest\": the build folder has more than %d parts a test "
			"needs (or a path with ':'): each test gets all of it\n",
			rw_log.program, r->what, CTEST_FILES_MAX_ADDS);
	*said_whole = true;
}

static int ctest_test(struct runner *r, const struct ctest_files *files, const cJSON *ct,
		      char *said, size_t said_len, bool *said_whole)
{
	const cJSON *name = get(ct, "name");
	const cJSON *command = runner_string_list(get(ct, "command"), 4096);
	const cJSON *props = get(ct, "properties"), *p, *word;
	const char *why;
	cJSON *t, *cmd;

	if (!cJSON_IsString(name) || !name->valuestring[0])
		return runner_fail(r, "ctest's JSON has a test without a name");
	if (runner_excluded(r, name->valuestring))
		return 0;
	if (!command) {
		runner_left_out(
			r,
			"%s: no command (its program is not built, or the test is not in this "
			"configuration: \"config\" names one)",
			name->valuestring);
		return 0;
	}
	if ((why = ctest_unfit(props))) {
		runner_left_out(r, "%s: %s", name->valuestring, why);
		return 0;
	}
	t = runner_new_test(r, name->valuestring);
	cmd = cJSON_AddArrayToObject(t, "command");
	cJSON_ArrayForEach(word, command)
	{
		cJSON_AddItemToArray(cmd, cJSON_CreateString(word->valuestring));
	}
	add_build_files(r, files, command, t, said_whole);
	cJSON_ArrayForEach(p, props)
	{
		if (cJSON_IsString(get(p, "name")))
			ctest_property(t, get(p, "name")->valuestring, get(p, "value"));
	}
	note_outside_cwd(r, files->build, t, said, said_len);
	return 0;
}

/* Every test's program, before any test takes its part of the build folder. */
static int note_programs(struct runner *r, struct ctest_files *files, const cJSON *tests)
{
	const cJSON *ct;

	cJSON_ArrayForEach(ct, tests)
	{
		if (ctest_files_note_command(files, runner_string_list(get(ct, "command"), 4096)))
			return runner_fail(r, "out of memory reading ctest's tests");
	}
	return 0;
}

static int ctest_json(struct runner *r, const char *build, const char *text, size_t len)
{
	cJSON *root = cJSON_ParseWithLength(text, len);
	const cJSON *version = get(root, "version"), *tests = get(root, "tests"), *ct;
	const cJSON *kind = get(root, "kind"), *major = get(version, "major");
	struct ctest_files files = {.build = build};
	char said[PATH_MAX] = "";
	bool said_whole = false;
	int rc;

	if (!cJSON_IsString(kind) || strcmp(kind->valuestring, "ctestInfo") ||
	    !cJSON_IsNumber(major) || major->valuedouble != 1 || !cJSON_IsArray(tests)) {
		cJSON_Delete(root);
		return runner_fail(
			r, "ctest did not print its JSON format 1 (\"kind\": \"ctestInfo\", "
			   "\"version\": {\"major\": 1}, \"tests\"): CMake 3.14 or later?");
	}
	rc = note_programs(r, &files, tests);
	cJSON_ArrayForEach(ct, tests)
	{
		if (rc || (rc = ctest_test(r, &files, ct, said, sizeof(said), &said_whole)))
			break;
	}
	ctest_files_free(&files);
	cJSON_Delete(root);
	return rc;
}

int runner_ctest(struct runner *r)
{
	const cJSON *ctest = get(r->obj, "ctest"), *config = get(r->obj, "config");
	char build[PATH_MAX], program[PATH_MAX];
	char *argv[] = {program, "--show-only=json-v1", NULL, NULL, NULL};
	struct host_output o;
	int rc;

	if (runner_host_dir(r, "build_dir", build))
		return -1;
	if (ctest && (!cJSON_IsString(ctest) || !ctest->valuestring[0]))
		return runner_fail(r, "\"ctest\" must be the ctest program");
	if (config && (!cJSON_IsString(config) || !config->valuestring[0]))
		return runner_fail(r, "\"config\" must be a configuration name (ctest -C)");
	if (runner_host_program(r, ctest ? ctest->valuestring : "ctest", program, sizeof(program)))
		return -1;
	if (config) {
		argv[2] = "-C";
		argv[3] = config->valuestring;
	}
	if (runner_run_host(r, argv, build, NULL, RUNNER_CTEST_MAX, &o))
		return -1;
	rc = ctest_json(r, build, o.out, o.len);
	free(o.out);
	return rc;
}

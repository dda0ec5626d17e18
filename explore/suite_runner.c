/* SPDX-License-Identifier: MIT */
/*
 * A suite's runner: the project's own test runner lists the tests
 * (docs/explore.md). The settings every kind shares, the "list" and
 * "directory" kinds; "ctest" is explore/runner_ctest.c's.
 */
#include "explore/suite_runner.h"

#include "explore/host_command.h"
#include "explore/runner_kind.h"
#include "explore/suite_settings.h"
#include "lib/log.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define RUNNER_MAX_WORDS 64  /* of a host command */
#define RUNNER_MAX_ENV	 256 /* "list_env" entries */
#define TIMEOUT_MAX_S	 3600

static const char *const LIST_KEYS[] = {"kind",	   "list",	"command",   "list_env",
					"exclude", "timeout_s", "overrides", NULL};
static const char *const DIRECTORY_KEYS[] = {"kind", "dir", "exclude", "overrides", NULL};

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* --- settings every kind shares ---------------------------------------------------- */

static bool in_list(const char *const *keys, const char *key)
{
	for (; *keys; keys++)
		if (!strcmp(*keys, key))
			return true;
	return false;
}

static int check_keys(const struct runner *r, const char *const *keys,
		      bool (*is_setting)(const char *key))
{
	const cJSON *item;
	char known[1024];

	cJSON_ArrayForEach(item, r->obj)
	{
		if (in_list(keys, item->string) || is_setting(item->string))
			continue;
		suite_keys_text(keys, known, sizeof(known));
		return runner_fail(r, "unknown key \"%s\"; the keys are %s", item->string, known);
	}
	return 0;
}

static int parse_timeout(struct runner *r)
{
	const cJSON *t = get(r->obj, "timeout_s");

	r->timeout_s = RUNNER_TIMEOUT_S;
	if (!t)
		return 0;
	if (!cJSON_IsNumber(t) || t->valuedouble < 1 || t->valuedouble > TIMEOUT_MAX_S ||
	    t->valuedouble != (double)(unsigned int)t->valuedouble)
		return runner_fail(r, "\"timeout_s\" must be an integer in 1..%d", TIMEOUT_MAX_S);
	r->timeout_s = (unsigned int)t->valuedouble;
	return 0;
}

/* "exclude": shell globs matched against the whole name, or "re:" extended regexes. */
static int compile_excludes(struct runner *r)
{
	const cJSON *ex = get(r->obj, "exclude"), *item;

	if (!ex)
		return 0;
	if (!cJSON_IsArray(ex))
		return runner_fail(r,
				   "\"exclude\" must be a list of globs or \"re:REGEX\" strings");
	if (name_patterns_alloc(&r->excludes, (size_t)cJSON_GetArraySize(ex)))
		return runner_fail(r, "out of memory");
	cJSON_ArrayForEach(item, ex)
	{
		if (!cJSON_IsString(item) || !item->valuestring[0])
			return runner_fail(
				r, "\"exclude\" must be a list of globs or \"re:REGEX\" strings");
		if (name_patterns_add(&r->excludes, item->valuestring))
			return runner_fail(r, "\"exclude\": not an extended regex: %s",
					   item->valuestring + 3);
	}
	return 0;
}

/* --- "list": a command that prints the test names ---------------------------------- */

static bool name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || (!first && strchr("-./:+@,=[]", c));
}

/*
 * The test name of a line of a runner's list, trimmed, or NULL when the
 * line is not one: a plain name is letters, digits and _ - . / : + @ , = [ ]
 * (starting with a letter, digit or _), alone on its line or followed by a
 * note in parentheses (libuv: "tcp_open                  (helpers:
 * tcp4_echo_server)"). The line is cut at the name's end.
 */
static char *list_line_name(char *line)
{
	size_t n = strlen(line), len;
	char *rest;

	while (n && strchr(" \t\r", line[n - 1]))
		line[--n] = 0;
	line += strspn(line, " \t");
	len = strcspn(line, " \t");
	if (!len || len > RUNNER_TEST_NAME_MAX || !name_char(line[0], true))
		return NULL;
	for (size_t i = 1; i < len; i++)
		if (!name_char(line[i], false))
			return NULL;
	rest = line + len + strspn(line + len, " \t");
	if (*rest && (*rest != '(' || rest[strlen(rest) - 1] != ')'))
		return NULL;
	line[len] = 0;
	return line;
}

/* word with every {test} replaced by name. */
static char *substitute(const char *word, const char *name)
{
	size_t count = 0, plen = strlen(RUNNER_TEST_PLACEHOLDER), nlen = strlen(name);
	char *out, *o;

	for (const char *p = word; (p = strstr(p, RUNNER_TEST_PLACEHOLDER)); p += plen)
		count++;
	out = malloc(strlen(word) + count * nlen + 1);
	if (!out)
		return NULL;
	o = out;
	for (const char *p = word, *hit; *p; p = hit + plen) {
		hit = strstr(p, RUNNER_TEST_PLACEHOLDER);
		if (!hit) {
			o = stpcpy(o, p);
			break;
		}
		o = mempcpy(o, p, (size_t)(hit - p));
		o = stpcpy(o, name);
	}
	*o = 0;
	return out;
}

static int list_test(struct runner *r, const cJSON *command, const char *name)
{
	cJSON *t = runner_new_test(r, name), *cmd = cJSON_AddArrayToObject(t, "command");
	const cJSON *word;

	cJSON_ArrayForEach(word, command)
	{
		char *text = substitute(word->valuestring, name);

		if (!text)
			return runner_fail(r, "out of memory");
		cJSON_AddItemToArray(cmd, cJSON_CreateString(text));
		free(text);
	}
	return 0;
}

static int list_lines(struct runner *r, const cJSON *command, char *out)
{
	size_t not_names = 0;
	char *save = NULL, first_bad[80] = "";

	for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char copy[80], *name;

		snprintf(copy, sizeof(copy), "%s", line);
		name = list_line_name(line);
		if (!name) {
			if (line[strspn(line, " \t\r")] && !not_names++)
				snprintf(first_bad, sizeof(first_bad), "%s", copy);
			continue;
		}
		if (!runner_excluded(r, name) && list_test(r, command, name))
			return -1;
	}
	if (not_names)
		fprintf(stderr,
			"%s: %s: runner \"list\": %zu line%s not a test name, skipped "
			"(the first: \"%s\")\n",
			rw_log.program, r->what, not_names, not_names == 1 ? " is" : "s are",
			first_bad);
	return 0;
}

static bool uses_placeholder(const cJSON *command)
{
	const cJSON *word;

	cJSON_ArrayForEach(word, command)
	{
		if (strstr(word->valuestring, RUNNER_TEST_PLACEHOLDER))
			return true;
	}
	return false;
}

/* "list_env": NAME=VALUE strings into env, NULL-ended. */
static int list_env(const struct runner *r, char *env[RUNNER_MAX_ENV + 1])
{
	const cJSON *list = get(r->obj, "list_env"), *item;
	size_t n = 0;

	if (list && !runner_string_list(list, RUNNER_MAX_ENV))
		return runner_fail(r, "\"list_env\" must be a list of NAME=VALUE strings");
	cJSON_ArrayForEach(item, list)
	{
		if (!strchr(item->valuestring, '=') || item->valuestring[0] == '=')
			return runner_fail(r, "\"list_env\": '%s' is not NAME=VALUE",
					   item->valuestring);
		env[n++] = item->valuestring;
	}
	env[n] = NULL;
	return 0;
}

static int run_list(struct runner *r)
{
	const cJSON *list = runner_string_list(get(r->obj, "list"), RUNNER_MAX_WORDS - 1);
	const cJSON *command = runner_string_list(get(r->obj, "command"), RUNNER_MAX_WORDS);
	const cJSON *item;
	char *argv[RUNNER_MAX_WORDS + 1] = {0}, *env[RUNNER_MAX_ENV + 1], program[PATH_MAX];
	struct host_output o;
	size_t a = 0;
	int rc;

	if (!list)
		return runner_fail(
			r, "\"list\" must be the command that lists the tests, as a list of "
			   "strings (run on this host, no shell)");
	if (!command || !uses_placeholder(command))
		return runner_fail(r,
				   "\"command\" must be the guest command of one test, a list of "
				   "strings with " RUNNER_TEST_PLACEHOLDER " for the test's name");
	if (list_env(r, env))
		return -1;
	cJSON_ArrayForEach(item, list)
	{
		argv[a++] = item->valuestring;
	}
	if (runner_host_program(r, argv[0], program, sizeof(program)))
		return -1;
	argv[0] = program;
	if (runner_run_host(r, argv, r->dir, env, RUNNER_LIST_MAX, &o))
		return -1;
	rc = list_lines(r, command, o.out);
	free(o.out);
	return rc;
}

/* --- "directory": every executable file of a folder --------------------------------- */

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static bool executable_file(const char *dir, const char *name)
{
	char path[2 * PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !stat(path, &st) && S_ISREG(st.st_mode) && (st.st_mode & 0111);
}

static int directory_test(struct runner *r, const char *dir, const char *name)
{
	char guest[PATH_MAX], add[3 * PATH_MAX];
	cJSON *t;

	if (name[0] == '.' || !executable_file(dir, name) || runner_excluded(r, name))
		return 0;
	if (strchr(name, ':')) {
		runner_left_out(r, "%s: a ':' in its name, which rewind-harness --add cannot take",
				name);
		return 0;
	}
	snprintf(guest, sizeof(guest), "/tests/%s", name);
	snprintf(add, sizeof(add), "%s/%s:%s", dir, name, guest);
	t = runner_new_test(r, name);
	runner_add_string(t, "command", guest);
	runner_add_string(t, "add", add);
	return 0;
}

static int run_directory(struct runner *r)
{
	char dir[PATH_MAX];
	struct dirent **names;
	int n, rc = 0;

	if (runner_host_dir(r, "dir", dir))
		return -1;
	n = scandir(dir, &names, NULL, by_name);
	if (n < 0)
		return runner_fail(r, "cannot list %s: %s", dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		if (!rc)
			rc = directory_test(r, dir, names[i]->d_name);
		free(names[i]);
	}
	free(names);
	return rc;
}

/* --- the runner ----------------------------------------------------------------------- */

static int run_kind(struct runner *r, bool (*is_setting)(const char *key))
{
	static const struct {
		const char *kind;
		const char *const *keys;
		int (*run)(struct runner *r);
	} KINDS[] = {
		{"list", LIST_KEYS, run_list},
		{"ctest", RUNNER_CTEST_KEYS, runner_ctest},
		{"directory", DIRECTORY_KEYS, run_directory},
	};
	const cJSON *kind = get(r->obj, "kind");

	for (size_t i = 0; cJSON_IsString(kind) && i < sizeof(KINDS) / sizeof(KINDS[0]); i++) {
		if (strcmp(kind->valuestring, KINDS[i].kind))
			continue;
		r->kind = KINDS[i].kind;
		if (check_keys(r, KINDS[i].keys, is_setting) || parse_timeout(r) ||
		    compile_excludes(r))
			return -1;
		return KINDS[i].run(r);
	}
	rw_err("%s: \"runner\" needs a \"kind\": \"list\", \"ctest\" or \"directory\"", r->what);
	return -1;
}

cJSON *suite_runner_tests(const cJSON *runner, const char *dir, const char *what,
			  bool (*is_setting)(const char *key))
{
	struct runner r = {.obj = runner, .dir = dir, .what = what, .tests = cJSON_CreateArray()};
	int rc;

	if (!cJSON_IsObject(runner)) {
		rw_err("%s: \"runner\" must be an object", what);
		cJSON_Delete(r.tests);
		return NULL;
	}
	rc = r.tests ? run_kind(&r, is_setting) : -1;
	name_patterns_free(&r.excludes);
	if (rc) {
		cJSON_Delete(r.tests);
		return NULL;
	}
	if (r.left_out > RUNNER_NOTES_SHOWN)
		fprintf(stderr, "%s: %s: runner \"%s\" left out %zu more\n", rw_log.program, what,
			r.kind, r.left_out - RUNNER_NOTES_SHOWN);
	fprintf(stderr,
		"%s: %s: runner \"%s\" gave %d test%s (%zu excluded, %zu left "
		"out)\n",
		rw_log.program, what, r.kind, cJSON_GetArraySize(r.tests),
		cJSON_GetArraySize(r.tests) == 1 ? "" : "s", r.excluded, r.left_out);
	return r.tests;
}

/* SPDX-License-Identifier: MIT */
/*
 * Suite files: parsing, validation, and the copy a night keeps in
 * night.json. A test's settings are explore/suite_settings.c's.
 */
#include "explore/suite.h"

#include "explore/name_pattern.h"
#include "explore/suite_runner.h"
#include "explore/suite_settings.h"
#include "lib/file.h"
#include "lib/log.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-."

/* The keys a suite file's top level and a listed test have besides the settings. */
static const char *const TOP_KEYS[] = {"format", "version", "tests", "runner", NULL};
static const char *const TEST_KEYS[] = {"name", "command", NULL};

static bool name_ok(const char *name)
{
	size_t n = strlen(name);

	if (!n || n >= SUITE_NAME_MAX || name[0] == '.')
		return false;
	return strspn(name, NAME_CHARS) == n;
}

static int parse_strings(const cJSON *arr, char ***list, size_t *count)
{
	const cJSON *item;

	if (!cJSON_IsArray(arr))
		return -EINVAL;
	cJSON_ArrayForEach(item, arr)
	{
		if (!cJSON_IsString(item) || suite_push(list, count, item->valuestring))
			return -EINVAL;
	}
	return 0;
}

/* A test: its name and command from the last layer (the test), its settings from all. */
static int parse_test(const struct suite_layers *l, const char *dir, struct suite_test *t,
		      const char *what)
{
	const cJSON *obj = l->of[l->count - 1];
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(obj, "name");

	if (!cJSON_IsObject(obj) || !cJSON_IsString(name))
		return suite_fail(what, "?", "every test needs a \"name\"");
	if (!name_ok(name->valuestring))
		return suite_fail(
			what, name->valuestring,
			"a name is 1-63 letters, digits, '_', '-' or '.', not starting with '.'");
	snprintf(t->name, sizeof(t->name), "%s", name->valuestring);
	if (parse_strings(cJSON_GetObjectItemCaseSensitive(obj, "command"), &t->command,
			  &t->command_len) ||
	    !t->command_len)
		return suite_fail(what, t->name, "\"command\" must be a non-empty list of strings");
	if (suite_settings_parse(l, dir, t, what))
		return -1;
	t->worker = SUITE_WORKER_EVERY;
	return 0;
}

/* A new, zeroed test at the end of the suite; NULL (reported) when it is full. */
static struct suite_test *new_test(struct suite *s, const char *what)
{
	if (s->count == SUITE_MAX_TESTS) {
		rw_err("%s: more than %d tests; a runner's \"exclude\" leaves some out", what,
		       SUITE_MAX_TESTS);
		return NULL;
	}
	if (s->count == s->capacity) {
		size_t cap = s->capacity ? 2 * s->capacity : 16;
		struct suite_test *grown = realloc(s->tests, cap * sizeof(*grown));

		if (!grown) {
			rw_err("%s: out of memory", what);
			return NULL;
		}
		s->tests = grown;
		s->capacity = cap;
	}
	memset(&s->tests[s->count], 0, sizeof(s->tests[0]));
	return &s->tests[s->count++];
}

/* A listed test's keys, checked before anything else of it; it is named by its "name" or number. */
static int check_test_keys(const cJSON *item, size_t i, const char *what)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(item, "name");
	char where[SUITE_NAME_MAX + 16];

	if (!cJSON_IsObject(item))
		return 0; /* parse_test says what a test is */
	if (cJSON_IsString(name) && name_ok(name->valuestring))
		snprintf(where, sizeof(where), "test \"%s\"", name->valuestring);
	else
		snprintf(where, sizeof(where), "test %zu", i);
	return suite_check_keys(item, TEST_KEYS, what, where);
}

static int parse_listed(const cJSON *root, const cJSON *tests, const char *dir, struct suite *s,
			const char *what)
{
	const cJSON *item;
	size_t i = 0;

	cJSON_ArrayForEach(item, tests)
	{
		struct suite_layers l = {{root, item}, 2};
		struct suite_test *t;

		if (check_test_keys(item, ++i, what))
			return -1;
		t = new_test(s, what);
		if (!t || parse_test(&l, dir, t, what))
			return -1;
		if (suite_find(s, t->name) != t)
			return suite_fail(what, t->name, "two tests have this name");
	}
	return 0;
}

/*
 * A runner's test name as a suite name: letters, digits, '_', '-' and '.'
 * kept, anything else '_', cut to fit; "-2", "-3", ... added to keep it unique.
 */
static void unique_name(const struct suite *s, const char *raw, char *out)
{
	char base[SUITE_NAME_MAX];
	size_t n = 0;

	for (; n < SUITE_NAME_MAX - 1 && raw[n]; n++)
		base[n] = strchr(NAME_CHARS, raw[n]) ? raw[n] : '_';
	base[n] = 0;
	if (!n)
		snprintf(base, sizeof(base), "test");
	if (base[0] == '.')
		base[0] = '_';
	snprintf(out, SUITE_NAME_MAX, "%s", base);
	for (unsigned int k = 2; suite_find(s, out); k++) {
		char suffix[16];
		int keep;

		snprintf(suffix, sizeof(suffix), "-%u", k);
		keep = (int)(SUITE_NAME_MAX - 1 - strlen(suffix));
		snprintf(out, SUITE_NAME_MAX, "%.*s%s", keep, base, suffix);
	}
}

/*
 * A runner's "overrides": a list of settings for the tests whose runner
 * name a "match" fits (a glob, or "re:REGEX" as in "exclude"), e.g. a
 * longer wall_ms for a suite's stress tests. Checked, and each "match"
 * compiled into matches (name_patterns_free it), before the runner runs.
 */
static int check_overrides(const cJSON *runner, const char *what, struct name_patterns *matches)
{
	static const char *const own[] = {"match", NULL};
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(runner, "overrides"), *o;
	size_t i = 0;

	if (!list)
		return 0;
	if (!cJSON_IsArray(list)) {
		rw_err("%s: runner: \"overrides\" must be a list of objects, each with \"match\"",
		       what);
		return -1;
	}
	if (name_patterns_alloc(matches, (size_t)cJSON_GetArraySize(list))) {
		rw_err("%s: out of memory", what);
		return -1;
	}
	cJSON_ArrayForEach(o, list)
	{
		const cJSON *match = cJSON_GetObjectItemCaseSensitive(o, "match");
		char where[48];

		snprintf(where, sizeof(where), "runner override %zu", ++i);
		if (!cJSON_IsObject(o) || !cJSON_IsString(match) || !match->valuestring[0]) {
			rw_err("%s: %s: each override is an object with \"match\": a glob or "
			       "\"re:REGEX\"",
			       what, where);
			return -1;
		}
		if (name_patterns_add(matches, match->valuestring)) {
			rw_err("%s: %s: \"match\": not an extended regex: %s", what, where,
			       match->valuestring + 3);
			return -1;
		}
		if (suite_check_keys(o, own, what, where))
			return -1;
	}
	return 0;
}

/* The first of the runner's overrides whose "match" (in matches) fits name, or NULL. */
static const cJSON *override_of(const cJSON *runner, const struct name_patterns *matches,
				const char *name)
{
	long i = name_patterns_first(matches, name);

	if (i < 0)
		return NULL;
	return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(runner, "overrides"), (int)i);
}

static int parse_runner(const cJSON *root, const cJSON *runner, const char *dir, struct suite *s,
			const char *what)
{
	struct name_patterns matches = {.at = NULL};
	cJSON *tests, *item;
	int rc;

	if (check_overrides(runner, what, &matches)) {
		name_patterns_free(&matches);
		return -1;
	}
	tests = suite_runner_tests(runner, dir, what, suite_is_setting);
	rc = tests ? 0 : -1;
	cJSON_ArrayForEach(item, tests)
	{
		const char *raw = cJSON_GetObjectItemCaseSensitive(item, "name")->valuestring;
		const cJSON *ov = override_of(runner, &matches, raw);
		struct suite_layers l = {{root, runner, ov ? ov : item, item}, ov ? 4 : 3};
		struct suite_test *t = new_test(s, what);
		char name[SUITE_NAME_MAX];

		unique_name(s, raw, name);
		cJSON_ReplaceItemInObjectCaseSensitive(item, "name", cJSON_CreateString(name));
		if (!t || parse_test(&l, dir, t, what)) {
			rc = -1;
			break;
		}
	}
	cJSON_Delete(tests);
	name_patterns_free(&matches);
	return rc;
}

static int parse_suite(const cJSON *root, const char *dir, struct suite *s, const char *what)
{
	const cJSON *format = cJSON_GetObjectItemCaseSensitive(root, "format");
	const cJSON *tests = cJSON_GetObjectItemCaseSensitive(root, "tests");
	const cJSON *runner = cJSON_GetObjectItemCaseSensitive(root, "runner");

	const cJSON *version = cJSON_GetObjectItemCaseSensitive(root, "version");

	if (!cJSON_IsObject(root) || !cJSON_IsString(format) ||
	    strcmp(format->valuestring, "rewind-suite")) {
		rw_err("%s is not a suite file; a suite file says \"format\": \"rewind-suite\"",
		       what);
		return -1;
	}
	if (suite_check_keys(root, TOP_KEYS, what, "the top level"))
		return -1;
	if (version && (!cJSON_IsNumber(version) || version->valuedouble != SUITE_VERSION)) {
		rw_err("%s: \"version\" must be %d, the only version of suite files", what,
		       SUITE_VERSION);
		return -1;
	}
	if ((tests || !runner) &&
	    (!cJSON_IsArray(tests) || (!runner && !cJSON_GetArraySize(tests)))) {
		rw_err("%s: \"tests\" must be a non-empty list (or a \"runner\" gives the tests)",
		       what);
		return -1;
	}
	if (parse_listed(root, tests, dir, s, what) ||
	    (runner && parse_runner(root, runner, dir, s, what)))
		return -1;
	if (!s->count) {
		rw_err("%s: the suite has no test", what);
		return -1;
	}
	return 0;
}

int suite_load(const char *path, struct suite *s)
{
	uint8_t *data;
	size_t len;
	char copy[PATH_MAX], dir[PATH_MAX];
	cJSON *root;
	int rc;

	memset(s, 0, sizeof(*s));
	if (file_read_max(path, SUITE_FILE_MAX, "suite file", &data, &len))
		return -1;
	root = cJSON_ParseWithLength((const char *)data, len);
	free(data);
	if (!root) {
		rw_err("%s is not valid JSON; check it with jq . %s", path, path);
		return -1;
	}
	snprintf(copy, sizeof(copy), "%s", path);
	if (!realpath(dirname(copy), dir)) {
		rw_err_errno(errno, "%s: cannot resolve its folder", path);
		cJSON_Delete(root);
		return -1;
	}
	rc = parse_suite(root, dir, s, path);
	cJSON_Delete(root);
	if (rc)
		suite_free(s);
	return rc;
}

static cJSON *strings_json(char *const *list, size_t count)
{
	/* cJSON makes no array of a NULL list, which a test without options has */
	return count ? cJSON_CreateStringArray((const char *const *)list, (int)count)
		     : cJSON_CreateArray();
}

cJSON *suite_to_json(const struct suite *s)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < s->count; i++) {
		const struct suite_test *t = &s->tests[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", t->name);
		cJSON_AddStringToObject(o, "mode", suite_mode_name(t->mode));
		cJSON_AddNumberToObject(o, "share", t->share);
		cJSON_AddItemToObject(o, "harness_args", strings_json(t->args, t->arg_count));
		cJSON_AddItemToObject(o, "command", strings_json(t->command, t->command_len));
		cJSON_AddNumberToObject(o, "seconds", t->seconds);
		cJSON_AddNumberToObject(o, "worker", t->worker);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static int plan_from_json(const cJSON *o, struct suite_test *t, const char *what)
{
	const cJSON *sec = cJSON_GetObjectItemCaseSensitive(o, "seconds");
	const cJSON *worker = cJSON_GetObjectItemCaseSensitive(o, "worker");

	if (!cJSON_IsNumber(sec) || sec->valuedouble < 0 || sec->valuedouble > 1e7 ||
	    !cJSON_IsNumber(worker) || worker->valuedouble < SUITE_WORKER_NONE ||
	    worker->valuedouble > 1e6)
		return suite_fail(what, t->name, "a bad plan (\"seconds\", \"worker\")");
	t->seconds = (unsigned int)sec->valuedouble;
	t->worker = (int)worker->valuedouble;
	return 0;
}

int suite_from_json(const cJSON *tests, struct suite *s, const char *what)
{
	const cJSON *o;

	memset(s, 0, sizeof(*s));
	cJSON_ArrayForEach(o, tests)
	{
		struct suite_layers l = {{o}, 1};
		struct suite_test *t = new_test(s, what);

		if (!t || parse_test(&l, NULL, t, what)) {
			suite_free(s);
			return -1;
		}
		/* harness_args were resolved when the night was planned */
		if (parse_strings(cJSON_GetObjectItemCaseSensitive(o, "harness_args"), &t->args,
				  &t->arg_count) ||
		    plan_from_json(o, t, what)) {
			suite_fail(what, t->name, "bad \"harness_args\" or plan");
			suite_free(s);
			return -1;
		}
	}
	return 0;
}

const struct suite_test *suite_find(const struct suite *s, const char *name)
{
	for (size_t i = 0; i < s->count; i++)
		if (!strcmp(s->tests[i].name, name))
			return &s->tests[i];
	return NULL;
}

/* A word as a shell reads it: as it is when plainly safe, else in single quotes. */
static void print_word(FILE *to, const char *word)
{
	if (word[0] && strspn(word, NAME_CHARS "/:=+,@%") == strlen(word)) {
		fputs(word, to);
		return;
	}
	fputc('\'', to);
	for (const char *p = word; *p; p++)
		fputs(*p == '\'' ? "'\\''" : (char[]){*p, 0}, to);
	fputc('\'', to);
}

static void print_words(FILE *to, char *const *words, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		if (i)
			fputc(' ', to);
		print_word(to, words[i]);
	}
}

void suite_print(const struct suite *s, FILE *to)
{
	for (size_t i = 0; i < s->count; i++) {
		const struct suite_test *t = &s->tests[i];

		fprintf(to, "%s\t", t->name);
		print_words(to, t->command, t->command_len);
		if (t->arg_count) {
			fputc('\t', to);
			print_words(to, t->args, t->arg_count);
		}
		fputc('\n', to);
	}
}

static void free_strings(char **list, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(list[i]);
	free(list);
}

void suite_free(struct suite *s)
{
	for (size_t i = 0; i < s->count; i++) {
		free_strings(s->tests[i].args, s->tests[i].arg_count);
		free_strings(s->tests[i].command, s->tests[i].command_len);
	}
	free(s->tests);
	memset(s, 0, sizeof(*s));
}

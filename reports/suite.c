/* Suite files: parsing, validation, and the copy a night keeps in night.json. */
#include "reports/suite.h"

#include "vmm/file.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Job settings a suite test may give, with the rewind-harness option each becomes. */
static const struct {
	const char *key, *option;
	bool path;
} JOB_KEYS[] = {
	{"kernel", "--kernel", true},
	{"initramfs", "--initramfs", true},
	{"mem_mib", "--mem", false},
	{"step_budget", "--step-budget", false},
	{"stuck_ms", "--stuck-ms", false},
	{"wall_ms", "--wall-ms", false},
	{"slice_blocks", "--slice-blocks", false},
	{"block_ns", "--block-ns", false},
};

static int fail(const char *what, const char *name, const char *why)
{
	fprintf(stderr, "rewind explore: %s: test '%s': %s\n", what, name, why);
	return -1;
}

static bool name_ok(const char *name)
{
	size_t n = strlen(name);

	if (!n || n >= SUITE_NAME_MAX || name[0] == '.')
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") ==
	       n;
}

static int push(char **list, size_t *count, const char *text)
{
	if (*count >= SUITE_MAX_ARGS)
		return -E2BIG;
	list[*count] = strdup(text);
	if (!list[*count])
		return -ENOMEM;
	(*count)++;
	return 0;
}

/* HOST made absolute against dir (the suite file's folder), the rest kept. */
static int resolve_path(const char *dir, const char *host, char *out, size_t len)
{
	if (host[0] == '/' || !dir)
		return snprintf(out, len, "%s", host) >= (int)len ? -ENAMETOOLONG : 0;
	return snprintf(out, len, "%s/%s", dir, host) >= (int)len ? -ENAMETOOLONG : 0;
}

static int parse_strings(const cJSON *arr, char **list, size_t *count)
{
	const cJSON *item;

	if (!cJSON_IsArray(arr))
		return -EINVAL;
	cJSON_ArrayForEach(item, arr)
	{
		if (!cJSON_IsString(item) || push(list, count, item->valuestring))
			return -EINVAL;
	}
	return 0;
}

static int parse_adds(const cJSON *adds, const char *dir, struct suite_test *t, const char *what)
{
	const cJSON *item;
	char path[PATH_MAX + 256];

	if (!adds)
		return 0;
	if (!cJSON_IsArray(adds))
		return fail(what, t->name, "\"add\" must be a list of \"HOST[:GUEST]\" strings");
	cJSON_ArrayForEach(item, adds)
	{
		if (!cJSON_IsString(item) || !item->valuestring[0] ||
		    resolve_path(dir, item->valuestring, path, sizeof(path)) ||
		    push(t->args, &t->arg_count, "--add") || push(t->args, &t->arg_count, path))
			return fail(what, t->name, "a bad \"add\" entry (\"HOST[:GUEST]\")");
	}
	return 0;
}

static int parse_job_keys(const cJSON *obj, const char *dir, struct suite_test *t, const char *what)
{
	char text[PATH_MAX];

	for (size_t i = 0; i < sizeof(JOB_KEYS) / sizeof(JOB_KEYS[0]); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, JOB_KEYS[i].key);

		if (!v)
			continue;
		if (JOB_KEYS[i].path
			    ? !cJSON_IsString(v) ||
				      resolve_path(dir, v->valuestring, text, sizeof(text))
			    : !cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1e15)
			return fail(what, t->name, "a job setting has the wrong type or range");
		if (!JOB_KEYS[i].path)
			snprintf(text, sizeof(text), "%" PRIu64, (uint64_t)v->valuedouble);
		if (push(t->args, &t->arg_count, JOB_KEYS[i].option) ||
		    push(t->args, &t->arg_count, text))
			return fail(what, t->name, "too many job settings");
	}
	return 0;
}

static int parse_mode(const cJSON *mode, struct suite_test *t, const char *what)
{
	if (!mode)
		return 0;
	if (cJSON_IsString(mode) && !strcmp(mode->valuestring, "plain"))
		t->plain = true;
	else if (!cJSON_IsString(mode) || strcmp(mode->valuestring, "instrumented"))
		return fail(what, t->name, "\"mode\" is \"instrumented\" or \"plain\"");
	return 0;
}

static int parse_share(const cJSON *share, struct suite_test *t, const char *what)
{
	t->share = 1;
	if (!share)
		return 0;
	if (!cJSON_IsNumber(share) || share->valuedouble < 1 || share->valuedouble > 1000 ||
	    share->valuedouble != (double)(unsigned int)share->valuedouble)
		return fail(what, t->name, "\"share\" must be an integer in 1..1000");
	t->share = (unsigned int)share->valuedouble;
	return 0;
}

static int parse_test(const cJSON *obj, const char *dir, struct suite_test *t, const char *what)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(obj, "name");

	if (!cJSON_IsObject(obj) || !cJSON_IsString(name))
		return fail(what, "?", "every test needs a \"name\"");
	if (!name_ok(name->valuestring))
		return fail(
			what, name->valuestring,
			"a name is 1-63 letters, digits, '_', '-' or '.', not starting with '.'");
	snprintf(t->name, sizeof(t->name), "%s", name->valuestring);
	if (parse_strings(cJSON_GetObjectItemCaseSensitive(obj, "command"), t->command,
			  &t->command_len) ||
	    !t->command_len)
		return fail(what, t->name, "\"command\" must be a non-empty list of strings");
	if (parse_mode(cJSON_GetObjectItemCaseSensitive(obj, "mode"), t, what) ||
	    parse_share(cJSON_GetObjectItemCaseSensitive(obj, "share"), t, what) ||
	    parse_adds(cJSON_GetObjectItemCaseSensitive(obj, "add"), dir, t, what) ||
	    parse_job_keys(obj, dir, t, what))
		return -1;
	t->worker = SUITE_WORKER_EVERY;
	return 0;
}

static int parse_suite(const cJSON *root, const char *dir, struct suite *s, const char *what)
{
	const cJSON *format = cJSON_GetObjectItemCaseSensitive(root, "format");
	const cJSON *tests = cJSON_GetObjectItemCaseSensitive(root, "tests"), *item;

	if (!cJSON_IsString(format) || strcmp(format->valuestring, "rewind-suite")) {
		fprintf(stderr,
			"rewind explore: %s is not a suite file (\"format\": \"rewind-suite\")\n",
			what);
		return -1;
	}
	if (!cJSON_IsArray(tests) || !cJSON_GetArraySize(tests)) {
		fprintf(stderr, "rewind explore: %s: \"tests\" must be a non-empty list\n", what);
		return -1;
	}
	cJSON_ArrayForEach(item, tests)
	{
		if (s->count == SUITE_MAX_TESTS) {
			fprintf(stderr, "rewind explore: %s: more than %d tests\n", what,
				SUITE_MAX_TESTS);
			return -1;
		}
		if (parse_test(item, dir, &s->tests[s->count++], what))
			return -1;
		if (suite_find(s, s->tests[s->count - 1].name) != &s->tests[s->count - 1])
			return fail(what, s->tests[s->count - 1].name, "two tests have this name");
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
		fprintf(stderr, "rewind explore: %s is not valid JSON\n", path);
		return -1;
	}
	snprintf(copy, sizeof(copy), "%s", path);
	if (!realpath(dirname(copy), dir)) {
		fprintf(stderr, "rewind explore: %s: cannot resolve its folder: %s\n", path,
			strerror(errno));
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
	return cJSON_CreateStringArray((const char *const *)list, (int)count);
}

cJSON *suite_to_json(const struct suite *s)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < s->count; i++) {
		const struct suite_test *t = &s->tests[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", t->name);
		cJSON_AddStringToObject(o, "mode", t->plain ? "plain" : "instrumented");
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
	    !cJSON_IsNumber(worker) || worker->valuedouble < -1 || worker->valuedouble > 1e6)
		return fail(what, t->name, "a bad plan (\"seconds\", \"worker\")");
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
		struct suite_test *t = &s->tests[s->count];

		if (s->count == SUITE_MAX_TESTS || parse_test(o, NULL, t, what)) {
			suite_free(s);
			return -1;
		}
		s->count++;
		/* harness_args were resolved when the night was planned */
		if (parse_strings(cJSON_GetObjectItemCaseSensitive(o, "harness_args"), t->args,
				  &t->arg_count) ||
		    plan_from_json(o, t, what)) {
			suite_free(s);
			return fail(what, t->name, "bad \"harness_args\" or plan");
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

void suite_free(struct suite *s)
{
	for (size_t i = 0; i < s->count; i++) {
		for (size_t j = 0; j < s->tests[i].arg_count; j++)
			free(s->tests[i].args[j]);
		for (size_t j = 0; j < s->tests[i].command_len; j++)
			free(s->tests[i].command[j]);
	}
	memset(s, 0, sizeof(*s));
}

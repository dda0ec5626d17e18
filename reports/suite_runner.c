/* SPDX-License-Identifier: MIT */
/*
 * A suite's runner: the project's own test runner lists the tests
 * (docs/explore.md). The settings every kind shares, the "list" and
 * "directory" kinds; "ctest" is reports/runner_ctest.c's.
 */
#include "reports/suite_runner.h"

#include "reports/host_command.h"
#include "reports/runner_kind.h"
#include "reports/suite_settings.h"
#include "vmm/log.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define RUNNER_MAX_WORDS 64  /* of a host command */
#define RUNNER_MAX_ENV	 256 /* "list_env" entries */
#define NOTES_SHOWN	 20  /* lines about what a runner left out; then a count */
#define TIMEOUT_MAX_S	 3600

static const char *const LIST_KEYS[] = {"kind",	   "list",	"command", "list_env",
					"exclude", "timeout_s", NULL};
static const char *const DIRECTORY_KEYS[] = {"kind", "dir", "exclude", NULL};

int runner_fail(const struct runner *r, const char *fmt, ...)
{
	va_list ap;
	char text[2048];

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	rw_err("%s: runner \"%s\": %s", r->what, r->kind ? r->kind : "?", text);
	return -1;
}

/* A test the runner gave that the suite leaves out, and why (the first few said). */
void runner_left_out(struct runner *r, const char *fmt, ...)
{
	va_list ap;

	if (r->left_out++ >= NOTES_SHOWN)
		return;
	fprintf(stderr, "rewind explore: %s: runner \"%s\" left out ", r->what, r->kind);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* --- a host command, its failure said as the runner's ------------------------------- */

static int explain_end(const struct runner *r, char *const argv[], int status, size_t max,
		       struct host_output *o)
{
	char cmd[512];

	host_command_text(argv, cmd, sizeof(cmd));
	if (status < 0 && o->failed)
		return runner_fail(r, "cannot %s: %s", o->failed, strerror(-status));
	if (status == -ETIMEDOUT)
		return runner_fail(
			r, "`%s` did not finish within %u s (\"timeout_s\" gives it longer)", cmd,
			r->timeout_s);
	if (status == -EFBIG)
		return runner_fail(r, "`%s` printed more than %zu MiB", cmd, max >> 20);
	if (status < 0)
		return runner_fail(r, "`%s`: %s", cmd, strerror(-status));
	if (WIFSIGNALED(status))
		return runner_fail(r, "`%s` was killed by signal %d%s%s", cmd, WTERMSIG(status),
				   o->err_len ? ": " : "", host_output_err_line(o));
	if (WEXITSTATUS(status))
		return runner_fail(r, "`%s` exited with status %d%s%s", cmd, WEXITSTATUS(status),
				   o->err_len ? ": " : "", host_output_err_line(o));
	return 0;
}

int runner_run_host(const struct runner *r, char *const argv[], const char *cwd, char *const env[],
		    size_t max, struct host_output *o)
{
	int status = host_command_run(argv, cwd, env, r->timeout_s, max, o);

	if (!explain_end(r, argv, status, max, o))
		return 0;
	free(o->out);
	o->out = NULL;
	return -1;
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
	size_t i = 0;

	if (!ex)
		return 0;
	if (!cJSON_IsArray(ex))
		return runner_fail(r,
				   "\"exclude\" must be a list of globs or \"re:REGEX\" strings");
	r->pattern_count = (size_t)cJSON_GetArraySize(ex);
	r->regexes = calloc(r->pattern_count + 1, sizeof(*r->regexes));
	r->is_regex = calloc(r->pattern_count + 1, sizeof(*r->is_regex));
	if (!r->regexes || !r->is_regex)
		return runner_fail(r, "out of memory");
	cJSON_ArrayForEach(item, ex)
	{
		if (!cJSON_IsString(item) || !item->valuestring[0])
			return runner_fail(
				r, "\"exclude\" must be a list of globs or \"re:REGEX\" strings");
		if (!strncmp(item->valuestring, "re:", 3)) {
			if (regcomp(&r->regexes[i], item->valuestring + 3,
				    REG_EXTENDED | REG_NOSUB))
				return runner_fail(r, "\"exclude\": not an extended regex: %s",
						   item->valuestring + 3);
			r->is_regex[i] = true;
		}
		i++;
	}
	return 0;
}

static void free_excludes(struct runner *r)
{
	for (size_t i = 0; i < r->pattern_count && r->is_regex; i++)
		if (r->is_regex[i])
			regfree(&r->regexes[i]);
	free(r->regexes);
	free(r->is_regex);
}

bool runner_excluded(struct runner *r, const char *name)
{
	const cJSON *item;
	size_t i = 0;

	cJSON_ArrayForEach(item, get(r->obj, "exclude"))
	{
		bool hit = r->is_regex[i] ? !regexec(&r->regexes[i], name, 0, NULL, 0)
					  : !fnmatch(item->valuestring, name, 0);

		i++;
		if (hit) {
			r->excluded++;
			return true;
		}
	}
	return false;
}

/* A non-empty list of strings (at most max), or NULL. */
const cJSON *runner_string_list(const cJSON *v, int max)
{
	const cJSON *item;

	if (!cJSON_IsArray(v) || !cJSON_GetArraySize(v) || cJSON_GetArraySize(v) > max)
		return NULL;
	cJSON_ArrayForEach(item, v)
	{
		if (!cJSON_IsString(item))
			return NULL;
	}
	return v;
}

/* A host path from the suite file: made absolute against its folder, then resolved. */
int runner_host_dir(const struct runner *r, const char *key, char *out)
{
	const cJSON *v = get(r->obj, key);
	char joined[2 * PATH_MAX];
	struct stat st;

	if (!cJSON_IsString(v) || !v->valuestring[0])
		return runner_fail(r, "\"%s\" must be a folder of this host", key);
	snprintf(joined, sizeof(joined), "%s%s%s", v->valuestring[0] == '/' ? "" : r->dir,
		 v->valuestring[0] == '/' ? "" : "/", v->valuestring);
	if (!realpath(joined, out) || stat(out, &st) || !S_ISDIR(st.st_mode))
		return runner_fail(r, "\"%s\": %s is not a folder: %s", key, joined,
				   errno ? strerror(errno) : "not a directory");
	if (strchr(out, ':'))
		return runner_fail(r,
				   "\"%s\": %s has a ':', which rewind-harness --add cannot take",
				   key, out);
	return 0;
}

/* A program of a host command: one with a '/' but not absolute is the suite folder's. */
int runner_host_program(const struct runner *r, const char *program, char *out, size_t len)
{
	const char *rest = program;
	int n;

	if (!strchr(program, '/') || program[0] == '/') {
		n = snprintf(out, len, "%s", program);
	} else {
		while (!strncmp(rest, "./", 2))
			rest += 2;
		n = snprintf(out, len, "%s/%s", r->dir, rest);
	}
	return n < 0 || (size_t)n >= len ? runner_fail(r, "the program path is too long") : 0;
}

cJSON *runner_new_test(struct runner *r, const char *name)
{
	cJSON *t = cJSON_CreateObject();

	cJSON_AddStringToObject(t, "name", name);
	cJSON_AddItemToArray(r->tests, t);
	return t;
}

void runner_add_string(cJSON *o, const char *key, const char *text)
{
	cJSON *list = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!list)
		list = cJSON_AddArrayToObject(o, key);
	cJSON_AddItemToArray(list, cJSON_CreateString(text));
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
			"rewind explore: %s: runner \"list\": %zu line%s not a test name, skipped "
			"(the first: \"%s\")\n",
			r->what, not_names, not_names == 1 ? " is" : "s are", first_bad);
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
	free_excludes(&r);
	if (rc) {
		cJSON_Delete(r.tests);
		return NULL;
	}
	if (r.left_out > NOTES_SHOWN)
		fprintf(stderr, "rewind explore: %s: runner \"%s\" left out %zu more\n", what,
			r.kind, r.left_out - NOTES_SHOWN);
	fprintf(stderr,
		"rewind explore: %s: runner \"%s\" gave %d test%s (%zu excluded, %zu left "
		"out)\n",
		what, r.kind, cJSON_GetArraySize(r.tests),
		cJSON_GetArraySize(r.tests) == 1 ? "" : "s", r.excluded, r.left_out);
	return r.tests;
}

/* SPDX-License-Identifier: MIT */
/*
 * The helpers every runner kind uses (explore/runner_kind.h): errors said
 * as the runner's, host commands, "exclude", paths and the test list. Below
 * the kinds: explore/suite_runner.c ("list", "directory") and
 * explore/runner_ctest.c ("ctest").
 */
#include "explore/runner_kind.h"

#include "lib/log.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

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

	if (r->left_out++ >= RUNNER_NOTES_SHOWN)
		return;
	fprintf(stderr, "%s: %s: runner \"%s\" left out ", rw_log.program, r->what, r->kind);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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

bool runner_excluded(struct runner *r, const char *name)
{
	if (name_patterns_first(&r->excludes, name) < 0)
		return false;
	r->excluded++;
	return true;
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

/* SPDX-License-Identifier: MIT */
#include "guest/job_file.h"

#include <string.h>

const char *job_error_text(int err)
{
	switch (err) {
	case JOB_ERR_EMPTY:
		return "empty (no strings)";
	case JOB_ERR_UNTERMINATED:
		return "last string is not NUL-terminated";
	case JOB_ERR_TOO_MANY:
		return "too many strings";
	case JOB_ERR_EMPTY_COMMAND:
		return "the command (first string) is empty";
	case JOB_ERR_BAD_ENV:
		return "an entry is not NAME=VALUE";
	case JOB_ERR_TOO_LONG:
		return "path too long";
	case JOB_ERR_NOT_FOUND:
		return "not found";
	case JOB_ERR_BAD_SETUP:
		return "an entry is not user=, cwd=, env=NAME=VALUE or own=";
	case JOB_ERR_BAD_USER:
		return "no such user (a name in /etc/passwd, UID or UID:GID)";
	default:
		return "unknown error";
	}
}

size_t job_count_strings(const char *buf, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\0';
	return n;
}

long job_split(char *buf, size_t len, char **vec, size_t cap)
{
	size_t n = 0, start = 0;

	if (len == 0)
		return JOB_ERR_EMPTY;
	if (buf[len - 1] != '\0')
		return JOB_ERR_UNTERMINATED;
	for (size_t i = 0; i < len; i++) {
		if (buf[i] != '\0')
			continue;
		if (n + 1 >= cap) /* keep one slot for the NULL */
			return JOB_ERR_TOO_MANY;
		vec[n++] = buf + start;
		start = i + 1;
	}
	vec[n] = NULL;
	return (long)n;
}

long job_parse_argv(char *buf, size_t len, char **argv, size_t cap)
{
	long n = job_split(buf, len, argv, cap);

	if (n > 0 && argv[0][0] == '\0')
		return JOB_ERR_EMPTY_COMMAND;
	return n;
}

long job_parse_env(char *buf, size_t len, char **envp, size_t cap)
{
	long n;

	if (len == 0 && cap > 0) { /* an empty environment is a valid one */
		envp[0] = NULL;
		return 0;
	}
	n = job_split(buf, len, envp, cap);

	for (long i = 0; i < n; i++) {
		const char *eq = strchr(envp[i], '=');

		if (!eq || eq == envp[i])
			return JOB_ERR_BAD_ENV;
	}
	return n;
}

const char *job_getenv(char *const *envp, const char *name)
{
	size_t len = strlen(name);

	for (; *envp; envp++)
		if (strncmp(*envp, name, len) == 0 && (*envp)[len] == '=')
			return *envp + len + 1;
	return NULL;
}

/* Writes dir "/" cmd (dir empty: "./" cmd) to out; false if it does not fit. */
static bool join_path(const char *dir, size_t dir_len, const char *cmd, char *out, size_t size)
{
	size_t cmd_len = strlen(cmd);

	if (dir_len == 0) {
		dir = ".";
		dir_len = 1;
	}
	if (dir_len + 1 + cmd_len + 1 > size)
		return false;
	memcpy(out, dir, dir_len);
	out[dir_len] = '/';
	memcpy(out + dir_len + 1, cmd, cmd_len + 1);
	return true;
}

int job_resolve_command(const char *cmd, const char *path, job_is_executable_fn is_exec, void *ctx,
			char *out, size_t size)
{
	bool too_long = false;

	if (cmd[0] == '\0')
		return JOB_ERR_EMPTY_COMMAND;
	if (strchr(cmd, '/')) {
		if (strlen(cmd) + 1 > size)
			return JOB_ERR_TOO_LONG;
		memcpy(out, cmd, strlen(cmd) + 1);
		return is_exec(out, ctx) ? 0 : JOB_ERR_NOT_FOUND;
	}
	for (const char *dir = path;;) {
		const char *colon = strchr(dir, ':');
		size_t dir_len = colon ? (size_t)(colon - dir) : strlen(dir);

		if (!join_path(dir, dir_len, cmd, out, size))
			too_long = true;
		else if (is_exec(out, ctx))
			return 0;
		if (!colon)
			break;
		dir = colon + 1;
	}
	return too_long ? JOB_ERR_TOO_LONG : JOB_ERR_NOT_FOUND;
}

/* "KEY=" at the start of entry: the value after it, or NULL. */
static char *setup_value(char *entry, const char *key)
{
	size_t n = strlen(key);

	return strncmp(entry, key, n) == 0 && entry[n] == '=' ? entry + n + 1 : NULL;
}

static int setup_push(char **list, size_t *count, size_t cap, char *value)
{
	if (*count >= cap)
		return JOB_ERR_TOO_MANY;
	list[(*count)++] = value;
	return 0;
}

static int setup_entry(struct job_setup *out, char *entry)
{
	char *v;

	if ((v = setup_value(entry, "user")) && *v)
		out->user = v;
	else if ((v = setup_value(entry, "cwd")) && *v == '/')
		out->cwd = v;
	else if ((v = setup_value(entry, "env")) && strchr(v, '=') && *v != '=')
		return setup_push(out->env, &out->env_count, JOB_SETUP_MAX_ENV, v);
	else if ((v = setup_value(entry, "own")) && *v == '/')
		return setup_push(out->own, &out->own_count, JOB_SETUP_MAX_OWN, v);
	else
		return JOB_ERR_BAD_SETUP;
	return 0;
}

int job_parse_setup(char *buf, size_t len, struct job_setup *out)
{
	size_t start = 0;

	memset(out, 0, sizeof(*out));
	if (len == 0)
		return 0;
	if (buf[len - 1] != '\0')
		return JOB_ERR_UNTERMINATED;
	for (size_t i = 0; i < len; i++) {
		int rc;

		if (buf[i] != '\0')
			continue;
		rc = setup_entry(out, buf + start);
		if (rc < 0)
			return rc;
		start = i + 1;
	}
	return 0;
}

/* A whole decimal number below 2^32 in text[0..len); false otherwise. */
static bool parse_id(const char *text, size_t len, unsigned int *out)
{
	unsigned long long v = 0;

	if (len == 0 || len > 10)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (text[i] < '0' || text[i] > '9')
			return false;
		v = v * 10 + (unsigned long long)(text[i] - '0');
	}
	if (v > 0xfffffffeull) /* (uid_t)-1 means "unchanged" */
		return false;
	*out = (unsigned int)v;
	return true;
}

/* Copies field i (':'-separated) of line[0..len) to out; false if absent or too long. */
static bool passwd_field(const char *line, size_t len, int i, char *out, size_t size)
{
	const char *at = line, *end = line + len;

	for (; i > 0; i--) {
		const char *colon = memchr(at, ':', (size_t)(end - at));

		if (!colon)
			return false;
		at = colon + 1;
	}
	len = (size_t)(end - at);
	if (memchr(at, ':', len))
		len = (size_t)((const char *)memchr(at, ':', len) - at);
	if (len >= size)
		return false;
	memcpy(out, at, len);
	out[len] = '\0';
	return true;
}

/* The passwd line of a name (by_name) or a uid; fills out from it. */
static bool passwd_lookup(const char *passwd, size_t len, const char *name, const unsigned int *uid,
			  struct job_user *out)
{
	for (size_t at = 0; passwd && at < len;) {
		const char *line = passwd + at, *nl = memchr(line, '\n', len - at);
		size_t line_len = nl ? (size_t)(nl - line) : len - at;
		char field[256];
		struct job_user u;

		at += line_len + 1;
		if (!passwd_field(line, line_len, 0, u.name, sizeof(u.name)) ||
		    !passwd_field(line, line_len, 2, field, sizeof(field)) ||
		    !parse_id(field, strlen(field), &u.uid) ||
		    !passwd_field(line, line_len, 3, field, sizeof(field)) ||
		    !parse_id(field, strlen(field), &u.gid) ||
		    !passwd_field(line, line_len, 5, u.home, sizeof(u.home)))
			continue;
		if (name ? !strcmp(u.name, name) : u.uid == *uid) {
			*out = u;
			return true;
		}
	}
	return false;
}

int job_find_user(const char *passwd, size_t len, const char *spec, struct job_user *out)
{
	const char *colon = strchr(spec, ':');
	unsigned int uid, gid;

	if (!parse_id(spec, colon ? (size_t)(colon - spec) : strlen(spec), &uid))
		return passwd_lookup(passwd, len, spec, NULL, out) ? 0 : JOB_ERR_BAD_USER;
	if (colon && !parse_id(colon + 1, strlen(colon + 1), &gid))
		return JOB_ERR_BAD_USER;
	if (!passwd_lookup(passwd, len, NULL, &uid, out)) {
		memset(out, 0, sizeof(*out));
		out->uid = uid;
		out->gid = uid;
		memcpy(out->home, "/", 2);
	}
	if (colon)
		out->gid = gid;
	return 0;
}

int job_env_set(char **envp, size_t cap, char *entry)
{
	const char *eq = strchr(entry, '=');
	size_t name_len, i = 0;

	if (!eq || eq == entry)
		return JOB_ERR_BAD_ENV;
	name_len = (size_t)(eq - entry) + 1; /* with the '=' */
	for (; envp[i]; i++) {
		if (!strncmp(envp[i], entry, name_len)) {
			envp[i] = entry;
			return 0;
		}
	}
	if (i + 1 >= cap)
		return JOB_ERR_TOO_MANY;
	envp[i] = entry;
	envp[i + 1] = NULL;
	return 0;
}

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

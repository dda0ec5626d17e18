/* SPDX-License-Identifier: MIT */
/*
 * The job files rewind-init reads (/rewind/job: argv, /rewind/env: NAME=VALUE
 * strings), each a run of NUL-terminated strings, and the PATH search of the
 * job's command. Pure code: no I/O except through the caller's callback, so
 * it is unit-tested on the host and linked into the static guest init.
 */
#ifndef REWIND_JOB_FILE_H
#define REWIND_JOB_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* Errors, all negative; job_error_text() describes each. */
enum job_error {
	JOB_ERR_EMPTY = -1,	    /* no strings at all */
	JOB_ERR_UNTERMINATED = -2,  /* the last string lacks its NUL */
	JOB_ERR_TOO_MANY = -3,	    /* more strings than the caller has room for */
	JOB_ERR_EMPTY_COMMAND = -4, /* argv[0] is "" */
	JOB_ERR_BAD_ENV = -5,	    /* an environment string is not NAME=VALUE */
	JOB_ERR_TOO_LONG = -6,	    /* a resolved path does not fit the buffer */
	JOB_ERR_NOT_FOUND = -7,	    /* no executable file of that name */
	JOB_ERR_BAD_SETUP = -8,	    /* a setup string is not KEY=VALUE of a known KEY */
	JOB_ERR_BAD_USER = -9,	    /* a user that is neither a name in passwd nor UID[:GID] */
};

const char *job_error_text(int err);

/* Number of NUL-terminated strings in buf[0..len) (a missing last NUL not counted). */
size_t job_count_strings(const char *buf, size_t len);

/*
 * Splits buf[0..len), strings each ending in NUL, into vec[0..n) and sets
 * vec[n] = NULL; cap counts every slot of vec, the NULL included. The strings
 * stay in buf. Returns n (>= 1) or JOB_ERR_EMPTY, JOB_ERR_UNTERMINATED,
 * JOB_ERR_TOO_MANY.
 */
long job_split(char *buf, size_t len, char **vec, size_t cap);

/* job_split of an argv; also refuses an empty command (JOB_ERR_EMPTY_COMMAND). */
long job_parse_argv(char *buf, size_t len, char **argv, size_t cap);

/*
 * job_split of an environment; every string must be NAME=VALUE with a
 * non-empty NAME. An empty buffer is an empty environment (returns 0).
 */
long job_parse_env(char *buf, size_t len, char **envp, size_t cap);

/* The value of NAME in envp (NULL-terminated), or NULL. */
const char *job_getenv(char *const *envp, const char *name);

/* Answers whether path names an executable regular file. */
typedef bool (*job_is_executable_fn)(const char *path, void *ctx);

/*
 * Finds the file to execute for cmd, like a shell: a cmd containing '/' is
 * used as is; otherwise each directory of path (':'-separated, an empty entry
 * meaning ".") is tried in order. Writes the result to out[0..size) and
 * returns 0, or JOB_ERR_NOT_FOUND, JOB_ERR_TOO_LONG (no candidate fitted and
 * none was found), JOB_ERR_EMPTY_COMMAND.
 */
int job_resolve_command(const char *cmd, const char *path, job_is_executable_fn is_exec, void *ctx,
			char *out, size_t size);

/*
 * The job's setup (/rewind/setup): NUL-terminated "KEY=VALUE" strings, the
 * VMM's translation of --user, --cwd and --env:
 *   user=NAME or user=UID[:GID]   run the job as this user (default root)
 *   cwd=DIR                       its working directory (default /)
 *   env=NAME=VALUE                set in its environment (repeatable)
 *   own=PATH                      a file or tree the user added: it belongs
 *                                 to the job's user, as a checkout does
 */
#define JOB_SETUP_MAX_ENV 256
#define JOB_SETUP_MAX_OWN 256
struct job_setup {
	const char *user, *cwd; /* NULL: root, / */
	char *env[JOB_SETUP_MAX_ENV];
	size_t env_count;
	char *own[JOB_SETUP_MAX_OWN];
	size_t own_count;
};

/* Parses a setup file's bytes (strings stay in buf); 0 or a JOB_ERR_*. */
int job_parse_setup(char *buf, size_t len, struct job_setup *out);

/* A user the job runs as. */
struct job_user {
	unsigned int uid, gid;
	char name[64], home[256]; /* "" and "/" for a number passwd does not name */
};

/*
 * Finds spec ("NAME", "UID" or "UID:GID") in the text of an /etc/passwd
 * (len bytes, may be NULL when there is none): a NAME must be there; a UID
 * there gets its group and home, else its own number as group and "/" as
 * home; UID:GID is taken as given (name and home from passwd if the UID is
 * there). 0 or JOB_ERR_BAD_USER.
 */
int job_find_user(const char *passwd, size_t len, const char *spec, struct job_user *out);

/*
 * Sets "NAME=VALUE" in envp (NULL-terminated, cap slots in all): replaces
 * the entry of that NAME or appends. 0, JOB_ERR_BAD_ENV or JOB_ERR_TOO_MANY.
 */
int job_env_set(char **envp, size_t cap, char *entry);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * A command of this host run without a shell, as a suite's runner runs the
 * project's test runner (explore/suite_runner.c): in a folder, with a
 * timeout, all of its stdout kept up to a cap, the end of its stderr kept
 * for a message. (lib/spawn.c starts the night's tools, with their
 * output in a log file and no timeout.)
 */
#ifndef REWIND_HOST_COMMAND_H
#define REWIND_HOST_COMMAND_H

#include <stddef.h>

#define HOST_ERR_TAIL 600 /* the end of a command's stderr kept for a message */

/* What a host command printed: all of its stdout, the end of its stderr. */
struct host_output {
	char *out; /* malloc'd, NUL-terminated; NULL after an error */
	size_t len, cap;
	char err[HOST_ERR_TAIL + 1];
	size_t err_len;
	const char *failed; /* on -errno: what could not be done before it ran, or NULL */
};

/*
 * Runs argv (no shell; argv[0] looked up in PATH without a '/') in cwd, in
 * a process group of its own, stdin from /dev/null, with env (NAME=VALUE
 * strings, NULL-ended; NULL: none) added to this process's environment.
 * Its wait status, with o->out its stdout (free it); or -errno, o->out
 * NULL: -ETIMEDOUT when it ran past timeout_s, -EFBIG when it printed more
 * than max bytes (killed, with its process group, in both cases), another
 * when it could not be run or waited for (o->failed says which step, if it
 * was one before the command started). Prints nothing.
 */
int host_command_run(char *const argv[], const char *cwd, char *const env[], unsigned int timeout_s,
		     size_t max, struct host_output *o);

/* The command's words, space-separated, into out (cut to fit), for a message. */
void host_command_text(char *const argv[], char *out, size_t len);

/* The last line of what the command wrote to stderr, for a message. */
const char *host_output_err_line(struct host_output *o);

#endif

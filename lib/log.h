/* SPDX-License-Identifier: MIT */
/*
 * Error messages for users: "PROGRAM: error: message", one line on stderr.
 * The function and line a message comes from are shown only when asked for
 * (-v, --verbose, or REWIND_DEBUG=1): "PROGRAM: error: func:line: message".
 */
#ifndef REWIND_LOG_H
#define REWIND_LOG_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Who is speaking, and whether errors name their source location. */
struct rw_log_settings {
	const char *program; /* "rewind", "rewind-harness", ... */
	bool where;	     /* prefix messages with func:line */
};

/*
 * One instance per program, set once in main (rw_log_init); a weak
 * definition here, so every program and test that prints errors has it
 * without linking one more object.
 */
__attribute__((weak)) struct rw_log_settings rw_log = {"rewind", false};

/* Names the program in every message; where: show func:line (REWIND_DEBUG=1 too). */
static inline void rw_log_init(const char *program, bool where)
{
	const char *debug = getenv("REWIND_DEBUG");

	rw_log.program = program;
	rw_log.where = where || (debug && strcmp(debug, "1") == 0);
}

/*
 * The name a program speaks as: `rewind` runs its siblings (rewind-fuzz,
 * rewind-harness, ...) with argv[0] set to "rewind SUBCOMMAND", the words
 * the user typed; run directly, a program is its own name (fallback).
 */
static inline const char *rw_log_name(const char *argv0, const char *fallback)
{
	return argv0 && strncmp(argv0, "rewind ", 7) == 0 ? argv0 : fallback;
}

/* Prints one error line; err != 0 appends strerror(err). */
__attribute__((format(printf, 4, 5))) static inline void rw_log_error(const char *func, int line,
								      int err, const char *fmt, ...)
{
	char text[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (rw_log.where)
		fprintf(stderr, "%s: error: %s:%d: %s%s%s\n", rw_log.program, func, line, text,
			err ? ": " : "", err ? strerror(err) : "");
	else
		fprintf(stderr, "%s: error: %s%s%s\n", rw_log.program, text, err ? ": " : "",
			err ? strerror(err) : "");
}

/* Prints "PROGRAM: error: message". */
#define rw_err(fmt, ...) rw_log_error(__func__, __LINE__, 0, fmt, ##__VA_ARGS__)

/* Like rw_err, with strerror(err) appended; err is an errno value. */
#define rw_err_errno(err, fmt, ...) rw_log_error(__func__, __LINE__, (err), fmt, ##__VA_ARGS__)

#endif

/* Log macros: every message names the function and line it came from. */
#ifndef REWIND_LOG_H
#define REWIND_LOG_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Prints "rewind: error: func:line: message". */
#define rw_err(fmt, ...)                                                                           \
	do {                                                                                       \
		fprintf(stderr, "rewind: error: %s:%d: " fmt "\n", __func__, __LINE__,             \
			##__VA_ARGS__);                                                            \
	} while (0)

/* Like rw_err, with strerror(err) appended; err is an errno value. */
#define rw_err_errno(err, fmt, ...)                                                                \
	do {                                                                                       \
		int rw_err_saved_ = (err);                                                         \
		fprintf(stderr, "rewind: error: %s:%d: " fmt ": %s\n", __func__, __LINE__,         \
			##__VA_ARGS__, strerror(rw_err_saved_));                                   \
	} while (0)

#endif

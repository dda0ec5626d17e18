/* SPDX-License-Identifier: MIT */
/* The one-line reason a refused input gets (schedule/input_reason.h). */
#include "schedule/input_reason.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

/* Writes a one-line reason into why (if any) and returns -EINVAL. */
__attribute__((format(printf, 3, 4))) int input_reject(char *why, size_t why_len, const char *fmt,
						       ...)
{
	if (why && why_len) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

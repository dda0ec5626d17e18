/* SPDX-License-Identifier: MIT */
/*
 * Allocations that do not fail: out of memory is reported and aborts. For
 * code where every allocation is small and bounded (the shared objects a
 * program needs: image/elf_deps.c and the files it uses), so that no error
 * path is needed for it.
 */
#ifndef REWIND_XALLOC_H
#define REWIND_XALLOC_H

#include "lib/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* p, or (NULL) a message and abort. */
static inline void *check_alloc(void *p)
{
	if (!p) {
		rw_err("out of memory");
		abort();
	}
	return p;
}

static inline char *xstrdup(const char *s)
{
	return check_alloc(strdup(s));
}

__attribute__((format(printf, 1, 2))) static inline char *xasprintf(const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return check_alloc(n < 0 ? NULL : s);
}

#endif

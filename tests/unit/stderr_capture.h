/* SPDX-License-Identifier: MIT */
/*
 * Test helper: what the code under test writes to stderr, sent to a
 * temporary file between stderr_capture_begin and stderr_capture_end and
 * read back as a string there.
 */
#ifndef REWIND_TEST_STDERR_CAPTURE_H
#define REWIND_TEST_STDERR_CAPTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <cmocka.h>

struct stderr_capture {
	int saved;  /* the real stderr, put back by stderr_capture_end */
	FILE *file; /* where stderr goes meanwhile */
};

/* From here on, stderr goes to a temporary file. */
static inline void stderr_capture_begin(struct stderr_capture *c)
{
	c->saved = dup(STDERR_FILENO);
	c->file = tmpfile();
	assert_true(c->saved >= 0);
	assert_non_null(c->file);
	fflush(stderr);
	assert_true(dup2(fileno(c->file), STDERR_FILENO) >= 0);
}

/* stderr put back; what was written to it since begin in out, as a string cut to len bytes. */
static inline void stderr_capture_end(struct stderr_capture *c, char *out, size_t len)
{
	size_t n;

	fflush(stderr);
	assert_true(dup2(c->saved, STDERR_FILENO) >= 0);
	close(c->saved);
	rewind(c->file);
	n = fread(out, 1, len - 1, c->file);
	out[n] = '\0';
	fclose(c->file);
}

#endif

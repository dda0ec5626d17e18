/* SPDX-License-Identifier: MIT */
/*
 * Test helper for the tests that run shell command lines (tests/kvm/ and
 * tests/box/): a command's stdout and exit status, and a file's text (where
 * a test sent the command's stderr).
 */
#ifndef REWIND_TEST_COMMAND_OUTPUT_H
#define REWIND_TEST_COMMAND_OUTPUT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>

#include <cmocka.h>

/*
 * Runs cmd with sh -c: its stdout into out (at most len - 1 bytes, then a
 * NUL), its exit status into *status (-1 when it did not exit). Returns
 * the bytes read.
 */
static inline size_t command_output(const char *cmd, char *out, size_t len, int *status)
{
	FILE *p = popen(cmd, "r");
	size_t n;
	int raw;

	assert_non_null(p);
	n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	raw = pclose(p);
	*status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
	return n;
}

/* The first len - 1 bytes of the file at path into out, then a NUL. */
static inline void file_text(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	out[fread(out, 1, len - 1, f)] = '\0';
	fclose(f);
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Test helper for the end-to-end KVM tests: runs a shell command, capturing
 * its stdout, stderr and exit status. The including file defines DIR (its
 * scratch folder, created on demand), ERR_FILE (where stderr goes) and
 * HARNESS (the rewind-harness binary) first.
 */
#ifndef REWIND_TEST_SHELL_H
#define REWIND_TEST_SHELL_H

#include "tests/kvm/command_output.h"

#include <stdio.h>
#include <string.h>

struct run {
	int status;
	char out[16384], err[16384];
};

static void sh(const char *cmd, struct run *r)
{
	char full[9000];

	snprintf(full, sizeof(full), "mkdir -p " DIR " && { %s; } 2>" ERR_FILE, cmd);
	command_output(full, r->out, sizeof(r->out), &r->status);
	file_text(ERR_FILE, r->err, sizeof(r->err));
}

/* One of four run records, cleared: a test compares up to four runs at once. */
static struct run *new_run(void)
{
	static struct run runs[4];
	static unsigned int next;

	return memset(&runs[next++ % 4], 0, sizeof(runs[0]));
}

/* Writes the binary input at path from a mode ("steps", "counter", "pct") and JSON injections. */
static inline void write_mode_input(const char *path, const char *mode, const char *injections)
{
	char cmd[8192];
	struct run *r = new_run();

	snprintf(cmd, sizeof(cmd),
		 "printf '%%s' '{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"%s\","
		 "\"seed\":\"0x0\",\"injections\":[%s]}' >%s.json && " HARNESS
		 " --from-json %s.json -o %s",
		 mode, injections, path, path, path);
	sh(cmd, r);
	if (r->status != 0)
		fail_msg("cannot write the input %s (status %d)\n%s", path, r->status, r->err);
}

#endif

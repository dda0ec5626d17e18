/* SPDX-License-Identifier: MIT */
/*
 * Running Slurm's command-line tools (sbatch, scontrol, scancel) by fork/exec, never through
 * a shell, and capturing what they print; for explore/slurm.c.
 */
#ifndef REWIND_SLURM_TOOL_H
#define REWIND_SLURM_TOOL_H

#include <stdbool.h>
#include <stddef.h>

#define CAPTURE_MAX 4096

/* What a tool run printed and how it ended. */
struct capture {
	char out[CAPTURE_MAX], err[CAPTURE_MAX];
	size_t out_len, err_len;
	int status; /* exit status, or 128 + signal */
	/* called once, when stdout has a full line: sbatch --wait prints the job id, then waits */
	void (*on_line)(struct capture *c, void *ctx);
	void *ctx;
	bool line_seen;
};

/*
 * Runs argv (argv[0] looked up in PATH) to its end, capturing stdout and stderr into c (and
 * calling c->on_line, if set, at stdout's first full line); 0, or -1 with a message.
 */
int run_capture(char *const argv[], struct capture *c);

/* What a tool wrote to stderr, on one line without its trailing newline, for a message. */
const char *stderr_text(struct capture *c);

#endif

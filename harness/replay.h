/*
 * `rewind-harness --replay FILE`: runs a crash artifact (or a raw input,
 * such as a file from afl-fuzz's crashes/) again, prints the guest's output
 * and the outcome, and checks the run is the same: for an artifact, the
 * inputs it names, the outcome, its step and the trace hash; for a raw
 * input, a second run from the keyframe.
 */
#ifndef REWIND_REPLAY_H
#define REWIND_REPLAY_H

#include "harness/job.h"

#include <stdbool.h>

enum replay_status {
	REPLAY_SAME = 0,    /* reproduced exactly */
	REPLAY_DIFFERS = 1, /* ran, but something differs (said on stderr) */
	REPLAY_BAD_FILE = 2,
	REPLAY_SETUP = 64, /* the job could not be set up (no kernel, no KVM...) */
};

struct replay_options {
	struct harness_job *job; /* from the command line: the job of a raw input */
	const char *kernel;	 /* given on the command line: also replaces an artifact's */
	const char *initramfs;
	unsigned int repeat; /* run it this many times (0: once for an artifact, twice raw) */
};

/* Returns an enum replay_status. */
int replay_file(const char *path, const struct replay_options *opt);

#endif

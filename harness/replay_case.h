/* SPDX-License-Identifier: MIT */
/*
 * What a replay runs (harness/replay.h loads it): the job, the input and,
 * for an artifact, what it says happened. Its own header, so that a crash
 * bundle (harness/bundle.h), which the replay reads, can name it too.
 */
#ifndef REWIND_REPLAY_CASE_H
#define REWIND_REPLAY_CASE_H

#include "harness/artifact.h"
#include "harness/job.h"

#include <stdbool.h>

/* What to run: the job, the input and, for an artifact, what it says happened. */
struct replay_case {
	struct harness_job job;
	struct exec_input input;
	struct artifact_expect expect;
	bool is_artifact;
	bool job_changed; /* the command line changed the artifact's job */
	/* only --add changed it: unchanged if the guest sees the same files (replay_job_opened) */
	bool adds_only;
	char bundle[4096]; /* the bundle directory, or "" */
};

#endif

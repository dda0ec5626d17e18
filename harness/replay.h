/*
 * `rewind-harness --replay FILE`: runs a crash artifact, a crash bundle (a
 * directory from --bundle) or a raw input (such as a file from afl-fuzz's
 * crashes/) again, prints the guest's output and the outcome, and says
 * whether the failure reproduces: for an artifact, the inputs it names, the
 * outcome, its step and the trace hash must be the same; a raw input must
 * fail, and fail the same way when run again.
 *
 * An artifact is untrusted: the host paths it names (kernel, initramfs,
 * added files) are never opened unless the user says --trust. Without it
 * the kernel and initramfs are this checkout's (or --kernel/--initramfs),
 * and the added files come from a bundle (checked by content hash) or from
 * --add. Job options given with --replay change the artifact's job (a fix
 * to check): the replay says what changed and whether it still fails.
 */
#ifndef REWIND_REPLAY_H
#define REWIND_REPLAY_H

#include "harness/job.h"
#include "harness/replay_case.h"

#include <stdbool.h>

enum replay_status {
	REPLAY_SAME = 0,    /* reproduced (exactly, for an unchanged artifact) */
	REPLAY_DIFFERS = 1, /* ran, but does not reproduce or differs (said on stderr) */
	REPLAY_BAD_FILE = 2,
	REPLAY_SETUP = 64, /* the job could not be set up (no kernel, no KVM...) */
};

struct replay_options {
	struct harness_job *job;	  /* from the command line: the job of a raw input */
	const struct job_change *changes; /* job options of the command line, in order */
	size_t change_count;
	char *const *command; /* the command after --, or NULL */
	size_t command_len;
	bool trust;	     /* the artifact's host paths may be read */
	bool expect_fixed;   /* success is: the failure is gone */
	unsigned int repeat; /* run it this many times (0: once for an artifact, twice raw) */
};

/* Returns an enum replay_status. */
int replay_file(const char *path, const struct replay_options *opt);

/*
 * Loads what path names (artifact, bundle or raw input) as replay_file
 * does, without running it. REPLAY_SAME or REPLAY_BAD_FILE (reported);
 * free with replay_case_free either way.
 */
/*
 * Did the run end at the wall guard (a stalled host, not the job)? Says so.
 * Replays and explanations give no verdict then.
 */
bool replay_host_stalled(const struct exec_result *res);

int replay_load(const char *path, const struct replay_options *opt, struct replay_case *c);
void replay_case_free(struct replay_case *c);

/*
 * `--bundle FILE -o DIR`: replays the artifact (the paths it names are read
 * under the same rules as a replay) and, if it fails here, writes its bundle
 * into DIR. Returns an enum replay_status.
 */
int replay_bundle(const char *path, const struct replay_options *opt, const char *dir);

#endif

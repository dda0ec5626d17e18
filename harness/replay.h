/* SPDX-License-Identifier: MIT */
/*
 * `rewind replay FILE` (rewind-harness --replay FILE): runs a crash
 * artifact, a crash bundle (a directory from rewind bundle) or a raw input
 * (a file from afl-fuzz's crashes/) again, prints the guest's output and
 * the outcome, and gives a verdict: for an artifact, the inputs it names,
 * the outcome, its step and the trace hash must be the same, else it
 * differs; a raw input has no record, and must give the same run when run
 * again. Then it fails (the failure reproduces) or passes.
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

#include "harness/executor.h"
#include "harness/job.h"
#include "harness/replay_case.h"
#include "lib/exit_status.h"

#include <cjson/cJSON.h>
#include <stdbool.h>

/*
 * A replay's verdict: rewind replay's exit status (lib/exit_status.h,
 * docs/exit-status.md). REPLAY_OK is also what a step that went well
 * returns (replay_load).
 */
enum replay_status {
	REPLAY_OK = REWIND_EXIT_OK,	  /* runs as recorded and passes; --expect-fixed: passes */
	REPLAY_FAILS = REWIND_EXIT_FOUND, /* the failure reproduces; --expect-fixed: still fails */
	REPLAY_BAD_FILE = REWIND_EXIT_USAGE,  /* unreadable, not an artifact, untrusted; usage */
	REPLAY_SETUP = REWIND_EXIT_USAGE,     /* the job cannot start: no kernel, no KVM, command */
	REPLAY_DIFFERS = REWIND_EXIT_DIFFERS, /* not what the artifact recorded (said on stderr) */
	REPLAY_HOST = REWIND_EXIT_HOST,	      /* the host could not finish: KVM error, wall guard */
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
	bool raw;	     /* --raw: any bytes are an input, decoded as afl-fuzz's harness does */
	bool json; /* --json: the verdict as one JSON object on stdout, output on stderr */
};

/* Replays path (an artifact, a bundle or a raw input). Returns an enum replay_status. */
int replay_file(const char *path, const struct replay_options *opt);

/*
 * Loads what path names as replay_file does, without running it: a
 * bundle, a file that starts with '{' (it must be an artifact), one that
 * starts with the input magic "RWSI" (a raw input), any bytes with
 * opt->raw; anything else is refused. REPLAY_OK or REPLAY_BAD_FILE
 * (reported); free with replay_case_free either way.
 */
int replay_load(const char *path, const struct replay_options *opt, struct replay_case *c);
void replay_case_free(struct replay_case *c);

/*
 * Once the case's job is opened on ex: a job that only --add changed is
 * unchanged if the guest gets the very archive the artifact recorded (the
 * same bytes at the same guest paths), else changed (said either way). An
 * artifact replayed with its own job runs with the profile it recorded
 * (executor_use_profile), without profiling where the run's identity is
 * the artifact's (said in one line); a changed job (a fix to check)
 * profiles anew.
 */
void replay_job_opened(struct replay_case *c, const struct replay_options *opt,
		       struct executor *ex);

/*
 * Did the run end at the wall guard (a stalled host, not the job)? Says so.
 * Replays and explanations give no verdict then.
 */
bool replay_host_stalled(const struct exec_result *res);

/*
 * How res, the first run of an unchanged artifact's input on ex, differs
 * from what the artifact recorded (identity, outcome, step, trace): each
 * difference said on stderr. 0 for a raw input or a changed job.
 */
int replay_record_differences(const struct replay_case *c, const struct replay_options *opt,
			      const struct executor *ex, const struct exec_result *res);

/*
 * A verdict as JSON (docs/guide.md, "Replay"): format, version, file,
 * kind, job_changed, verdict, exit_status, same, outcome, detail,
 * job_status, signal, steps, trace, and for an artifact what it recorded.
 * NULL without memory.
 */
cJSON *replay_json(const char *format, const char *path, const struct replay_case *c,
		   const struct exec_result *res, int status);

/* Prints o on one line of stdout and frees it: REPLAY_OK or REPLAY_HOST (said). */
int replay_print_json(cJSON *o);

/*
 * `--bundle FILE -o DIR`: replays the artifact (the paths it names are read
 * under the same rules as a replay) and, if it fails here, writes its bundle
 * into DIR. Returns an enum replay_status.
 */
int replay_bundle(const char *path, const struct replay_options *opt, const char *dir);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * `rewind fuzz`: afl-fuzz on a job's schedules with rewind-harness as its
 * target, a progress line every 5 s, then a replay of the first failure.
 * The pieces: fuzz_main.c (the usage, the run from start to verdict),
 * fuzz_options.c (the command line and the job it names, checked before
 * anything is made), fuzz_setup.c (the tools, the output folder, the probe
 * run that picks the corpus), fuzz_afl.c (afl-fuzz started, watched,
 * stopped), fuzz_verdict.c (what the harness saw, and the replay),
 * fuzz_child.c (waiting for a child), fuzz_signal.c (the signals that stop
 * a run), fuzz_say.c (progress lines, errors and log tails).
 */
#ifndef REWIND_FUZZ_H
#define REWIND_FUZZ_H

#include "harness/job.h"
#include "lib/exit_status.h"
#include "lib/log.h"

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

/* Exit statuses (docs/exit-status.md): a setup error is never a pass. */
enum fuzz_status {
	FUZZ_NOTHING = REWIND_EXIT_OK,		   /* no failure within the time */
	FUZZ_FOUND = REWIND_EXIT_FOUND,		   /* a failure, and its replay is the same run */
	FUZZ_SETUP = REWIND_EXIT_USAGE,		   /* bad usage or setup: nothing started */
	FUZZ_REPLAY_DIFFERS = REWIND_EXIT_DIFFERS, /* a failure, but its replay differs */
	FUZZ_HOST = REWIND_EXIT_HOST		   /* afl-fuzz died, output lost, no replay */
};

#define FUZZ_MAX_AFL_OPTS 64

struct fuzz_options {
	unsigned int seconds;
	const char *out, *corpus;
	bool until_crash;    /* stop at the first failure (not --all) */
	bool mutator;	     /* Rewind's schedule mutator (not --no-mutator) */
	const char *sampler; /* --sampler: one sampler pinned; NULL: shared out by what paid */
	const char *afl_opts[FUZZ_MAX_AFL_OPTS];
	size_t afl_opt_count;
	struct harness_job job; /* the job options applied: checked before anything starts */
	bool job_files_named;	/* --kernel, --initramfs or --job: not the defaults */
	/* rewind-harness's options for the job (the job options, --map-size), in order */
	char **harness_opts;
	size_t harness_opt_count;
	char **command; /* CMD ARGS (after --) */
	size_t command_len;
};

/*
 * The command line into o, every value and file it names checked; nothing
 * is made or started. 0, FUZZ_SETUP (said), or -1 for --help (the caller prints it).
 */
int fuzz_parse_options(int argc, char **argv, struct fuzz_options *o);

/* The tools and folders one run uses. */
struct fuzz_paths {
	char harness[PATH_MAX], mutator[PATH_MAX], corpus[PATH_MAX], root[PATH_MAX];
	char out[PATH_MAX], progress[PATH_MAX + 16], artifacts[PATH_MAX + 16];
	char afl_log[PATH_MAX + 16], probe_log[PATH_MAX + 16];
};

/* Set by SIGINT, SIGTERM or SIGHUP: the signal's number. */
extern volatile sig_atomic_t fuzz_stop_signal;

/* Interrupt, termination and hang-up end the run, and its children, cleanly. */
void fuzz_catch_stop_signals(void);

/* Says which signal stopped the run; 128 + its number, the exit status. */
int fuzz_stopped_status(void);

/* Prints "NAME: error: ..." (NAME: what the user typed, "rewind fuzz"); FUZZ_SETUP. */
#define fuzz_die(fmt, ...)                                                                         \
	({                                                                                         \
		rw_err(fmt, ##__VA_ARGS__);                                                        \
		FUZZ_SETUP;                                                                        \
	})

/* Prints "NAME: error: ..." for what the host could not finish; FUZZ_HOST. */
#define fuzz_host_error(fmt, ...)                                                                  \
	({                                                                                         \
		rw_err(fmt, ##__VA_ARGS__);                                                        \
		FUZZ_HOST;                                                                         \
	})

/* Prints "NAME: " and the line: a progress or result line of the run. */
__attribute__((format(printf, 1, 2))) void fuzz_say(const char *fmt, ...);

/*
 * Checks --corpus and --out, finds the tools, checks /dev/kvm; then makes
 * the empty output folder.
 */
int fuzz_setup(const struct fuzz_options *o, struct fuzz_paths *p);

/*
 * One run of the job first: a job that does not run is a setup error,
 * never "no bug found". Without --corpus, the job's kind picks the corpus
 * (does it start Rewind's runtime?). 0, or an exit status.
 */
int fuzz_probe(const struct fuzz_options *o, struct fuzz_paths *p);

/*
 * Waits for pid, saying every 15 s that it still runs (what: "the probe
 * run"); on a stop signal, ends it. Its wait status, or -1.
 */
int fuzz_wait_child(pid_t pid, const char *what);

/* Runs afl-fuzz until it stops, a progress line every 5 s. 0, or an exit status. */
int fuzz_run_afl(const struct fuzz_options *o, const struct fuzz_paths *p);

/* What rewind-harness --progress wrote so far. */
struct fuzz_progress {
	unsigned long long execs, failures, answered;
	unsigned long long first_execution; /* of the first failure; 0: none */
	char first_artifact[PATH_MAX];	    /* its artifact ("" if none was written) */
};

/* Reads the harness's progress file: 0, or -1 if it is not there (yet) or unreadable. */
int fuzz_read_progress(const char *path, struct fuzz_progress *pr);

/*
 * After afl-fuzz ended with wait status status (-1: unknown): its numbers,
 * or why it failed. 0; FUZZ_SETUP when it failed before the job's first
 * execution, FUZZ_HOST when it died later, before the harness saw a failure.
 */
int fuzz_afl_ended(const struct fuzz_paths *p, int status);

/* What the harness saw: the first failure, replayed; the run's exit status. */
int fuzz_verdict(const struct fuzz_options *o, const struct fuzz_paths *p);

/* The last lines of a log, on stderr. */
void fuzz_tail(const char *log, unsigned int lines);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * rewind-harness's command line as harness/main.c parses it, and what its
 * front-ends (harness/cmd_*.c) share: the exit statuses, the harness a
 * command line sets up, the note about a decoded input.
 */
#ifndef REWIND_CLI_H
#define REWIND_CLI_H

#include "harness/harness.h"
#include "harness/replay.h"
#include "lib/exit_status.h"
#include "vmm/counter.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * rewind-harness's exit statuses (the usage's "Exit status";
 * lib/exit_status.h, docs/exit-status.md), which every mode shares: a
 * replay's (enum replay_status) are the same numbers.
 */
enum cli_status {
	STATUS_OK = REWIND_EXIT_OK,	     /* the job passes; --random: no failure found */
	STATUS_FOUND = REWIND_EXIT_FOUND,    /* the job fails; --random: a failure found */
	STATUS_BAD_FILE = REWIND_EXIT_USAGE, /* unreadable, invalid or untrusted file; usage */
	STATUS_SETUP = REWIND_EXIT_USAGE,    /* the job or the input's mode cannot be set up */
	STATUS_HOST = REWIND_EXIT_HOST,	     /* the host could not finish; output not written */
};

#define INPUT_FILE_MAX	(16u << 20) /* inputs and JSON files are a few KiB */
#define CLI_MAX_FILES	64
#define CLI_MAX_CHANGES (RUN_MAX_ADDS + 16)

enum mode {
	MODE_RUN,
	MODE_REPLAY,
	MODE_TO_JSON,
	MODE_FROM_JSON,
	MODE_RANDOM,
	MODE_EXPLAIN,
	MODE_BUNDLE
};

struct cli {
	enum mode mode;
	const char *word; /* "replay", "explain", "bundle": `rewind WORD` (NULL: options only) */
	const char *file; /* the input, artifact or JSON file */
	const char *output;
	const char *trace_path; /* one-shot run: write the event trace here */
	/* one-shot run: write its schedule events here (--event-log), kept in event_log */
	const char *event_log_path;
	struct vm_event_log event_log;
	const char *artifact_dir;
	const char *progress_path; /* --progress FILE */
	size_t map_size;
	uint64_t random_execs, random_seed; /* --random: the baseline search */
	uint64_t random_seconds;	    /* --seconds: its time budget (0: none) */
	bool random_keep_going;		    /* --keep-going: on past failures, all N run */
	uint8_t random_mode;
	/* --walk: walks (pct mode's walk flag), not PCT samples */
	bool random_walk;
	/* --mix: walks WALK_SHARE_START in 1024, PCT samples the rest */
	bool random_mix;
	uint64_t repeat; /* --replay: run it this many times */
	bool trust;	 /* --trust: a replay may read the host paths an artifact names */
	bool json;	 /* --json: a run's outcome, a replay's or explanation's verdict */
	bool raw;	 /* --raw: a replay's file is afl-fuzz's raw input, whatever its bytes */
	bool version;	 /* --version */
	bool expect_fixed;
	struct harness_job job;
	/* the job options as given, in order: a replay applies them over an artifact's job */
	struct job_change changes[CLI_MAX_CHANGES];
	size_t change_count;
	const char *files[CLI_MAX_FILES]; /* arguments that are not options: INPUT, more replays */
	size_t file_count;
	char **command; /* after --, or NULL */
	size_t command_len;
};

/* Opens h's executor for c's job, the guest's output to output (NULL: none). 0 or -errno. */
int cli_open_harness(struct harness *h, struct cli *c, FILE *output);

/*
 * cli_open_harness in its three steps, for the forkserver, which says hello
 * to afl-fuzz before the boot: c's settings into h; the quick checks and
 * inputs (executor_prepare); the boot. 0 or -errno (reported).
 */
void cli_harness_settings(struct harness *h, const struct cli *c);
int cli_prepare_harness(struct harness *h, struct cli *c, FILE *output);
int cli_boot_harness(struct harness *h, const struct cli *c);

/* Says on stderr when the bytes at path are not in the documented format (they are decoded). */
void cli_say_if_decoded(const char *path, const uint8_t *data, size_t len, const char *doing);

#endif

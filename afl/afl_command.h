/* SPDX-License-Identifier: MIT */
/*
 * The afl-fuzz command line and environment that `rewind fuzz`
 * (harness/fuzz/fuzz_afl.c) and a night's workers (explore/worker.c) start:
 * one builder, so both run afl-fuzz with the same settings.
 */
#ifndef REWIND_AFL_COMMAND_H
#define REWIND_AFL_COMMAND_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* The most arguments the command has (afl-fuzz's, the harness's, the job's command). */
#define AFL_COMMAND_MAX_ARGS 1024
#define AFL_COMMAND_MAX_ENV  24
/* ms afl-fuzz waits for the harness's hello (before the boot) unless AFL_FORKSRV_INIT_TMOUT says */
#define AFL_INIT_TIMEOUT_MS   120000ul
#define AFL_TIMEOUT_MS	      10000ul /* -t: an execution's time, at least */
#define AFL_TIMEOUT_MARGIN_MS 5000ul  /* -t over the job's --wall-ms */

/* What one afl-fuzz run is given. */
struct afl_run {
	unsigned int seconds;	     /* -V */
	const char *corpus;	     /* -i */
	const char *out;	     /* -o: the sync folder */
	const char *instance;	     /* -M or -S NAME; NULL: neither (afl's "default") */
	bool main_instance;	     /* -M (not -S) */
	const char *const *afl_opts; /* more afl-fuzz options, before -- */
	size_t afl_opt_count;
	const char *harness; /* rewind-harness */
	const char *artifacts, *progress;
	const char *const *harness_opts; /* the job's options for rewind-harness */
	size_t harness_opt_count;
	const char *const *command; /* CMD ARGS (after the harness's --); NULL: none */
	size_t command_len;
	const char *mutator; /* the schedule mutator's library; NULL: afl's own mutations */
	bool until_crash;    /* AFL_BENCH_UNTIL_CRASH */
	bool resume;	     /* AFL_AUTORESUME: a restarted run continues its queue */
	const char *sampler; /* REWIND_MUTATOR_SAMPLER: one sampler pinned; NULL: none */
};

/* The command: argv and env ("NAME=VALUE", both NULL ended) for spawn_start. */
struct afl_command {
	char *argv[AFL_COMMAND_MAX_ARGS + 1];
	const char *env[AFL_COMMAND_MAX_ENV + 1];
	size_t argc, envc;
	char seconds[16], timeout[24], init_tmout[64], mutator[PATH_MAX + 40],
		progress[PATH_MAX + 40], sampler[48];
};

/*
 * Builds the command for r into c (r's strings are pointed at, not copied):
 *   afl-fuzz -V S -t T+ -m none -i CORPUS -o OUT [-M|-S NAME] AFL-OPTS --
 *   rewind-harness --artifacts A --progress P HARNESS-OPTS @@ [-- CMD ARGS]
 * (T: AFL_TIMEOUT_MS, or the job's --wall-ms plus AFL_TIMEOUT_MARGIN_MS)
 * 0, or -1 (said) when it has more than AFL_COMMAND_MAX_ARGS arguments.
 */
int afl_command_build(const struct afl_run *r, struct afl_command *c);

/* ms afl-fuzz waits for the harness's hello: AFL_FORKSRV_INIT_TMOUT if set, else the default. */
unsigned long afl_init_timeout_ms(void);

#endif

/* SPDX-License-Identifier: MIT */
/* The afl-fuzz command line and environment of `rewind fuzz` and a night's workers. */
#include "afl/afl_command.h"

#include "lib/log.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * afl-fuzz without root tweaks (no CPU governor or core_pattern checks, no
 * CPU binding, a plain progress line, not the curses screen); each new
 * entry calibrated 3 times, not 8 (the target is deterministic, and the
 * harness answers those re-runs from its outcome cache); no calibration of
 * the seeds at startup; no trimming (a schedule is a few records, and
 * failures while trimming would be discarded); on past a seed that fails.
 */
static const char *const AFL_SETTINGS[] = {
	"AFL_NO_UI=1",	      "AFL_SKIP_CPUFREQ=1",
	"AFL_NO_AFFINITY=1",  "AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1",
	"AFL_FAST_CAL=1",     "AFL_DISABLE_TRIM=1",
	"AFL_SKIP_CRASHES=1", "AFL_NO_STARTUP_CALIBRATION=1",
};
#define AFL_SETTING_COUNT (sizeof(AFL_SETTINGS) / sizeof(AFL_SETTINGS[0]))

/* Appends arg; false when argv is full. */
static bool push(struct afl_command *c, const char *arg)
{
	if (c->argc >= AFL_COMMAND_MAX_ARGS)
		return false;
	c->argv[c->argc++] = (char *)arg;
	c->argv[c->argc] = NULL;
	return true;
}

static bool push_all(struct afl_command *c, const char *const *args, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!push(c, args[i]))
			return false;
	return true;
}

/* The env list is sized for every setting below: no bound to check at run time. */
static void push_env(struct afl_command *c, const char *setting)
{
	c->env[c->envc++] = setting;
	c->env[c->envc] = NULL;
}

unsigned long afl_init_timeout_ms(void)
{
	const char *v = getenv("AFL_FORKSRV_INIT_TMOUT");
	unsigned long ms = v ? strtoul(v, NULL, 10) : 0;

	return ms ? ms : AFL_INIT_TIMEOUT_MS;
}

static void settings(const struct afl_run *r, struct afl_command *c)
{
	_Static_assert(AFL_SETTING_COUNT + 7 <= AFL_COMMAND_MAX_ENV, "afl env list too short");
	for (size_t i = 0; i < AFL_SETTING_COUNT; i++)
		push_env(c, AFL_SETTINGS[i]);
	/* the user's value wins: a loaded machine boots the guest more slowly */
	snprintf(c->init_tmout, sizeof(c->init_tmout), "AFL_FORKSRV_INIT_TMOUT=%lu",
		 afl_init_timeout_ms());
	push_env(c, c->init_tmout);
	if (r->until_crash)
		push_env(c, "AFL_BENCH_UNTIL_CRASH=1");
	if (r->resume)
		push_env(c, "AFL_AUTORESUME=1");
	/* with the schedule mutator, only its mutants: afl's byte-level havoc
	 * makes mostly inputs the harness must repair */
	if (r->mutator) {
		snprintf(c->mutator, sizeof(c->mutator), "AFL_CUSTOM_MUTATOR_LIBRARY=%s",
			 r->mutator);
		push_env(c, c->mutator);
		push_env(c, "AFL_CUSTOM_MUTATOR_ONLY=1");
		if (r->sampler) {
			snprintf(c->sampler, sizeof(c->sampler), "REWIND_MUTATOR_SAMPLER=%.16s",
				 r->sampler);
			push_env(c, c->sampler);
		}
	}
	/* the mutator reads the job's profiled event count from the harness's
	 * progress file, to move change points by whole events */
	snprintf(c->progress, sizeof(c->progress), "REWIND_PROGRESS_FILE=%s", r->progress);
	push_env(c, c->progress);
}

/*
 * afl-fuzz's -t: longer than the job's own wall budget (--wall-ms among the
 * harness's options), so that the harness ends a long execution as its
 * timeout and afl-fuzz never kills it first; 10 s at least.
 */
static unsigned long afl_timeout_ms(const struct afl_run *r)
{
	unsigned long t = AFL_TIMEOUT_MS;

	for (size_t i = 0; i < r->harness_opt_count; i++) {
		const char *o = r->harness_opts[i], *v = NULL;
		char *end;
		unsigned long ms;

		if (!o)
			continue;
		if (!strcmp(o, "--wall-ms") && i + 1 < r->harness_opt_count)
			v = r->harness_opts[i + 1];
		else if (!strncmp(o, "--wall-ms=", 10))
			v = o + 10;
		if (!v)
			continue;
		ms = strtoul(v, &end, 10);
		if (!*end && ms < ULONG_MAX - AFL_TIMEOUT_MARGIN_MS &&
		    ms + AFL_TIMEOUT_MARGIN_MS > t)
			t = ms + AFL_TIMEOUT_MARGIN_MS;
	}
	return t;
}

static bool arguments(const struct afl_run *r, struct afl_command *c)
{
	const char *const head[] = {"afl-fuzz", "-V", c->seconds, "-t", c->timeout, "-m",
				    "none",	"-i", r->corpus,  "-o", r->out};
	const char *const target[] = {"--",	    r->harness,	  "--artifacts",
				      r->artifacts, "--progress", r->progress};

	snprintf(c->seconds, sizeof(c->seconds), "%u", r->seconds);
	snprintf(c->timeout, sizeof(c->timeout), "%lu+", afl_timeout_ms(r));
	if (!push_all(c, head, sizeof(head) / sizeof(head[0])))
		return false;
	if (r->instance && !(push(c, r->main_instance ? "-M" : "-S") && push(c, r->instance)))
		return false;
	if (!push_all(c, r->afl_opts, r->afl_opt_count) ||
	    !push_all(c, target, sizeof(target) / sizeof(target[0])) ||
	    !push_all(c, r->harness_opts, r->harness_opt_count) || !push(c, "@@"))
		return false;
	if (r->command && !(push(c, "--") && push_all(c, r->command, r->command_len)))
		return false;
	return true;
}

int afl_command_build(const struct afl_run *r, struct afl_command *c)
{
	c->argc = c->envc = 0;
	c->argv[0] = NULL;
	c->env[0] = NULL;
	if (!arguments(r, c)) {
		rw_err("the afl-fuzz command has more than %d arguments", AFL_COMMAND_MAX_ARGS);
		return -1;
	}
	settings(r, c);
	return 0;
}

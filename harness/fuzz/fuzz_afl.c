/* SPDX-License-Identifier: MIT */
/* `rewind fuzz`'s afl-fuzz: its command and settings, started, watched, stopped. */
#include "harness/fuzz/fuzz.h"

#include "reports/afl_queue.h"
#include "reports/spawn.h"
#include "vmm/host_time.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROGRESS_EVERY_S 5.0
/* afl-fuzz stops by itself at -V; past this much more (and the boot), it is stopped */
#define OVERSTAY_S 120.0

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

struct afl_command {
	char *argv[FUZZ_MAX_AFL_OPTS + 64];
	const char *env[AFL_SETTING_COUNT + 8];
	char seconds[16], init_tmout[64], mutator[PATH_MAX + 40], progress[PATH_MAX + 40];
	size_t argc, envc;
};

static void push(struct afl_command *c, const char *arg)
{
	c->argv[c->argc++] = (char *)arg;
	c->argv[c->argc] = NULL;
}

static void push_env(struct afl_command *c, const char *setting)
{
	c->env[c->envc++] = setting;
	c->env[c->envc] = NULL;
}

/* ms afl-fuzz waits for the harness's hello (which comes before the boot) */
static unsigned long init_timeout_ms(void)
{
	const char *v = getenv("AFL_FORKSRV_INIT_TMOUT");
	unsigned long ms = v ? strtoul(v, NULL, 10) : 0;

	return ms ? ms : 120000;
}

static void settings(const struct fuzz_options *o, const struct fuzz_paths *p,
		     struct afl_command *c)
{
	for (size_t i = 0; i < AFL_SETTING_COUNT; i++)
		push_env(c, AFL_SETTINGS[i]);
	snprintf(c->init_tmout, sizeof(c->init_tmout), "AFL_FORKSRV_INIT_TMOUT=%lu",
		 init_timeout_ms());
	push_env(c, c->init_tmout);
	if (o->until_crash)
		push_env(c, "AFL_BENCH_UNTIL_CRASH=1");
	/* with the schedule mutator, only its mutants: afl's byte-level havoc
	 * makes mostly inputs the harness must repair */
	if (o->mutator) {
		snprintf(c->mutator, sizeof(c->mutator), "AFL_CUSTOM_MUTATOR_LIBRARY=%s",
			 p->mutator);
		push_env(c, c->mutator);
		push_env(c, "AFL_CUSTOM_MUTATOR_ONLY=1");
	}
	/* the mutator reads the job's profiled event count from the harness's
	 * progress file, to move change points by whole events */
	snprintf(c->progress, sizeof(c->progress), "REWIND_PROGRESS_FILE=%s", p->progress);
	push_env(c, c->progress);
}

/*
 * afl-fuzz -V S -t 10000+ -m none -i CORPUS -o OUT AFL-OPTS -- rewind-harness
 * --artifacts OUT/artifacts --progress OUT/progress.json JOB-OPTIONS @@
 * [-- CMD ARGS]
 */
static void afl_command(const struct fuzz_options *o, const struct fuzz_paths *p,
			struct afl_command *c)
{
	snprintf(c->seconds, sizeof(c->seconds), "%u", o->seconds);
	for (const char *const *a = (const char *const[]){"afl-fuzz", "-V", c->seconds, "-t",
							  "10000+", "-m", "none", "-i", NULL};
	     *a; a++)
		push(c, *a);
	push(c, p->corpus);
	push(c, "-o");
	push(c, p->out);
	for (size_t i = 0; i < o->afl_opt_count; i++)
		push(c, o->afl_opts[i]);
	push(c, "--");
	push(c, p->harness);
	push(c, "--artifacts");
	push(c, p->artifacts);
	push(c, "--progress");
	push(c, p->progress);
	for (size_t i = 0; i < o->harness_opt_count; i++)
		push(c, o->harness_opts[i]);
	push(c, "@@");
	if (o->command)
		push(c, "--");
	for (size_t i = 0; o->command && i < o->command_len; i++)
		push(c, o->command[i]);
	settings(o, p, c);
}

/* One progress line: the harness's count (every 2 s) and afl's corpus. */
static void print_progress(const struct fuzz_paths *p, double elapsed)
{
	struct fuzz_progress pr;
	char instance[PATH_MAX + 16];

	snprintf(instance, sizeof(instance), "%s/default", p->out);
	if (fuzz_read_progress(p->progress, &pr)) {
		fuzz_say("%4.0fs  afl-fuzz is starting the job (a guest boots first)\n", elapsed);
		return;
	}
	fuzz_say("%4.0fs  execs %llu  failures %llu  corpus %u  re-runs answered %llu\n", elapsed,
		 pr.execs, pr.failures, afl_queue_entries(instance), pr.answered);
}

/* Stops afl-fuzz: SIGINT (it stops its target and saves its state), SIGKILL after 20 s. */
static void stop_afl(pid_t pid, int *sent, double *deadline)
{
	kill(pid, *sent ? SIGKILL : SIGINT);
	(*sent)++;
	*deadline = host_time_seconds() + 20;
}

/* Waits for afl-fuzz with a progress line every 5 s. Its wait status, or -1. */
static int watch_afl(const struct fuzz_options *o, const struct fuzz_paths *p, pid_t pid)
{
	double start = host_time_seconds(), next = start + PROGRESS_EVERY_S;
	double deadline = start + o->seconds + init_timeout_ms() / 1000.0 + OVERSTAY_S;
	int status, sent = 0;

	for (;;) {
		pid_t got = waitpid(pid, &status, WNOHANG);
		double now = host_time_seconds();

		if (got == pid)
			break;
		if (got < 0 && errno != EINTR) {
			rw_err_errno(errno, "cannot wait for afl-fuzz");
			kill(pid, SIGKILL);
			return -1;
		}
		if (now >= next) {
			print_progress(p, now - start);
			next += PROGRESS_EVERY_S;
		}
		if (sent < 2 && (fuzz_stop_signal || now > deadline)) {
			if (!fuzz_stop_signal && !sent)
				fuzz_say("afl-fuzz overstayed its %u s: stopping it\n", o->seconds);
			stop_afl(pid, &sent, &deadline);
		}
		usleep(100 * 1000);
	}
	print_progress(p, host_time_seconds() - start); /* the last count, as the run ended */
	return status;
}

int fuzz_run_afl(const struct fuzz_options *o, const struct fuzz_paths *p)
{
	static struct afl_command c;
	pid_t pid;

	if (fuzz_stop_signal)
		return 0;
	c.argc = c.envc = 0;
	afl_command(o, p, &c);
	fuzz_say("fuzzing for at most %us:", o->seconds);
	for (size_t i = 0; i < c.argc; i++)
		fprintf(stderr, " %s", c.argv[i]);
	fputc('\n', stderr);
	pid = spawn_start(c.argv, c.env, p->afl_log);
	if (pid < 0)
		return FUZZ_HOST;
	return fuzz_afl_ended(p, watch_afl(o, p, pid));
}

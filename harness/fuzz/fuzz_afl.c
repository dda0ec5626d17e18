/* SPDX-License-Identifier: MIT */
/* `rewind fuzz`'s afl-fuzz: its command and settings, started, watched, stopped. */
#include "harness/fuzz/fuzz.h"

#include "afl/afl_command.h"
#include "afl/afl_queue.h"
#include "lib/host_time.h"
#include "lib/spawn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROGRESS_EVERY_S 5.0
/* afl-fuzz stops by itself at -V; past this much more (and the boot), it is stopped */
#define OVERSTAY_S 120.0

/* The afl-fuzz command for o (afl/afl_command.c). 0, or -1 (said). */
static int afl_command(const struct fuzz_options *o, const struct fuzz_paths *p,
		       struct afl_command *c)
{
	const struct afl_run r = {
		.seconds = o->seconds,
		.corpus = p->corpus,
		.out = p->out,
		.afl_opts = o->afl_opts,
		.afl_opt_count = o->afl_opt_count,
		.harness = p->harness,
		.artifacts = p->artifacts,
		.progress = p->progress,
		.harness_opts = (const char *const *)o->harness_opts,
		.harness_opt_count = o->harness_opt_count,
		.command = (const char *const *)o->command,
		.command_len = o->command_len,
		.mutator = o->mutator ? p->mutator : NULL,
		.until_crash = o->until_crash,
		.sampler = o->sampler,
	};

	return afl_command_build(&r, c);
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
	double deadline = start + o->seconds + afl_init_timeout_ms() / 1000.0 + OVERSTAY_S;
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
	if (afl_command(o, p, &c)) /* a command line too long: the user's to shorten */
		return FUZZ_SETUP;
	fuzz_say("fuzzing for at most %us:", o->seconds);
	for (size_t i = 0; i < c.argc; i++)
		fprintf(stderr, " %s", c.argv[i]);
	fputc('\n', stderr);
	pid = spawn_start(c.argv, c.env, p->afl_log);
	if (pid < 0)
		return FUZZ_HOST;
	return fuzz_afl_ended(p, watch_afl(o, p, pid));
}

/* SPDX-License-Identifier: MIT */
/* One worker: afl-fuzz on each of its tests in turn, a result file for each. */
#include "explore/worker.h"

#include "afl/afl_command.h"
#include "afl/afl_queue.h"
#include "explore/progress.h"
#include "lib/file.h"
#include "lib/host_time.h"
#include "lib/json_file.h"
#include "lib/spawn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RESULT_FILE_MAX (64u << 10)
/* afl-fuzz has booted the guest and stopped within this much more than its -V (at
 * the default AFL_FORKSRV_INIT_TMOUT) */
#define AFL_GRACE_S    180
#define SAMPLE_EVERY_S 5.0

/* Where a worker's samples of one test come from and go. */
struct sampler {
	const char *progress, *instance;
	char samples[PATH_MAX + 32];
	double offset; /* seconds this test ran before (a resumed night) */
};

/* How afl-fuzz on a test ended, as wait_afl saw it. */
struct afl_end {
	int status;		      /* its wait status, or -1 */
	bool stopped;		      /* by a signal to the night */
	struct harness_counts counts; /* the harness's, at the last sample */
};

static double stat_field(const char *stats, const char *key)
{
	const char *p = stats;
	size_t n = strlen(key);

	while ((p = strstr(p, key))) {
		if ((p == stats || p[-1] == '\n') && (p[n] == ' ' || p[n] == ':')) {
			const char *colon = strchr(p, ':');

			return colon ? strtod(colon + 1, NULL) : 0;
		}
		p += n;
	}
	return 0;
}

/* The instance's final numbers from afl's fuzzer_stats (written when it stops). */
static void read_afl_stats(const char *instance_dir, struct worker_result *r)
{
	char path[2 * PATH_MAX];
	uint8_t *data;
	size_t len;

	snprintf(path, sizeof(path), "%s/fuzzer_stats", instance_dir);
	if (access(path, R_OK) || file_read_max(path, RESULT_FILE_MAX, "afl stats", &data, &len))
		return;
	data[len ? len - 1 : 0] = 0;
	r->execs = stat_field((char *)data, "execs_done");
	r->exec_per_s = stat_field((char *)data, "execs_per_sec");
	r->edges = stat_field((char *)data, "edges_found");
	r->crashes = stat_field((char *)data, "saved_crashes");
	free(data);
}

/* One test's afl-fuzz: the command (afl/afl_command.c) and the paths it names. */
struct worker_afl {
	struct afl_command cmd;
	char sync[PATH_MAX + 8], name[32], artifacts[PATH_MAX + 16];
	char progress[PATH_MAX + 32], corpus[PATH_MAX + 16];
};

/*
 * The corpus a test's mode starts from: corpus/pct, corpus/ledger (steps),
 * or corpus/counter beside corpus/pct (night.json names the first two).
 */
static const char *mode_corpus(const struct night_tools *tools, enum suite_mode mode, char *buf,
			       size_t len)
{
	const char *slash = strrchr(tools->corpus_pct, '/');

	if (mode == SUITE_MODE_STEPS)
		return tools->corpus_ledger;
	if (mode == SUITE_MODE_PCT || !slash)
		return tools->corpus_pct;
	snprintf(buf, len, "%.*s/counter", (int)(slash - tools->corpus_pct), tools->corpus_pct);
	return buf;
}

/*
 * afl-fuzz -V S -t 10000+ -m none -i CORPUS -o TEST/afl -M|-S worker-K --
 * rewind-harness --artifacts TEST/artifacts ARGS @@ -- COMMAND; a worker
 * restarted on an interrupted test continues its queue. 0, or -1 (said).
 */
static int afl_command(const struct night *n, const struct suite_test *t, unsigned int k,
		       unsigned int seconds, struct worker_afl *c)
{
	struct afl_run r = {
		.seconds = seconds,
		.out = c->sync,
		.instance = c->name,
		.main_instance = n->layout == LAYOUT_TESTS || k == 0,
		.harness = n->tools.harness,
		.artifacts = c->artifacts,
		.progress = c->progress,
		.harness_opts = (const char *const *)t->args,
		.harness_opt_count = t->arg_count,
		/* "--" even before no command: the harness's default job */
		.command =
			t->command ? (const char *const *)t->command : (const char *const[]){NULL},
		.command_len = t->command_len,
		.mutator = n->tools.mutator,
		.resume = true,
	};

	night_test_path(n, t->name, "afl", c->sync, sizeof(c->sync));
	night_test_path(n, t->name, "artifacts", c->artifacts, sizeof(c->artifacts));
	snprintf(c->name, sizeof(c->name), WORKER_PROGRESS_FMT, k);
	night_test_path(n, t->name, c->name, c->progress, sizeof(c->progress));
	snprintf(c->name, sizeof(c->name), "worker-%u", k);
	r.corpus = mode_corpus(&n->tools, t->mode, c->corpus, sizeof(c->corpus));
	return afl_command_build(&r, &c->cmd);
}

/* Copies text without terminal escape sequences (afl-fuzz colours its messages). */
static void strip_escapes(const char *text, size_t n, char *out, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 1 < len; i++) {
		if (text[i] == '\033') {
			while (i + 1 < n && !((text[i + 1] >= 'A' && text[i + 1] <= 'Z') ||
					      (text[i + 1] >= 'a' && text[i + 1] <= 'z')))
				i++;
			i++;
			continue;
		}
		if (text[i] != '\n' && text[i] != '\r')
			out[o++] = text[i];
	}
	out[o] = 0;
}

/* Why afl-fuzz stopped (its "PROGRAM ABORT" line, else its last line), for a failed test. */
static void afl_failure(const char *log, char *out, size_t len)
{
	uint8_t *data;
	size_t n;
	const char *line, *end;
	char why[160];

	snprintf(out, len, "afl-fuzz failed (log: %.120s)", log);
	if (file_read_max(log, 64u << 20, "afl log", &data, &n))
		return;
	line = memmem(data, n, "PROGRAM ABORT :", 15);
	if (line) {
		line += 15;
	} else {
		end = (const char *)data + n;
		while (end > (const char *)data && (end[-1] == '\n' || end[-1] == ' '))
			end--;
		line = memrchr(data, '\n', (size_t)(end - (const char *)data));
		line = line ? line + 1 : (const char *)data;
	}
	end = memchr(line, '\n', n - (size_t)(line - (const char *)data));
	strip_escapes(line, end ? (size_t)(end - line) : strlen(line), why, sizeof(why));
	snprintf(out, len, "afl-fuzz stopped: %.100s (log: %.120s)", why, log);
	free(data);
}

/*
 * Appends a sample to TEST/samples-K.tsv: seconds, executions and failures
 * (the harness's --progress), corpus entries, edges (afl's, once it reports
 * them: its plot_data starts after a minute). The finishing step reads these.
 */
static void take_sample(const struct sampler *sm, double t, struct harness_counts *c)
{
	struct plot_row last;
	FILE *f;

	progress_read_counts(sm->progress, c);
	progress_last_row(sm->instance, &last);
	f = fopen(sm->samples, "a");
	if (!f)
		return;
	fprintf(f, "%.1f\t%llu\t%llu\t%u\t%.0f\n", t, c->execs, c->failures,
		afl_queue_entries(sm->instance), last.edges);
	fclose(f);
}

/* Has every run so far ended in the test's skip status? */
static bool skips_only(const struct harness_counts *c)
{
	return c->execs > 0 && c->skips == c->execs;
}

/*
 * Waits for afl-fuzz, stopping it on *stop, when it overstays, or when its
 * first WORKER_SKIP_RUNS runs all skipped (the test does not run here).
 */
static void wait_afl(pid_t pid, unsigned int seconds, const struct sampler *sm,
		     volatile const sig_atomic_t *stop, struct afl_end *end)
{
	/* a longer AFL_FORKSRV_INIT_TMOUT (a loaded host boots slowly) stretches the grace */
	double init_s = afl_init_timeout_ms() / 1000.0;
	double grace = init_s + 60 > AFL_GRACE_S ? init_s + 60 : AFL_GRACE_S;
	double start = host_time_seconds(), deadline = start + seconds + grace;
	double next_sample = start + SAMPLE_EVERY_S;
	int status, sent = 0;

	for (;;) {
		pid_t got = waitpid(pid, &status, WNOHANG);
		bool skipping = false;

		if (got == pid) {
			take_sample(sm, sm->offset + host_time_seconds() - start, &end->counts);
			end->status = status;
			return;
		}
		if (host_time_seconds() >= next_sample) {
			take_sample(sm, sm->offset + host_time_seconds() - start, &end->counts);
			next_sample += SAMPLE_EVERY_S;
			skipping = !sent && end->counts.execs >= WORKER_SKIP_RUNS &&
				   skips_only(&end->counts);
		}
		if (got < 0 && errno != EINTR) {
			end->status = -1;
			return;
		}
		if ((*stop || skipping || host_time_seconds() > deadline) && sent < 2) {
			/* afl-fuzz saves its state on SIGINT; SIGKILL if it does not stop */
			kill(pid, sent ? SIGKILL : SIGINT);
			end->stopped = end->stopped || *stop;
			deadline = host_time_seconds() + 30;
			sent++;
		}
		usleep(200 * 1000);
	}
}

/* afl-fuzz -V left on t for k: its seconds, less what an interrupted run of it used. */
static int fuzz_test(const struct night *n, const struct suite_test *t, unsigned int k,
		     unsigned int left, volatile const sig_atomic_t *stop, struct worker_result *r)
{
	static struct worker_afl c;
	struct sampler sm;
	char log[PATH_MAX + 32], instance[PATH_MAX + 64];
	struct afl_end end = {0};
	double start = host_time_seconds();
	pid_t pid;

	if (afl_command(n, t, k, left, &c) || (mkdir(c.sync, 0755) && errno != EEXIST))
		return -1;
	snprintf(log, sizeof(log), "%.*s/afl-%u.log", (int)(strlen(c.sync) - 4), c.sync, k);
	pid = spawn_start(c.cmd.argv, c.cmd.env, log);
	if (pid < 0)
		return -1;
	snprintf(instance, sizeof(instance), "%s/%s", c.sync, c.name);
	sm.offset = r->seconds_run;
	sm.progress = c.progress;
	sm.instance = instance;
	snprintf(sm.samples, sizeof(sm.samples), "%.*s/" WORKER_SAMPLES_FMT,
		 (int)(strlen(c.sync) - 4), c.sync, k);
	wait_afl(pid, left, &sm, stop, &end);
	r->seconds_run += host_time_seconds() - start;
	read_afl_stats(instance, r);
	r->runs += (double)end.counts.execs;
	r->skips += (double)end.counts.skips;
	if (end.stopped)
		snprintf(r->state, sizeof(r->state), "interrupted");
	else if (skips_only(&end.counts))
		snprintf(r->state, sizeof(r->state), "skipped");
	/* afl-fuzz also gives up when every seed fails: found at once, done too */
	else if ((end.status >= 0 && WIFEXITED(end.status) && WEXITSTATUS(end.status) == 0) ||
		 r->crashes > 0 || access(c.artifacts, F_OK) == 0)
		snprintf(r->state, sizeof(r->state), "done");
	else {
		snprintf(r->state, sizeof(r->state), "failed");
		afl_failure(log, r->error, sizeof(r->error));
	}
	return 0;
}

/*
 * How a worker keeps to the night's end: when it must be done, and what
 * starting a test (afl-fuzz, the boot, the first runs) has cost so far.
 */
struct pace {
	double end;
	double startup_sum;
	unsigned int started, tests_left;
};

/* Is t k's and not done in an earlier run of this night? Its result (if any) in r. */
static bool test_pending(const struct night *n, const struct suite_test *t, unsigned int k,
			 struct worker_result *r, char *path, size_t len)
{
	char name[32];

	memset(r, 0, sizeof(*r));
	if (!worker_has_test(n, t, k))
		return false;
	snprintf(name, sizeof(name), WORKER_RESULT_FMT, k);
	if (night_test_path(n, t->name, name, path, len))
		return false;
	if (!worker_read_result(path, r) && strcmp(r->state, "interrupted"))
		return false; /* done (or failed) in an earlier run of this night */
	return true;
}

/* The night's end for k: its seconds from now, less what k's tests ran before (a resumed night). */
static void pace_start(const struct night *n, unsigned int k, struct pace *p)
{
	double ran = 0;

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < n->suite.count; i++) {
		struct worker_result r;
		char path[PATH_MAX];

		if (test_pending(n, &n->suite.tests[i], k, &r, path, sizeof(path)))
			p->tests_left++;
		ran += r.seconds_run;
	}
	p->end = host_time_seconds() + n->seconds - ran;
}

/* What starting a test costs: as measured on this night's tests so far, else the plan's. */
static double pace_startup(const struct pace *p)
{
	return p->started ? p->startup_sum / p->started : PLAN_STARTUP_S;
}

static void pace_note(struct pace *p, double elapsed, unsigned int fuzz_seconds,
		      const struct worker_result *r)
{
	if (p->tests_left)
		p->tests_left--;
	/* a test stopped early (all skips, afl gave up) says nothing about its start */
	if (!strcmp(r->state, "done") && elapsed >= fuzz_seconds) {
		p->startup_sum += elapsed - fuzz_seconds;
		p->started++;
	}
}

int worker_run(const struct night *n, unsigned int k, volatile const sig_atomic_t *stop)
{
	struct pace pace;
	int rc = 0;

	pace_start(n, k, &pace);
	for (size_t i = 0; i < n->suite.count && !*stop; i++) {
		const struct suite_test *t = &n->suite.tests[i];
		struct worker_result r;
		char path[PATH_MAX];
		unsigned int planned, seconds;
		double start;

		if (!test_pending(n, t, k, &r, path, sizeof(path)))
			continue;
		planned = t->seconds > r.seconds_run ? t->seconds - (unsigned int)r.seconds_run : 1;
		seconds = plan_test_seconds(planned, pace.end - host_time_seconds(),
					    pace.tests_left, pace_startup(&pace));
		start = host_time_seconds();
		if (fuzz_test(n, t, k, seconds, stop, &r) || worker_write_result(path, t, k, &r))
			return -1;
		pace_note(&pace, host_time_seconds() - start, seconds, &r);
		if (!strcmp(r.state, "interrupted"))
			rc = 1;
	}
	return *stop ? 1 : rc;
}

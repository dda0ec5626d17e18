/* SPDX-License-Identifier: MIT */
/*
 * rewind-explore (`rewind explore`): a night of schedule exploration over a
 * suite, on every core of this machine or as a Slurm job array; then its
 * buckets, history and report (docs/explore.md).
 */
#include "explore/explore_cli.h"
#include "explore/finish.h"
#include "explore/night.h"
#include "explore/progress.h"
#include "explore/slurm.h"
#include "explore/worker.h"
#include "lib/exit_status.h"
#include "lib/host_time.h"
#include "lib/install_paths.h"
#include "lib/log.h"
#include "lib/parent_death.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_EVERY_S 5
#define NAMES_SHOWN	 3 /* tests named in a line about many */

/* The signal that stopped the night (0: none); its status is 128 + it. */
static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	stop_requested = sig;
}

/* The tools a night needs, checked before anything starts. */
static int check_tools(const struct night_tools *t, bool local)
{
	const char *need[][2] = {
		{t->harness, "build it with make"},
		{t->mutator, "build it with make"},
		{t->corpus_pct, "is this a Rewind checkout?"},
		{t->corpus_ledger, "is this a Rewind checkout?"},
	};

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (access(need[i][0], R_OK)) {
			rw_err("%s not found; %s", need[i][0], need[i][1]);
			return -1;
		}
	if (local && access("/dev/kvm", R_OK | W_OK)) {
		rw_err("no usable /dev/kvm here; run me through tests/box/run (REWIND_BOX_CPUS=N "
		       "for N cores)");
		return -1;
	}
	return 0;
}

/* Tests from i on (count of them, wrapping) as "tests 3 to 7 (c, d, e and 2 more)". */
static void print_range(const struct suite *s, size_t i, size_t count)
{
	size_t last = (i + count - 1) % s->count;

	if (count == 1)
		fprintf(stderr, "test %zu (", i + 1);
	else
		fprintf(stderr, "tests %zu to %zu (", i + 1, last + 1);
	for (size_t k = 0; k < count && k < NAMES_SHOWN; k++)
		fprintf(stderr, "%s%s", k ? ", " : "", s->tests[(i + k) % s->count].name);
	if (count > NAMES_SHOWN)
		fprintf(stderr, " and %zu more", count - NAMES_SHOWN);
	fputc(')', stderr);
}

/* Which tests the budget leaves without time this night (plan.h), said plainly. */
static void print_unplanned(const struct night *n)
{
	const struct suite *s = &n->suite;
	size_t left_out = s->count - n->planned, next = (n->first_planned + n->planned) % s->count;

	if (!left_out)
		return;
	fprintf(stderr,
		"%s: %zu of %zu tests get no time this night: %us on %u worker%s "
		"fits %zu (each needs %us at least: %us to start, %us of fuzzing).\n"
		"%s: this night fuzzes ",
		rw_log.program, left_out, s->count, n->seconds, n->workers,
		n->workers == 1 ? "" : "s", n->planned, PLAN_STARTUP_S + PLAN_MIN_FUZZ_S,
		PLAN_STARTUP_S, PLAN_MIN_FUZZ_S, rw_log.program);
	print_range(s, n->first_planned, n->planned);
	fputs("; no time for ", stderr);
	print_range(s, next, left_out);
	fprintf(stderr,
		": the next night starts at test %zu. A longer night (--seconds) or, with "
		"layout tests, more --jobs give every test time.\n",
		next + 1);
}

static void print_plan(const struct night *n)
{
	fprintf(stderr, "%s: night %" PRId64 " in %s: %zu tests, %us, %u worker%s, layout %s\n",
		rw_log.program, n->id, n->dir, n->suite.count, n->seconds, n->workers,
		n->workers == 1 ? "" : "s",
		n->layout == LAYOUT_INSTANCES ? "instances (afl-fuzz -M/-S per test)"
					      : "tests (one afl-fuzz per test)");
	print_unplanned(n);
	for (size_t i = 0; i < n->suite.count; i++)
		if (n->suite.tests[i].worker != SUITE_WORKER_NONE &&
		    n->suite.tests[i].seconds < PLAN_MIN_FUZZ_S) {
			fprintf(stderr,
				"%s: warning: %s gets %us of fuzzing, less than %us "
				"(afl-fuzz needs about %us more to start): give the night more "
				"--seconds\n",
				rw_log.program, n->suite.tests[i].name, n->suite.tests[i].seconds,
				PLAN_MIN_FUZZ_S, PLAN_STARTUP_S);
			break;
		}
}

static void install_stop_handlers(void)
{
	struct sigaction sa = {.sa_handler = on_stop};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/*
 * A worker process: it gets SIGTERM when rewind explore ends, even by
 * SIGKILL, and stops its afl-fuzz as on an interrupt (on_stop, inherited).
 */
static int run_worker_child(const struct night *n, unsigned int k, pid_t parent)
{
	int rc = parent_death_signal(parent);

	if (rc == -ESRCH)
		return REWIND_EXIT_HOST; /* rewind explore ended before this worker started */
	if (rc < 0) {
		rw_err_errno(-rc,
			     "worker %u: cannot tie it to rewind explore (prctl "
			     "PR_SET_PDEATHSIG)",
			     k);
		return REWIND_EXIT_HOST;
	}
	return worker_run(n, k, &stop_requested) < 0 ? REWIND_EXIT_HOST : 0;
}

/* Workers as child processes, progress every few seconds, stop on a signal. */
static bool run_workers_here(const struct night *n)
{
	struct progress progress = {0};
	pid_t pids[MAX_WORKERS], self = getpid();
	unsigned int alive = 0;
	bool interrupted = false, forwarded = false;
	struct timespec t0;
	double next = PROGRESS_EVERY_S;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned int k = 0; k < n->workers; k++) {
		pids[k] = fork();
		if (pids[k] == 0)
			_exit(run_worker_child(n, k, self));
		alive += pids[k] > 0;
		if (pids[k] < 0)
			rw_err_errno(errno, "cannot start worker %u", k);
	}
	while (alive) {
		int status;
		pid_t got = waitpid(-1, &status, WNOHANG);

		if (got > 0) {
			alive--;
			interrupted = interrupted || !WIFEXITED(status) || WEXITSTATUS(status);
			continue;
		}
		if (stop_requested && !forwarded) {
			fprintf(stderr, "%s: stopping the fuzzers; the report follows\n",
				rw_log.program);
			for (unsigned int k = 0; k < n->workers; k++)
				if (pids[k] > 0)
					kill(pids[k], SIGTERM);
			forwarded = interrupted = true;
		}
		if (host_time_seconds_since(&t0) >= next) {
			progress_print(&progress, n, host_time_seconds_since(&t0));
			next += PROGRESS_EVERY_S;
		}
		usleep(200 * 1000);
	}
	progress_print(&progress, n, host_time_seconds_since(&t0));
	progress_free(&progress);
	return interrupted || stop_requested;
}

/* The bundled suite (install_paths.h): the checkout's guest/tests/suite.json, or installed. */
static void default_suite(const struct night_tools *t, char *out, size_t len)
{
	struct install_paths where;

	(void)t; /* found as the tools are, from this program's location */
	snprintf(out, len, "%s", install_paths_get(&where) ? "suite.json" : where.suite);
}

/* --out: a folder that may be written, or one that can be made in such a folder. */
static int check_results_dir(const char *results)
{
	struct stat st;
	char copy[PATH_MAX];
	const char *parent;

	if (stat(results, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			rw_err("--out %s is a file, not a folder; give a folder for the results",
			       results);
			return -1;
		}
		if (access(results, W_OK | X_OK)) {
			rw_err_errno(errno, "--out %s cannot be written", results);
			return -1;
		}
		return 0;
	}
	if (errno != ENOENT) {
		rw_err_errno(errno, "cannot use --out %s", results);
		return -1;
	}
	snprintf(copy, sizeof(copy), "%s", results);
	parent = dirname(copy);
	if (stat(parent, &st) || !S_ISDIR(st.st_mode)) {
		rw_err("--out %s: there is no folder %s to make it in", results, parent);
		return -1;
	}
	if (access(parent, W_OK | X_OK)) {
		rw_err_errno(errno, "--out %s: cannot make it in %s", results, parent);
		return -1;
	}
	return 0;
}

/*
 * Everything checked (the suite file, --out, the tools, /dev/kvm), then the
 * night's folder and plan: 0, REWIND_EXIT_USAGE with nothing made, or
 * REWIND_EXIT_HOST.
 */
static int new_night(const struct cli *c, struct night *n)
{
	char suite[PATH_MAX];

	memset(n, 0, sizeof(*n));
	if (night_default_tools(&n->tools))
		return REWIND_EXIT_USAGE;
	if (c->suite)
		snprintf(suite, sizeof(suite), "%s", c->suite);
	else
		default_suite(&n->tools, suite, sizeof(suite));
	if (check_results_dir(c->results) || suite_load(suite, &n->suite) ||
	    check_tools(&n->tools, !c->slurm))
		return REWIND_EXIT_USAGE;
	if (!realpath(suite, n->suite_path))
		snprintf(n->suite_path, sizeof(n->suite_path), "%s", suite);
	n->seconds = c->seconds;
	n->workers = c->slurm ? c->slurm_opt.array : c->jobs;
	n->layout = c->layout;
	snprintf(n->engine, sizeof(n->engine), "%s", c->slurm ? "slurm" : "local");
	if (night_create(n, c->results))
		return REWIND_EXIT_HOST;
	print_plan(n);
	return 0;
}

static int submit_to_slurm(const struct cli *c, const struct night *n)
{
	char self[PATH_MAX];
	struct install_paths where;
	int status = REWIND_EXIT_HOST;

	if (install_paths_get(&where) < 0 ||
	    install_paths_program(&where, "rewind-explore", self, sizeof(self)) < 0)
		return REWIND_EXIT_HOST;
	if (slurm_submit(&c->slurm_opt, self, n->dir, n->seconds, &status))
		return REWIND_EXIT_HOST; /* the night's folder is made: the host's */
	return status;
}

/* --resume: the latest night of the results directory, as planned. */
static int load_latest(const struct cli *c, struct night *n)
{
	char dir[PATH_MAX];

	if (night_latest_dir(c->results, dir, sizeof(dir)) || night_load(dir, n) ||
	    check_tools(&n->tools, !c->slurm))
		return -1;
	fprintf(stderr, "%s: resuming night %" PRId64 " in %s\n", rw_log.program, n->id, n->dir);
	return 0;
}

/* A new night here, or --resume of the latest one. */
static int explore_here(const struct cli *c)
{
	static struct night n;
	bool interrupted;
	int rc;

	if (c->resume) {
		if (load_latest(c, &n))
			return REWIND_EXIT_USAGE;
	} else if ((rc = new_night(c, &n))) {
		night_free(&n);
		return rc;
	}
	if (c->slurm) {
		rc = submit_to_slurm(c, &n);
		night_free(&n);
		return rc;
	}
	install_stop_handlers();
	interrupted = run_workers_here(&n);
	rc = finish_night(&n, interrupted);
	night_free(&n);
	/* stopped by a signal: the report is written, the status says so */
	if (stop_requested && rc != REWIND_EXIT_HOST)
		return REWIND_EXIT_SIGNAL + stop_requested;
	return rc;
}

/* --list-tests: the suite's tests, one a line, runners run; nothing else. */
static int list_tests(const struct cli *c)
{
	struct night_tools tools;
	struct suite s;
	char suite[PATH_MAX];

	if (c->suite)
		snprintf(suite, sizeof(suite), "%s", c->suite);
	else if (night_default_tools(&tools))
		return REWIND_EXIT_USAGE;
	else
		default_suite(&tools, suite, sizeof(suite));
	if (suite_load(suite, &s))
		return REWIND_EXIT_USAGE;
	suite_print(&s, stdout);
	fprintf(stderr, "%s: %s: %zu test%s\n", rw_log.program, suite, s.count,
		s.count == 1 ? "" : "s");
	suite_free(&s);
	return 0;
}

/* A Slurm array task (--worker K) or the final task (--finish). */
static int explore_task(const struct cli *c)
{
	static struct night n;
	int rc;

	if (night_load(c->night_dir, &n))
		return REWIND_EXIT_USAGE;
	if (c->finish) {
		rc = finish_night(&n, false);
	} else if ((unsigned int)c->worker >= n.workers) {
		rw_err("--worker %ld of a night planned for %u workers; workers count from 0",
		       c->worker, n.workers);
		rc = REWIND_EXIT_USAGE;
	} else {
		install_stop_handlers();
		rc = worker_run(&n, (unsigned int)c->worker, &stop_requested) < 0 ? REWIND_EXIT_HOST
										  : 0;
	}
	night_free(&n);
	return rc;
}

int main(int argc, char **argv)
{
	struct cli c;

	rw_log_init(rw_log_name(argv[0], "rewind-explore"), false);
	if (explore_parse_cli(&c, argc, argv))
		return REWIND_EXIT_USAGE;
	if (c.list_tests)
		return list_tests(&c);
	if (c.finish || c.worker >= 0)
		return explore_task(&c);
	return explore_here(&c);
}

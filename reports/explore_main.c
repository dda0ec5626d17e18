/*
 * rewind-explore (`rewind explore`): a night of schedule exploration over a
 * suite, on every core of this machine or as a Slurm job array; then its
 * buckets, history and report (docs/explore.md).
 */
#include "reports/finish.h"
#include "reports/night.h"
#include "reports/parent_death.h"
#include "reports/progress.h"
#include "reports/slurm.h"
#include "reports/worker.h"
#include "vmm/host_time.h"
#include "vmm/log.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_EVERY_S 5
#define DEFAULT_RESULTS	 "rewind-nightly"
#define DEFAULT_SECONDS	 3600u
#define MAX_WORKERS	 1024u
#define NAMES_SHOWN	 3 /* tests named in a line about many */

struct cli {
	const char *suite, *results, *night_dir;
	unsigned int seconds, jobs;
	enum night_layout layout;
	bool resume, finish, slurm, list_tests;
	long worker; /* --worker K (a Slurm array task), -1 if not */
	struct slurm_options slurm_opt;
};

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void usage(FILE *to)
{
	fprintf(to,
		"usage: rewind explore [--suite FILE] [--out DIR] [--seconds N | --until HH:MM]\n"
		"                      [--jobs N] [--layout tests|instances] [--resume]\n"
		"       rewind explore --list-tests [--suite FILE]\n"
		"       rewind explore --engine slurm [--partition P] [--time-limit MIN]\n"
		"                      [--array N] [--worker-wrapper CMD] [--wait] [...]\n"
		"\n"
		"Explores the schedules of every test of a suite with afl-fuzz and rewind-harness\n"
		"for a time budget on every core, groups the failures into buckets (one\n"
		"minimised, explained artifact each), records the night in DIR/history.sqlite\n"
		"and writes its report (rewind report). Nothing in DIR is ever deleted: each\n"
		"run is a new night, DIR/nights/NNNN (docs/explore.md).\n"
		"\n"
		"  --suite FILE        the tests (default: the bundled suite, "
		"guest/tests/suite.json)\n"
		"  --out DIR           the results directory (default: %s)\n"
		"  --results DIR       --out's old name, the same\n"
		"  --seconds N         the night's time budget (default %u)\n"
		"  --until HH:MM       ... or until this local time\n"
		"  --jobs N            afl-fuzz instances at once (default: every core, %ld here)\n"
		"  --layout L          tests: each test fuzzed by one instance, tests spread over\n"
		"                      them (the default when there are at least as many tests as\n"
		"                      instances); instances: every instance on one test at a "
		"time\n"
		"                      (afl-fuzz -M/-S sharing a sync directory)\n"
		"  --resume            finish the latest night of DIR after an interruption\n"
		"  --list-tests        print the suite's tests, one a line (name, guest command,\n"
		"                      rewind-harness options; a runner's tests as it gave\n"
		"                      them), and exit\n"
		"\n"
		"Slurm (docs/cluster.md): a job array, one task per worker, and a final task that\n"
		"merges and reports; DIR must be on storage every node sees.\n"
		"  --engine slurm      submit instead of running here (default: local)\n"
		"  --partition P       the partition (default: the cluster's default)\n"
		"  --time-limit MIN    each task's time limit (default: the budget plus a margin)\n"
		"  --array N           workers (array tasks; default: --jobs)\n"
		"  --worker-wrapper C  run each task under the command C (e.g. tests/box/run)\n"
		"  --wait              wait for the final task; exit with its status\n"
		"\n"
		"Exit status: 0 no new bucket, 1 a new or reopened bucket, 2 the night failed or\n"
		"bad usage. SIGINT or SIGTERM stop the fuzzers; the report is still written and\n"
		"--resume finishes the night.\n",
		DEFAULT_RESULTS, DEFAULT_SECONDS, sysconf(_SC_NPROCESSORS_ONLN));
}

/* A usage error: the sentence (with its argument) and where to read more. */
static int bad(const char *what, const char *arg)
{
	fprintf(stderr, "rewind explore: %s%s%s%s (see rewind explore --help)\n", what,
		arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
	return -1;
}

static int parse_uint(const char *text, const char *what, unsigned int min, unsigned int max,
		      unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno || end == text || *end || text[0] == '-' || v < min || v > max) {
		fprintf(stderr, "rewind explore: %s must be an integer in %u..%u, not '%s'\n", what,
			min, max, text);
		return -1;
	}
	*out = (unsigned int)v;
	return 0;
}

/* Seconds from now to the next HH:MM, local time. */
static int parse_until(const char *text, unsigned int *seconds)
{
	unsigned int h, m;
	char extra;
	time_t now = time(NULL), then;
	struct tm tm;

	if (sscanf(text, "%u:%u%c", &h, &m, &extra) != 2 || h > 23 || m > 59)
		return bad("--until takes a local time HH:MM, not", text);
	localtime_r(&now, &tm);
	tm.tm_hour = (int)h;
	tm.tm_min = (int)m;
	tm.tm_sec = 0;
	then = mktime(&tm);
	if (then <= now)
		then += 24 * 3600;
	*seconds = (unsigned int)(then - now);
	return 0;
}

enum {
	OPT_SUITE = 256,
	OPT_OUT,
	OPT_SECONDS,
	OPT_UNTIL,
	OPT_JOBS,
	OPT_LAYOUT,
	OPT_RESUME,
	OPT_ENGINE,
	OPT_PARTITION,
	OPT_TIME_LIMIT,
	OPT_ARRAY,
	OPT_WRAPPER,
	OPT_WAIT,
	OPT_WORKER,
	OPT_WORKERS,
	OPT_NIGHT,
	OPT_FINISH,
	OPT_LIST_TESTS,
};

static const struct option OPTIONS[] = {
	{"suite", required_argument, NULL, OPT_SUITE},
	{"out", required_argument, NULL, OPT_OUT},
	{"results", required_argument, NULL, OPT_OUT}, /* --out's old name */
	{"seconds", required_argument, NULL, OPT_SECONDS},
	{"until", required_argument, NULL, OPT_UNTIL},
	{"jobs", required_argument, NULL, OPT_JOBS},
	{"layout", required_argument, NULL, OPT_LAYOUT},
	{"resume", no_argument, NULL, OPT_RESUME},
	{"engine", required_argument, NULL, OPT_ENGINE},
	{"partition", required_argument, NULL, OPT_PARTITION},
	{"time-limit", required_argument, NULL, OPT_TIME_LIMIT},
	{"array", required_argument, NULL, OPT_ARRAY},
	{"worker-wrapper", required_argument, NULL, OPT_WRAPPER},
	{"wait", no_argument, NULL, OPT_WAIT},
	{"worker", required_argument, NULL, OPT_WORKER},
	{"workers", required_argument, NULL, OPT_WORKERS},
	{"night", required_argument, NULL, OPT_NIGHT},
	{"finish", no_argument, NULL, OPT_FINISH},
	{"list-tests", no_argument, NULL, OPT_LIST_TESTS},
	{"help", no_argument, NULL, 'h'},
	{0},
};

static int apply_option(struct cli *c, int opt, const char *arg)
{
	unsigned int v;

	switch (opt) {
	case OPT_SUITE:
		c->suite = arg;
		return 0;
	case OPT_OUT:
		c->results = arg;
		return 0;
	case OPT_SECONDS:
		return parse_uint(arg, "--seconds", 1, 7 * 24 * 3600, &c->seconds);
	case OPT_UNTIL:
		return parse_until(arg, &c->seconds);
	case OPT_JOBS:
		return parse_uint(arg, "--jobs", 1, MAX_WORKERS, &c->jobs);
	case OPT_LAYOUT:
		if (strcmp(arg, "tests") && strcmp(arg, "instances"))
			return bad("--layout is tests or instances, not", arg);
		c->layout = !strcmp(arg, "tests") ? LAYOUT_TESTS : LAYOUT_INSTANCES;
		return 0;
	case OPT_RESUME:
		c->resume = true;
		return 0;
	case OPT_ENGINE:
		if (strcmp(arg, "local") && strcmp(arg, "slurm"))
			return bad("--engine is local or slurm, not", arg);
		c->slurm = !strcmp(arg, "slurm");
		return 0;
	case OPT_PARTITION:
		c->slurm_opt.partition = arg;
		return 0;
	case OPT_TIME_LIMIT:
		return parse_uint(arg, "--time-limit", 1, 100000, &c->slurm_opt.time_limit_min);
	case OPT_ARRAY:
		return parse_uint(arg, "--array", 1, MAX_WORKERS, &c->slurm_opt.array);
	case OPT_WRAPPER:
		c->slurm_opt.wrapper = arg;
		return 0;
	case OPT_WAIT:
		c->slurm_opt.wait = true;
		return 0;
	case OPT_WORKER:
		if (parse_uint(arg, "--worker", 0, MAX_WORKERS - 1, &v))
			return -1;
		c->worker = v;
		return 0;
	case OPT_WORKERS:
		return parse_uint(arg, "--workers", 1, MAX_WORKERS, &c->jobs);
	case OPT_NIGHT:
		c->night_dir = arg;
		return 0;
	case OPT_FINISH:
		c->finish = true;
		return 0;
	case OPT_LIST_TESTS:
		c->list_tests = true;
		return 0;
	default:
		return bad("unknown option", NULL);
	}
}

static int parse_cli(struct cli *c, int argc, char **argv)
{
	int opt;

	*c = (struct cli){.results = DEFAULT_RESULTS, .seconds = DEFAULT_SECONDS, .worker = -1};
	c->jobs = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", OPTIONS, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			exit(0);
		}
		if (opt == '?')
			return bad("unknown option or missing value:", argv[optind - 1]);
		if (apply_option(c, opt, optarg))
			return -1;
	}
	if (optind < argc)
		return bad("unexpected argument", argv[optind]);
	if ((c->finish || c->worker >= 0) && !c->night_dir)
		return bad(c->finish ? "--finish needs --night DIR (the night's folder)"
				     : "--worker needs --night DIR (the night's folder)",
			   NULL);
	if (!c->slurm_opt.array)
		c->slurm_opt.array = c->jobs;
	return 0;
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
			fprintf(stderr, "rewind explore: %s not found: %s\n", need[i][0],
				need[i][1]);
			return -1;
		}
	if (local && access("/dev/kvm", R_OK | W_OK)) {
		fprintf(stderr, "rewind explore: no usable /dev/kvm here: run me through "
				"tests/box/run (REWIND_BOX_CPUS=N for N cores)\n");
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
		"rewind explore: %zu of %zu tests get no time this night: %us on %u worker%s "
		"fits %zu (each needs %us at least: %us to start, %us of fuzzing).\n"
		"rewind explore: this night fuzzes ",
		left_out, s->count, n->seconds, n->workers, n->workers == 1 ? "" : "s", n->planned,
		PLAN_STARTUP_S + PLAN_MIN_FUZZ_S, PLAN_STARTUP_S, PLAN_MIN_FUZZ_S);
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
	fprintf(stderr,
		"rewind explore: night %" PRId64 " in %s: %zu tests, %us, %u worker%s, layout %s\n",
		n->id, n->dir, n->suite.count, n->seconds, n->workers, n->workers == 1 ? "" : "s",
		n->layout == LAYOUT_INSTANCES ? "instances (afl-fuzz -M/-S per test)"
					      : "tests (one afl-fuzz per test)");
	print_unplanned(n);
	for (size_t i = 0; i < n->suite.count; i++)
		if (n->suite.tests[i].worker != SUITE_WORKER_NONE &&
		    n->suite.tests[i].seconds < PLAN_MIN_FUZZ_S) {
			fprintf(stderr,
				"rewind explore: warning: %s gets %us of fuzzing, less than %us "
				"(afl-fuzz needs about %us more to start): give the night more "
				"--seconds\n",
				n->suite.tests[i].name, n->suite.tests[i].seconds, PLAN_MIN_FUZZ_S,
				PLAN_STARTUP_S);
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
		return 2; /* rewind explore ended before this worker started */
	if (rc < 0) {
		fprintf(stderr,
			"rewind explore: worker %u: cannot tie it to rewind explore (prctl "
			"PR_SET_PDEATHSIG): %s\n",
			k, strerror(-rc));
		return 2;
	}
	return worker_run(n, k, &stop_requested) < 0 ? 2 : 0;
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
			fprintf(stderr, "rewind explore: cannot start worker %u: %s\n", k,
				strerror(errno));
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
			fprintf(stderr,
				"rewind explore: stopping the fuzzers; the report follows\n");
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

/* The bundled suite: BUILD/bin/../../guest/tests/suite.json, as the corpus. */
static void default_suite(const struct night_tools *t, char *out, size_t len)
{
	size_t dir = (size_t)(strrchr(t->harness, '/') - t->harness);

	snprintf(out, len, "%.*s/../../guest/tests/suite.json", (int)dir, t->harness);
}

static int new_night(const struct cli *c, struct night *n)
{
	char suite[PATH_MAX];

	memset(n, 0, sizeof(*n));
	if (night_default_tools(&n->tools))
		return -1;
	if (c->suite)
		snprintf(suite, sizeof(suite), "%s", c->suite);
	else
		default_suite(&n->tools, suite, sizeof(suite));
	if (check_tools(&n->tools, !c->slurm) || suite_load(suite, &n->suite))
		return -1;
	if (!realpath(suite, n->suite_path))
		snprintf(n->suite_path, sizeof(n->suite_path), "%s", suite);
	n->seconds = c->seconds;
	n->workers = c->slurm ? c->slurm_opt.array : c->jobs;
	n->layout = c->layout;
	snprintf(n->engine, sizeof(n->engine), "%s", c->slurm ? "slurm" : "local");
	if (night_create(n, c->results))
		return -1;
	print_plan(n);
	return 0;
}

static int submit_to_slurm(const struct cli *c, const struct night *n)
{
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int status = 2;

	if (len < 0)
		return 2;
	self[len] = 0;
	if (slurm_submit(&c->slurm_opt, self, n->dir, n->seconds, &status))
		return 2;
	return status;
}

/* --resume: the latest night of the results directory, as planned. */
static int load_latest(const struct cli *c, struct night *n)
{
	char dir[PATH_MAX];

	if (night_latest_dir(c->results, dir, sizeof(dir)) || night_load(dir, n) ||
	    check_tools(&n->tools, !c->slurm))
		return -1;
	fprintf(stderr, "rewind explore: resuming night %" PRId64 " in %s\n", n->id, n->dir);
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
			return 2;
	} else if (new_night(c, &n)) {
		night_free(&n);
		return 2;
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
		return 2;
	else
		default_suite(&tools, suite, sizeof(suite));
	if (suite_load(suite, &s))
		return 2;
	suite_print(&s, stdout);
	fprintf(stderr, "rewind explore: %s: %zu test%s\n", suite, s.count,
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
		return 2;
	if (c->finish) {
		rc = finish_night(&n, false);
	} else if ((unsigned int)c->worker >= n.workers) {
		fprintf(stderr, "rewind explore: worker %ld of a night planned for %u workers\n",
			c->worker, n.workers);
		rc = 2;
	} else {
		install_stop_handlers();
		rc = worker_run(&n, (unsigned int)c->worker, &stop_requested) < 0 ? 2 : 0;
	}
	night_free(&n);
	return rc;
}

int main(int argc, char **argv)
{
	struct cli c;

	rw_log_init("rewind explore", false);
	if (parse_cli(&c, argc, argv))
		return 2;
	if (c.list_tests)
		return list_tests(&c);
	if (c.finish || c.worker >= 0)
		return explore_task(&c);
	return explore_here(&c);
}

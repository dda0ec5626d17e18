/* SPDX-License-Identifier: MIT */
/* `rewind explore`'s command line: the usage, the options and their checks. */
#include "explore/explore_cli.h"

#include "lib/log.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
		"Exit status (docs/exit-status.md):\n"
		"  0      the night ran: no new bucket\n"
		"  1      a new or reopened bucket\n"
		"  2      bad usage or setup, nothing ran and nothing was made: a bad option,\n"
		"         a suite file that is missing or wrong (an unknown key too), --out\n"
		"         not a folder, a missing tool, no usable /dev/kvm, --resume without\n"
		"         a night, a --night that is not one\n"
		"  4      the night could not finish: a test afl-fuzz could not run, a worker\n"
		"         that failed, the history or the report that could not be written,\n"
		"         a failed Slurm submission, a final task that did not run to its end\n"
		"  128+N  stopped by signal N (130: an interrupt): SIGINT, SIGTERM or SIGHUP\n"
		"         stop the fuzzers, the report is still written, and --resume\n"
		"         finishes the night\n"
		"With --engine slurm: 0 once submitted; with --wait, the final task's status.\n",
		DEFAULT_RESULTS, DEFAULT_SECONDS, sysconf(_SC_NPROCESSORS_ONLN));
}

/* A usage error: the sentence, with its argument quoted at the end; -1. */
static int bad(const char *what, const char *arg)
{
	rw_err("%s%s%s%s", what, arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
	return -1;
}

/* An option getopt_long did not take: unknown, or without its value; -1. */
static int bad_option(const char *typed, int got)
{
	size_t len = strcspn(typed, "=");

	if (got == ':')
		rw_err("%.*s needs a value; %s --help lists the options", (int)len, typed,
		       rw_log.program);
	else
		rw_err("unknown option '%.*s'; %s --help lists the options", (int)len, typed,
		       rw_log.program);
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
		rw_err("%s must be an integer in %u..%u, not '%s'", what, min, max, text);
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
		return bad("unhandled option", NULL);
	}
}

int explore_parse_cli(struct cli *c, int argc, char **argv)
{
	int opt;

	*c = (struct cli){.results = DEFAULT_RESULTS, .seconds = DEFAULT_SECONDS, .worker = -1};
	c->jobs = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", OPTIONS, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			exit(0);
		}
		if (opt == '?' || opt == ':') {
			char short_opt[3] = {'-', (char)optopt, 0};

			return bad_option(optopt > 0 && optopt < 256 ? short_opt : argv[optind - 1],
					  opt);
		}
		if (apply_option(c, opt, optarg))
			return -1;
	}
	if (optind < argc) {
		rw_err("unexpected argument '%s'; %s takes options only (--help lists them)",
		       argv[optind], rw_log.program);
		return -1;
	}
	if ((c->finish || c->worker >= 0) && !c->night_dir)
		return bad(c->finish ? "--finish needs --night DIR (the night's folder)"
				     : "--worker needs --night DIR (the night's folder)",
			   NULL);
	if (!c->slurm_opt.array)
		c->slurm_opt.array = c->jobs;
	if (c->slurm && slurm_check_options(&c->slurm_opt))
		return -1;
	return 0;
}

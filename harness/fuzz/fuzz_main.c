/* `rewind fuzz`: the options, and the run from the checks to the verdict. */
#include "harness/fuzz/fuzz.h"

#include "vmm/log.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char USAGE[] =
	"usage: rewind fuzz [--seconds N] [--out DIR] [--corpus DIR] [--all]\n"
	"                   [--no-mutator] [--afl-opt ARG]...\n"
	"                   [-- HARNESS-OPTIONS... [-- CMD ARGS...]]\n"
	"\n"
	"Fuzzes a job's schedules: afl-fuzz -i CORPUS -o OUT -- rewind-harness\n"
	"--artifacts OUT/artifacts --progress OUT/progress.json HARNESS-OPTIONS @@\n"
	"CMD, until the first failure (or, with --all, until the time is up), a\n"
	"progress line every 5 s; then the run's numbers, the first failure the\n"
	"harness saw (the execution it came at, counted by the harness: afl-fuzz\n"
	"discards failures seen while it calibrates, and its re-runs of an input\n"
	"that just ran are answered from the harness's outcome cache), and a replay\n"
	"of its artifact (rewind replay). Needs /dev/kvm: where there is none, run\n"
	"it through tests/box/run (make demo does).\n"
	"\n"
	"  --seconds N     fuzz for at most N seconds (default 300)\n"
	"  --out DIR       the results: OUT/artifacts (one replayable artifact per\n"
	"                  failure), OUT/progress.json (counts, and the first\n"
	"                  failure), OUT/afl.log, afl-fuzz's OUT/default; must not\n"
	"                  hold an earlier run's (default rewind-fuzz-out/run-DATE-TIME)\n"
	"  --corpus DIR    the starting inputs (default: corpus/pct for a job built\n"
	"                  with guest/rewind-cc or rewind-c++, one probe run tells;\n"
	"                  corpus/ledger, injections at exits, for any other)\n"
	"  --all           go on after the first failure until the time is up\n"
	"  --no-mutator    afl-fuzz's own byte mutations, not Rewind's schedule mutator\n"
	"  --afl-opt ARG   one more afl-fuzz argument (repeat it for each), after\n"
	"                  Rewind's own: e.g. --afl-opt -p --afl-opt explore\n"
	"  -h, --help      this text\n"
	"\n"
	"The schedule mutator (build/lib/rewind-mutator.so, AFL_CUSTOM_MUTATOR_ONLY=1)\n"
	"parses each input and makes a small valid change to its schedule: moves an\n"
	"injection, changes its kind or argument, adds, removes or splices one,\n"
	"changes the seed; in pct mode fresh PCT samples, a new priority order,\n"
	"change points moved, added or dropped, shared by what has been paying off.\n"
	"\n"
	"afl-fuzz and the harness never outlive this command: an interrupt, a\n"
	"termination, a hang-up, an error or a kill of this command ends them.\n"
	"\n"
	"Exit status:\n"
	"  0  a bug was found: a failure, and its replay is identical\n"
	"  1  no bug found within the time\n"
	"  2  setup error: bad usage, a job that does not run (the harness cannot\n"
	"     boot it, or the guest cannot execute its command), afl-fuzz failing\n"
	"  3  a failure was found but its replay differs\n"
	"  128+N  stopped by signal N (130: an interrupt)\n"
	"\n"
	"Environment: REWIND_HARNESS, REWIND_MUTATOR (other tools than the built\n"
	"ones), AFL_FORKSRV_INIT_TMOUT (ms afl-fuzz waits for the harness's hello,\n"
	"which comes before the guest boots; default 120000).\n";

static int parse_seconds(const char *text, unsigned int *out)
{
	char *end;
	unsigned long v;

	if (!text[0] || strspn(text, "0123456789") != strlen(text))
		return fuzz_die("--seconds must be a number, not '%s'", text);
	v = strtoul(text, &end, 10);
	if (v > 30u * 24 * 3600)
		return fuzz_die("--seconds %s is more than 30 days", text);
	*out = (unsigned int)v;
	return 0;
}

/* After the options: HARNESS-OPTIONS up to the next --, then CMD ARGS. */
static void split_rest(int argc, char **argv, struct fuzz_options *o)
{
	int i = optind;

	o->harness_opts = argv + i;
	while (i < argc && strcmp(argv[i], "--"))
		i++;
	o->harness_opt_count = (size_t)(i - optind);
	if (i < argc) {
		o->command = argv + i + 1;
		o->command_len = (size_t)(argc - i - 1);
	}
}

static int parse_options(int argc, char **argv, struct fuzz_options *o)
{
	static const struct option options[] = {
		{"seconds", required_argument, NULL, 's'},
		{"out", required_argument, NULL, 'o'},
		{"corpus", required_argument, NULL, 'c'},
		{"all", no_argument, NULL, 'a'},
		{"no-mutator", no_argument, NULL, 'n'},
		{"afl-opt", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	*o = (struct fuzz_options){.seconds = 300, .until_crash = true, .mutator = true};
	/* "+": stop at the first word that is no option (the -- before HARNESS-OPTIONS) */
	while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_seconds(optarg, &o->seconds))
				return FUZZ_SETUP;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'c':
			o->corpus = optarg;
			break;
		case 'a':
			o->until_crash = false;
			break;
		case 'n':
			o->mutator = false;
			break;
		case 'f':
			if (o->afl_opt_count == FUZZ_MAX_AFL_OPTS)
				return fuzz_die("more than %d --afl-opt", FUZZ_MAX_AFL_OPTS);
			o->afl_opts[o->afl_opt_count++] = optarg;
			break;
		case 'h':
			fputs(USAGE, stdout);
			exit(0);
		default: /* getopt named it */
			return fuzz_die("bad usage (see rewind fuzz --help)");
		}
	}
	/* getopt took the -- itself; another word there is a mistake */
	if (optind < argc && strcmp(argv[optind - 1], "--"))
		return fuzz_die("unexpected '%s': harness options and the command come after "
				"-- (see rewind fuzz --help)",
				argv[optind]);
	split_rest(argc, argv, o);
	return 0;
}

int main(int argc, char **argv)
{
	struct fuzz_options o;
	static struct fuzz_paths p;
	int rc;

	rw_log_init("rewind-fuzz", false);
	signal(SIGXFSZ, SIG_IGN);
	fuzz_catch_stop_signals();
	rc = parse_options(argc, argv, &o);
	if (!rc)
		rc = fuzz_setup(&o, &p);
	if (!rc)
		rc = fuzz_probe(&o, &p);
	if (!rc)
		rc = fuzz_run_afl(&o, &p);
	if (fuzz_stop_signal)
		return fuzz_stopped_status();
	if (!rc)
		rc = fuzz_verdict(&o, &p);
	return fuzz_stop_signal ? fuzz_stopped_status() : rc;
}

/* SPDX-License-Identifier: MIT */
/* `rewind fuzz`: the usage, and the run from the checks to the verdict. */
#include "harness/fuzz/fuzz.h"

#include "lib/log.h"

#include <stdio.h>
#include <string.h>

static const char USAGE_HEAD[] =
	"usage: rewind fuzz [--seconds N] [--out DIR] [--corpus DIR] [--all]\n"
	"                   [--no-mutator] [--afl-opt ARG]... [JOB OPTIONS]\n"
	"                   [-- CMD ARGS...]\n"
	"e.g.:  rewind fuzz --seconds 600 --add ./mytest -- /bin/mytest\n"
	"\n"
	"Fuzzes a job's schedules: afl-fuzz -i CORPUS -o OUT -- rewind-harness\n"
	"--artifacts OUT/artifacts --progress OUT/progress.json JOB-OPTIONS @@\n"
	"-- CMD, until the first failure (or, with --all, until the time is up), a\n"
	"progress line every 5 s; then the run's numbers, the first failure the\n"
	"harness saw (the execution it came at, counted by the harness: afl-fuzz\n"
	"discards failures seen while it calibrates, and its re-runs of an input\n"
	"that just ran are answered from the harness's outcome cache), and a replay\n"
	"of its artifact (rewind replay). Needs /dev/kvm: where there is none, run\n"
	"it through the KVM box, rewind box fuzz ... (make demo does). Every option\n"
	"and every file they name is checked before the output folder is made.\n"
	"\n"
	"  --seconds N     fuzz for at most N seconds (default 300)\n"
	"  --out DIR       the results: OUT/artifacts (one replayable artifact per\n"
	"                  failure), OUT/progress.json (counts, and the first\n"
	"                  failure), OUT/afl.log, afl-fuzz's OUT/default; must not\n"
	"                  hold an earlier run's (default rewind-fuzz-out/run-DATE-TIME)\n"
	"  --corpus DIR    the starting inputs (default, one probe run tells which:\n"
	"                  corpus/pct, priority schedules, for a job built with\n"
	"                  guest/rewind-cc or rewind-c++ and for a plain build\n"
	"                  that starts threads; corpus/ledger, injections at exits,\n"
	"                  for the bundled example and any other job)\n"
	"  --all           go on after the first failure until the time is up\n"
	"  --no-mutator    afl-fuzz's own byte mutations, not Rewind's schedule mutator\n"
	"  --sampler NAME  where the mutator's fresh samples come from: pct (priority\n"
	"                  schedules), stall (stalls at exits), walk (random walks\n"
	"                  over the threads; an instrumented job only, a plain job's\n"
	"                  are PCT's), or auto (the default, also called mix: an\n"
	"                  instrumented job's from PCT and walks, a plain job's from\n"
	"                  PCT and stalls, shared out by which finds new coverage\n"
	"                  more often)\n"
	"  --afl-opt ARG   one more afl-fuzz argument (repeat it for each), after\n"
	"                  Rewind's own: e.g. --afl-opt -p --afl-opt explore\n"
	"  -h, --help      this text\n"
	"\n"
	"JOB OPTIONS are rewind-harness's, given to each run of the job\n"
	"(rewind-harness --help and docs/harness.md say what each does):\n";

static const char USAGE_TAIL[] =
	"  --map-size N    the coverage map's size in bytes, a power of two\n"
	"Without -- CMD, the job is the bundled example (/bin/ledger).\n"
	"\n"
	"An older form: rewind fuzz [OPTIONS] -- JOB-OPTIONS... -- CMD ARGS...: when\n"
	"the word after the first -- is an option or another --, the words up to a\n"
	"second -- are job options, and the command follows that second --.\n"
	"\n"
	"The schedule mutator (build/lib/rewind-mutator.so, AFL_CUSTOM_MUTATOR_ONLY=1)\n"
	"parses each input and makes a small valid change to its schedule: moves an\n"
	"injection, changes its kind or argument, adds, removes or splices one,\n"
	"changes the seed; in pct mode fresh PCT samples, a new priority order,\n"
	"change points moved, added or dropped, shared by what has been paying off;\n"
	"in steps mode, three times in four, a fresh stall sample: one or two long\n"
	"stalls at exits drawn uniformly from a passing run's.\n"
	"\n"
	"afl-fuzz and the harness never outlive this command: an interrupt, a\n"
	"termination, a hang-up, an error or a kill of this command ends them.\n"
	"\n"
	"Exit status (docs/exit-status.md):\n"
	"  0  no failure within the time\n"
	"  1  a failure found, and its replay is the same run\n"
	"  2  bad usage or setup, nothing fuzzed: a bad option or file, no afl-fuzz\n"
	"     or harness, no /dev/kvm, an --out that holds results, a job that does\n"
	"     not run (the probe run: the harness cannot boot it, or the guest cannot\n"
	"     execute its command), afl-fuzz failing before the job's first run\n"
	"  3  a failure found, but its replay differs\n"
	"  4  the host could not finish: afl-fuzz died during the run, an artifact\n"
	"     was not written, the replay could not run\n"
	"  128+N  stopped by signal N (130: an interrupt)\n"
	"\n"
	"Environment: REWIND_HARNESS, REWIND_MUTATOR (other tools than the built\n"
	"ones), AFL_FORKSRV_INIT_TMOUT (ms afl-fuzz waits for the harness's hello,\n"
	"which comes before the guest boots; default 120000).\n";

/* The usage, with the job options of job_fields (the table rewind-harness reads too). */
static void print_usage(void)
{
	size_t column = 0;

	fputs(USAGE_HEAD, stdout);
	for (const struct job_field *f = job_fields; f->key || f->flag; f++) {
		if (!f->flag)
			continue;
		if (column && column + strlen(f->flag) + 4 > 78) {
			fputs(",\n", stdout);
			column = 0;
		}
		column += (size_t)printf("%s--%s", column ? ", " : "  ", f->flag);
	}
	fputs("\n", stdout);
	fputs(USAGE_TAIL, stdout);
}

int main(int argc, char **argv)
{
	static struct fuzz_options o;
	static struct fuzz_paths p;
	int rc;

	/* `rewind fuzz` runs this with argv[0] "rewind fuzz": it speaks as those words */
	rw_log_init(rw_log_name(argv[0], "rewind-fuzz"), false);
	signal(SIGXFSZ, SIG_IGN);
	fuzz_catch_stop_signals();
	rc = fuzz_parse_options(argc, argv, &o);
	if (rc < 0) {
		print_usage();
		return REWIND_EXIT_OK;
	}
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

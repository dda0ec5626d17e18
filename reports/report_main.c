/* SPDX-License-Identifier: MIT */
/* rewind-report [--out] DIR [--night N]: a night's report (docs/explore.md). */
#include "reports/report.h"

#include "lib/exit_status.h"
#include "lib/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char USAGE[] =
	"usage: rewind report [--out] DIR [--night N]\n"
	"\n"
	"Writes the report of a night of rewind explore (default: the latest) into\n"
	"DIR/nights/NNNN/report/: summary.json, junit.xml, index.html and plots/.\n"
	"\n"
	"  --out DIR      the results directory (rewind explore's --out); DIR alone\n"
	"                 works the same\n"
	"  --results DIR  --out's old name, the same\n"
	"  --night N      the night's number (default: the latest)\n"
	"\n"
	"Exit status (docs/exit-status.md):\n"
	"  0  the report is written, whatever the night found (its verdict: the last\n"
	"     line printed, and summary.json's exit_status)\n"
	"  2  bad usage or setup: a bad option, DIR is not a results directory of\n"
	"     rewind explore, or has no such night; nothing is written\n"
	"  4  the report could not be written (a file or folder under DIR, or its\n"
	"     history, could not be read or written)\n";

/* One error line, then the usage status; nothing more (rewind report --help has the usage). */
__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
	va_list ap;
	char text[1024];

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	rw_err("%s", text);
	return REWIND_EXIT_USAGE;
}

static int parse_night(const char *text, int64_t *night)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno || end == text || *end || v < 1)
		return -1;
	*night = v;
	return 0;
}

struct args {
	const char *results; /* --out DIR, --results DIR (its old name) or DIR */
	int64_t night;	     /* 0: the latest */
};

static int set_results(struct args *a, const char *dir)
{
	if (a->results)
		return usage_error("one results directory at a time (a second one: %s)", dir);
	a->results = dir;
	return 0;
}

/* An option with a value (argv[*i] and argv[*i + 1]); 0 or the usage error's status. */
static int take_option(int argc, char **argv, int *i, struct args *a)
{
	const char *opt = argv[*i];
	bool night = !strcmp(opt, "--night");

	if (*i + 1 == argc)
		return usage_error("%s needs a value; %s --help lists the options", opt,
				   rw_log.program);
	(*i)++;
	if (!night)
		return set_results(a, argv[*i]);
	if (parse_night(argv[*i], &a->night))
		return usage_error("--night must be a night number from 1, not '%s'", argv[*i]);
	return 0;
}

/* DIR is a folder: checked before anything is read or made. */
static int check_results(const char *dir)
{
	struct stat st;

	if (stat(dir, &st)) {
		rw_err("cannot use the results directory %s: %s; give the --out of a rewind "
		       "explore",
		       dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		rw_err("%s is not a folder; give the results directory of a rewind explore (its "
		       "--out)",
		       dir);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct args a = {0};
	int verdict;

	rw_log_init(rw_log_name(argv[0], "rewind-report"), false);
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		int rc;

		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			fputs(USAGE, stdout);
			return 0;
		}
		if (!strcmp(arg, "--night") || !strcmp(arg, "--out") || !strcmp(arg, "--results"))
			rc = take_option(argc, argv, &i, &a);
		else if (arg[0] == '-' && arg[1])
			rc = usage_error("unknown option '%s'; %s --help lists the options", arg,
					 rw_log.program);
		else
			rc = set_results(&a, arg);
		if (rc)
			return rc;
	}
	if (!a.results)
		return usage_error("which results directory? give it: --out DIR, the --out of "
				   "rewind explore");
	if (check_results(a.results))
		return REWIND_EXIT_USAGE;
	return report_write(a.results, a.night, &verdict); /* written: 0, whatever the verdict */
}

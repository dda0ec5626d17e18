/* rewind-report [--out] DIR [--night N]: a night's report (docs/explore.md). */
#include "reports/report.h"

#include "vmm/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
	"Exit status: 0 no new bucket that night, 1 a bucket new or reopened that night,\n"
	"2 the night failed (or a test of it could not run), or no report could be written.\n";

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("rewind report: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n(rewind report --help says how to run it)\n", stderr);
	return REPORT_NIGHT_FAILED;
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
		return usage_error("%s needs %s", opt,
				   night ? "a night number" : "a results directory");
	(*i)++;
	if (!night)
		return set_results(a, argv[*i]);
	if (parse_night(argv[*i], &a->night))
		return usage_error("--night takes a night number from 1, not '%s'", argv[*i]);
	return 0;
}

int main(int argc, char **argv)
{
	struct args a = {0};

	rw_log_init("rewind report", false);
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
			rc = usage_error("there is no option %s", arg);
		else
			rc = set_results(&a, arg);
		if (rc)
			return rc;
	}
	if (!a.results)
		return usage_error("which results directory? %s",
				   "(--out DIR: the --out of rewind explore)");
	return report_write(a.results, a.night);
}

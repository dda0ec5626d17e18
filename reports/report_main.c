/* rewind-report RESULTS [--night N]: a night's report (docs/explore.md). */
#include "reports/report.h"

#include "vmm/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char USAGE[] =
	"usage: rewind report RESULTS [--night N]\n"
	"\n"
	"Writes the report of a night of rewind explore (default: the latest) into\n"
	"RESULTS/nights/NNNN/report/: summary.json, junit.xml, index.html and plots/.\n"
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

int main(int argc, char **argv)
{
	const char *results = NULL;
	int64_t night = 0;

	rw_log_init("rewind report", false);
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			fputs(USAGE, stdout);
			return 0;
		}
		if (!strcmp(arg, "--night")) {
			if (i + 1 == argc)
				return usage_error("--night needs a night number");
			if (parse_night(argv[++i], &night))
				return usage_error("--night takes a night number from 1, not '%s'",
						   argv[i]);
		} else if (arg[0] == '-' && arg[1]) {
			return usage_error("there is no option %s", arg);
		} else if (results) {
			return usage_error("one results directory at a time (a second one: %s)",
					   arg);
		} else {
			results = arg;
		}
	}
	if (!results)
		return usage_error("which results directory? %s",
				   "(the --results of rewind explore)");
	return report_write(results, night);
}

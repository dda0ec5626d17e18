/* SPDX-License-Identifier: MIT */
/*
 * The report's plots. The data go to report/plots/NAME.dat and a gnuplot
 * script to report/plots/plots.gp; gnuplot runs once, in that folder, as a
 * child process (its messages in plots/gnuplot.log).
 */
#include "reports/report_plots.h"

#include "lib/log.h"
#include "lib/parent_death.h"
#include "reports/history.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Nights up to this many get a tic each on the open buckets' x axis. */
#define NIGHT_TICS_MAX 30

static const char OPEN_BUCKETS_SQL[] =
	"SELECT n.id,"
	" (SELECT COUNT(*) FROM bucket_nights WHERE night = n.id"
	"   AND state IN ('new', 'still-failing', 'reopened', 'flaky')),"
	" (SELECT COUNT(*) FROM bucket_nights WHERE night = n.id AND state IN ('new', 'reopened'))"
	" FROM nights n WHERE n.id <= ?1 ORDER BY n.id";

/* A test's name as a file name: itself when plainly safe, else test-N. */
static void plot_stem(const struct report_test *t, size_t index, char *buf, size_t size)
{
	const char *name = report_text(t->name);
	bool safe = name[0] && name[0] != '.' && strlen(name) < 64;

	for (const char *p = name; *p && safe; p++)
		safe = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		       (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || *p == '.';
	if (safe)
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "test-%zu", index + 1);
}

/* The inside of a gnuplot single-quoted string, then its closing quote ('' for a quote). */
static void gnuplot_quoted(FILE *f, const char *s)
{
	for (const char *p = report_text(s); *p; p++) {
		if (*p == '\'')
			fputc('\'', f);
		if ((unsigned char)*p >= 0x20)
			fputc(*p, f);
	}
	fputc('\'', f);
}

/* Writes plots/STEM.dat (t execs edges failures corpus); the number of samples or -1. */
static int write_samples(struct report *r, sqlite3 *db, const struct report_test *t,
			 const char *stem)
{
	struct report_stream s;
	sqlite3_stmt *st;
	char name[128];
	int n = 0, step;

	if (history_prepare(
		    db,
		    "SELECT t, execs, edges, failures, corpus FROM samples WHERE night = ?1 AND"
		    " test = ?2 ORDER BY t",
		    &st))
		return -1;
	if (report_stream_open(&s)) {
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_bind_int64(st, 1, r->night.id);
	sqlite3_bind_text(st, 2, report_text(t->name), -1, SQLITE_STATIC);
	fprintf(s.f, "# t execs edges failures corpus: the samples of %s\n", stem);
	for (; (step = sqlite3_step(st)) == SQLITE_ROW; n++)
		fprintf(s.f, "%.3f %lld %lld %lld %lld\n", sqlite3_column_double(st, 0),
			(long long)sqlite3_column_int64(st, 1),
			(long long)sqlite3_column_int64(st, 2),
			(long long)sqlite3_column_int64(st, 3),
			(long long)sqlite3_column_int64(st, 4));
	sqlite3_finalize(st);
	snprintf(name, sizeof(name), "plots/%s.dat", stem);
	if (step != SQLITE_DONE) {
		rw_err("cannot read the samples of %s: %s", stem, sqlite3_errmsg(db));
		fclose(s.f);
		free(s.data);
		return -1;
	}
	return report_stream_commit(r, &s, name) ? -1 : n;
}

/*
 * Writes plots/open-buckets.dat (night open new); the number of nights or -1,
 * and the most buckets open on a night in *most.
 */
static int write_open_buckets(struct report *r, sqlite3 *db, int *most)
{
	struct report_stream s;
	sqlite3_stmt *st;
	int n = 0, step;

	if (history_prepare(db, OPEN_BUCKETS_SQL, &st))
		return -1;
	if (report_stream_open(&s)) {
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_bind_int64(st, 1, r->night.id);
	fprintf(s.f, "# night open new-or-reopened\n");
	*most = 0;
	for (; (step = sqlite3_step(st)) == SQLITE_ROW; n++) {
		int open = sqlite3_column_int(st, 1);

		fprintf(s.f, "%lld %d %d\n", (long long)sqlite3_column_int64(st, 0), open,
			sqlite3_column_int(st, 2));
		if (open > *most)
			*most = open;
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE) {
		rw_err("cannot count the open buckets of each night: %s", sqlite3_errmsg(db));
		fclose(s.f);
		free(s.data);
		return -1;
	}
	return report_stream_commit(r, &s, "plots/open-buckets.dat") ? -1 : n;
}

static void script_header(FILE *f)
{
	fputs("# Written by rewind report; run in this folder: gnuplot plots.gp\n"
	      "set terminal pngcairo noenhanced size 560,315 font 'sans,9'\n"
	      "set grid\nset key top left\nset yrange [0:*]\n",
	      f);
}

static void script_test(FILE *f, const struct report_test *t, const char *stem)
{
	/* coverage: afl's edges (from its first minute on) and its corpus (inputs kept) */
	static const struct {
		const char *what, *title, *label, *format, *more;
		int column;
	} plots[] = {{"execs", "Executions: ", "executions", "%.1s%c", "", 2},
		     {"edges", "Coverage: ", "edges", "%g",
		      ", '' using 1:5 with linespoints lw 2 pt 5 ps 0.4 title 'corpus entries'",
		      3}};

	for (size_t i = 0; i < sizeof(plots) / sizeof(plots[0]); i++) {
		fprintf(f, "\nset output '%s-%s.png'\nset title '%s", plots[i].what, stem,
			plots[i].title);
		gnuplot_quoted(f, t->name);
		fprintf(f,
			"\nset format y '%s'\nset xlabel 'seconds since the test started'\n"
			"set ylabel '%s'\nplot '%s.dat' using 1:%d with linespoints lw 2 pt 7 ps "
			"0.4"
			" title '%s'%s\n",
			plots[i].format, plots[i].label, stem, plots[i].column, plots[i].label,
			plots[i].more);
	}
}

static void script_open_buckets(FILE *f, int nights, int most)
{
	fprintf(f,
		"\nset output 'open-buckets.png'\nset title 'Open buckets over nights'\n"
		"set xlabel 'night'\nset ylabel 'buckets'\nset format y '%%g'\n"
		"set key top left horizontal\nset yrange [0:%d]\n",
		most + most / 3 + 1); /* room for the key above the lines */
	if (nights <= NIGHT_TICS_MAX)
		fputs("set xtics 1\n", f);
	if (most < NIGHT_TICS_MAX)
		fputs("set ytics 1\n", f);
	fputs("plot 'open-buckets.dat' using 1:2 with linespoints lw 2 pt 7 title 'open',"
	      " '' using 1:3 with linespoints lw 2 pt 5 title 'new or reopened'\n",
	      f);
}

/*
 * The child: in plots/, output to gnuplot.log, runs gnuplot plots.gp; SIGTERM
 * when its parent (pid parent) ends.
 */
static void exec_gnuplot(const char *plots_dir, pid_t parent)
{
	static const char failed[] = "rewind report: cannot run gnuplot\n";
	static const char untied[] = "rewind report: cannot set gnuplot's parent-death signal\n";
	int log, rc;

	if (chdir(plots_dir) < 0)
		_exit(126);
	log = open("gnuplot.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (log < 0 || dup2(log, STDOUT_FILENO) < 0 || dup2(log, STDERR_FILENO) < 0)
		_exit(126);
	rc = parent_death_signal(parent);
	if (rc == -ESRCH)
		_exit(126); /* nobody waits for the plots */
	if (rc < 0) {
		(void)!write(STDERR_FILENO, untied, sizeof(untied) - 1);
		_exit(126);
	}
	execlp("gnuplot", "gnuplot", "plots.gp", (char *)NULL);
	if (write(STDERR_FILENO, failed, sizeof(failed) - 1) < 0)
		_exit(127);
	_exit(127);
}

/* Runs gnuplot on plots/plots.gp; 0 or -1 (message printed, r->plots_problem set). */
static int run_gnuplot(struct report *r)
{
	char plots_dir[4200];
	int status;
	pid_t pid, got, parent = getpid();

	snprintf(plots_dir, sizeof(plots_dir), "%s/plots", r->report_dir);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		rw_err_errno(errno, "cannot start gnuplot");
		r->plots_problem = "gnuplot could not be started";
		return -1;
	}
	if (pid == 0)
		exec_gnuplot(plots_dir, parent);
	while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (got < 0) {
		rw_err_errno(errno, "cannot wait for gnuplot");
		r->plots_problem = "gnuplot could not be waited for";
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		fprintf(stderr,
			"%s: gnuplot is not installed (Debian package gnuplot-nox): the "
			"report has no plots\n",
			rw_log.program);
		r->plots_problem = "gnuplot is not installed";
	} else {
		fprintf(stderr, "%s: gnuplot failed drawing the plots: see %s/gnuplot.log\n",
			rw_log.program, plots_dir);
		r->plots_problem = "gnuplot failed (see plots/gnuplot.log)";
	}
	return -1;
}

/* Forgets a plot gnuplot did not make (an old one is removed before it runs). */
static void keep_if_made(struct report *r, char *name)
{
	char path[4400];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", r->report_dir, name);
	if (name[0] && (stat(path, &st) < 0 || st.st_size == 0)) {
		name[0] = 0;
		if (!r->plots_problem)
			r->plots_problem =
				"gnuplot did not make every plot (see plots/gnuplot.log)";
	}
}

static void remove_old(const struct report *r, const char *name)
{
	char path[4400];

	snprintf(path, sizeof(path), "%s/%s", r->report_dir, name);
	if (unlink(path) < 0 && errno != ENOENT)
		rw_err_errno(errno, "cannot remove the old plot %s", path);
}

/* Writes the data and the script; names the plots it asks for. 0 or -1. */
static int prepare(struct report *r, sqlite3 *db, FILE *script)
{
	char stem[80];
	int nights, most;

	script_header(script);
	for (size_t i = 0; i < r->test_count; i++) {
		struct report_test *t = &r->tests[i];
		int samples;

		plot_stem(t, i, stem, sizeof(stem));
		samples = write_samples(r, db, t, stem);
		if (samples < 0)
			return -1;
		if (samples == 0)
			continue;
		script_test(script, t, stem);
		snprintf(t->plot_execs, sizeof(t->plot_execs), "plots/execs-%s.png", stem);
		snprintf(t->plot_edges, sizeof(t->plot_edges), "plots/edges-%s.png", stem);
		remove_old(r, t->plot_execs);
		remove_old(r, t->plot_edges);
	}
	nights = write_open_buckets(r, db, &most);
	if (nights < 0)
		return -1;
	script_open_buckets(script, nights, most);
	snprintf(r->plot_open_buckets, sizeof(r->plot_open_buckets), "plots/open-buckets.png");
	remove_old(r, r->plot_open_buckets);
	return 0;
}

static void forget_all(struct report *r)
{
	for (size_t i = 0; i < r->test_count; i++)
		r->tests[i].plot_execs[0] = r->tests[i].plot_edges[0] = 0;
	r->plot_open_buckets[0] = 0;
}

void report_plots_write(struct report *r, sqlite3 *db)
{
	struct report_stream script;

	if (report_stream_open(&script)) {
		r->plots_problem = "out of memory";
		return;
	}
	if (prepare(r, db, script.f)) {
		fclose(script.f);
		free(script.data);
		forget_all(r);
		r->plots_problem = "the plots' data could not be written";
		return;
	}
	if (report_stream_commit(r, &script, "plots/plots.gp") || run_gnuplot(r)) {
		if (!r->plots_problem)
			r->plots_problem = "the gnuplot script could not be written";
		forget_all(r);
		return;
	}
	for (size_t i = 0; i < r->test_count; i++) {
		keep_if_made(r, r->tests[i].plot_execs);
		keep_if_made(r, r->tests[i].plot_edges);
	}
	keep_if_made(r, r->plot_open_buckets);
}

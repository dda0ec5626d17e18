/* SPDX-License-Identifier: MIT */
/*
 * `rewind report`: a night's report from the history (docs/explore.md):
 * RESULTS/nights/NNNN/report/summary.json, junit.xml, index.html and plots/.
 */
#ifndef REWIND_REPORT_H
#define REWIND_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

/* A night's verdict: `rewind explore`'s exit status (docs/exit-status.md). */
enum report_status {
	REPORT_NO_NEW_BUCKET = 0, /* the night found nothing new */
	REPORT_NEW_BUCKET = 1,	  /* a bucket new or reopened that night */
	REPORT_NIGHT_FAILED = 4,  /* the night failed: a test could not run, or it was cut short */
};

/*
 * Writes the report of a night (0: the latest) of the results directory;
 * *verdict is the night's (enum report_status). Returns 0 (written),
 * REWIND_EXIT_USAGE (not a results directory, no such night) or
 * REWIND_EXIT_HOST (the report could not be written); errors go to stderr.
 */
int report_write(const char *results_dir, int64_t night, int *verdict);

/* --- shared by the report's writers (reports/report_*.c; reports/report_text.c) */

struct report_night {
	int64_t id, started, ended, seconds, jobs;
	char *dir, *suite, *engine, *state;
};

/* One row of night_tests, with the plots made of its samples. */
struct report_test {
	char *name, *state, *error;
	int64_t seconds_planned, execs, edges, failures;
	double seconds_run, exec_per_s;
	char plot_execs[128], plot_edges[128]; /* under report/, "" when not made */
};

/* A bucket as it stood that night; the counts are those up to that night. */
struct report_bucket {
	char *id, *test, *cls, *status, *message, *sites, *artifact, *explanation, *replay;
	char *state;	 /* that night's: new, still-failing, fixed, reopened, flaky */
	char *minimised; /* the minimised schedule artifact, relative to RESULTS, or NULL */
	int64_t failures_night, failures_total, first_night, last_night, nights_seen;
};

struct report {
	const char *results;
	char night_name[32];   /* NNNN */
	char report_dir[4096]; /* RESULTS/nights/NNNN/report */
	struct report_night night;
	struct report_test *tests;
	size_t test_count;
	struct report_bucket *buckets;
	size_t bucket_count;
	char plot_open_buckets[128]; /* under report/, "" when not made */
	const char *plots_problem;   /* why plots are missing, or NULL */
	int status;		     /* enum report_status */
	const char *verdict;	     /* the status in words */
};

/* Whether a bucket in this state is open (new, still-failing, reopened, flaky). */
bool report_state_is_open(const char *state);

/* s, or "" for a NULL column. */
const char *report_text(const char *s);

/* Whether bucket b is one of test t's (a NULL name is ""). */
bool report_bucket_of(const struct report_bucket *b, const struct report_test *t);

/*
 * Writes s escaped for HTML and XML text and attribute values: & < > " '
 * as entities, control characters (but tab, newline) and invalid UTF-8 as
 * U+FFFD. A NULL s writes nothing.
 */
void report_escape(FILE *out, const char *s);

/*
 * Writes fmt with each %s argument escaped as report_escape does (NULL:
 * nothing) and %% as %; it knows no other conversion (numbers: fprintf).
 */
__attribute__((format(printf, 2, 3))) void report_escapef(FILE *out, const char *fmt, ...);

/* <a href="..">path</a> from report/ for a path relative to RESULTS, or "none". */
void report_html_link(FILE *f, const char *path);

/* A malloc'd copy of s with invalid UTF-8 as U+FFFD; NULL for NULL (or no memory). */
char *report_utf8(const char *s);

/* Prints a Unix time as "2024-05-01 02:00:00 UTC" into buf ("-" for 0). */
void report_time_text(int64_t t, char *buf, size_t size);

/* A memory stream to build a file in; report_stream_commit writes it. */
struct report_stream {
	FILE *f;
	char *data;
	size_t len;
};

int report_stream_open(struct report_stream *s);

/* Writes the stream's text atomically to report/NAME and frees it; 0 or -1. */
int report_stream_commit(struct report *r, struct report_stream *s, const char *name);

#endif

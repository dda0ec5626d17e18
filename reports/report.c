/* SPDX-License-Identifier: MIT */
/*
 * `rewind report`: loads a night from the history, decides its exit status
 * and has the writers make summary.json, junit.xml, the plots and index.html.
 */
#include "reports/report.h"

#include "lib/exit_status.h"
#include "lib/file.h"
#include "lib/log.h"
#include "reports/history.h"
#include "reports/report_html.h"
#include "reports/report_junit.h"
#include "reports/report_plots.h"
#include "reports/report_summary.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* --- loading the night ------------------------------------------------------ */

static char *column_text(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	return s ? strdup((const char *)s) : NULL;
}

static int load_night(struct report *r, sqlite3 *db, int64_t id)
{
	sqlite3_stmt *st;
	int rc = -1;

	if (history_prepare(db,
			    "SELECT id, dir, suite, engine, started, ended, seconds, jobs, state"
			    " FROM nights WHERE id = ?1",
			    &st))
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		struct report_night *n = &r->night;

		n->id = sqlite3_column_int64(st, 0);
		n->dir = column_text(st, 1);
		n->suite = column_text(st, 2);
		n->engine = column_text(st, 3);
		n->started = sqlite3_column_int64(st, 4);
		n->ended = sqlite3_column_int64(st, 5);
		n->seconds = sqlite3_column_int64(st, 6);
		n->jobs = sqlite3_column_int64(st, 7);
		n->state = column_text(st, 8);
		rc = 0;
	} else {
		rw_err("%s has no night %" PRId64 " in its history; rewind report %s names its "
		       "latest",
		       r->results, id, r->results);
	}
	sqlite3_finalize(st);
	return rc;
}

/* Grows an array by one zeroed element; returns it or NULL. */
static void *grow(void **array, size_t *count, size_t size)
{
	char *bigger = realloc(*array, (*count + 1) * size);

	if (!bigger) {
		rw_err("out of memory");
		return NULL;
	}
	*array = bigger;
	memset(bigger + *count * size, 0, size);
	return bigger + (*count)++ * size;
}

/*
 * Each row of sql (?1: the night) read by read_row into one more element
 * (size bytes) of *items; what names the rows in the error ("tests").
 */
static int load_rows(struct report *r, sqlite3 *db, const char *sql, const char *what, void **items,
		     size_t *count, size_t size,
		     void (*read_row)(struct report *r, sqlite3_stmt *st, void *item))
{
	sqlite3_stmt *st;
	int step;

	if (history_prepare(db, sql, &st))
		return -1;
	sqlite3_bind_int64(st, 1, r->night.id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		void *item = grow(items, count, size);

		if (!item)
			break;
		read_row(r, st, item);
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE) {
		rw_err("cannot read the %s of night %" PRId64 ": %s", what, r->night.id,
		       sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}

static const char TESTS_SQL[] = "SELECT test, state, error, seconds_planned, seconds_run, execs,"
				" exec_per_s, edges, failures FROM night_tests WHERE night = ?1"
				" ORDER BY test";

static void read_test(struct report *r, sqlite3_stmt *st, void *item)
{
	struct report_test *t = item;

	(void)r;
	t->name = column_text(st, 0);
	t->state = column_text(st, 1);
	t->error = column_text(st, 2);
	t->seconds_planned = sqlite3_column_int64(st, 3);
	t->seconds_run = sqlite3_column_double(st, 4);
	t->execs = sqlite3_column_int64(st, 5);
	t->exec_per_s = sqlite3_column_double(st, 6);
	t->edges = sqlite3_column_int64(st, 7);
	t->failures = sqlite3_column_int64(st, 8);
}

static int load_tests(struct report *r, sqlite3 *db)
{
	return load_rows(r, db, TESTS_SQL, "tests", (void **)&r->tests, &r->test_count,
			 sizeof(*r->tests), read_test);
}

/*
 * The buckets with a state that night, open ones first. The counts are
 * those up to that night (a bucket is seen on a night it failed), so the
 * report of an earlier night, rewritten later, says what it said then.
 */
static const char BUCKETS_SQL[] =
	"SELECT b.id, b.test, b.class, b.status, b.message, b.sites, b.artifact,"
	" b.explanation, b.replay, bn.state, bn.failures,"
	" COALESCE((SELECT MIN(night) FROM bucket_nights WHERE bucket = b.id AND night <= ?1"
	"   AND failures > 0), b.first_night),"
	" COALESCE((SELECT MAX(night) FROM bucket_nights WHERE bucket = b.id AND night <= ?1"
	"   AND failures > 0), 0),"
	" (SELECT COUNT(*) FROM bucket_nights WHERE bucket = b.id AND night <= ?1"
	"   AND failures > 0),"
	" (SELECT COALESCE(SUM(failures), 0) FROM bucket_nights WHERE bucket = b.id"
	"   AND night <= ?1)"
	" FROM bucket_nights bn JOIN buckets b ON b.id = bn.bucket WHERE bn.night = ?1"
	" ORDER BY CASE bn.state WHEN 'new' THEN 0 WHEN 'reopened' THEN 1"
	"   WHEN 'still-failing' THEN 2 WHEN 'flaky' THEN 3 WHEN 'fixed' THEN 4 ELSE 5 END,"
	" b.test, b.id";

/* The minimised schedule beside the bucket's artifact, if it is there. */
static char *minimised_artifact(const struct report *r, const char *artifact)
{
	static const char suffix[] = ".min.json";
	size_t len = artifact ? strlen(artifact) : 0;
	char *min, path[4200];

	if (!len)
		return NULL;
	if (len > strlen(suffix) && !strcmp(artifact + len - strlen(suffix), suffix))
		return strdup(artifact);
	if (asprintf(&min, "%s%s", artifact, suffix) < 0)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", r->results, min);
	if (access(path, F_OK) == 0)
		return min;
	free(min);
	return NULL;
}

static void read_bucket(struct report *r, sqlite3_stmt *st, void *item)
{
	struct report_bucket *b = item;

	b->id = column_text(st, 0);
	b->test = column_text(st, 1);
	b->cls = column_text(st, 2);
	b->status = column_text(st, 3);
	b->message = column_text(st, 4);
	b->sites = column_text(st, 5);
	b->artifact = column_text(st, 6);
	b->explanation = column_text(st, 7);
	b->replay = column_text(st, 8);
	b->state = column_text(st, 9);
	b->failures_night = sqlite3_column_int64(st, 10);
	b->first_night = sqlite3_column_int64(st, 11);
	b->last_night = sqlite3_column_int64(st, 12);
	b->nights_seen = sqlite3_column_int64(st, 13);
	b->failures_total = sqlite3_column_int64(st, 14);
	b->minimised = minimised_artifact(r, b->artifact);
}

static int load_buckets(struct report *r, sqlite3 *db)
{
	return load_rows(r, db, BUCKETS_SQL, "buckets", (void **)&r->buckets, &r->bucket_count,
			 sizeof(*r->buckets), read_bucket);
}

/* 2 if the night or one of its tests failed, else 1 if a bucket is new or reopened. */
static void decide_status(struct report *r)
{
	r->status = REPORT_NO_NEW_BUCKET;
	r->verdict = "no new bucket";
	for (size_t i = 0; i < r->bucket_count; i++) {
		const char *state = report_text(r->buckets[i].state);

		if (!strcmp(state, "new") || !strcmp(state, "reopened")) {
			r->status = REPORT_NEW_BUCKET;
			r->verdict = "a bucket is new or reopened";
		}
	}
	for (size_t i = 0; i < r->test_count; i++) {
		if (!strcmp(report_text(r->tests[i].state), "failed")) {
			r->status = REPORT_NIGHT_FAILED;
			r->verdict = "the night failed: a test could not run";
		}
	}
	if (!strcmp(report_text(r->night.state), "failed")) {
		r->status = REPORT_NIGHT_FAILED;
		r->verdict = "the night failed";
	}
}

static int resolve_night(struct report *r, sqlite3 *db, int64_t *night)
{
	if (*night > 0)
		return 0;
	if (history_latest_night(db, night))
		return -1;
	if (*night == 0) {
		rw_err("%s has no night in its history yet; rewind explore --out %s makes one",
		       r->results, r->results);
		return -1;
	}
	return 0;
}

/* --- writing ---------------------------------------------------------------- */

/* RESULTS/nights/NNNN/report/plots, each folder made if missing. */
static int make_report_dirs(struct report *r)
{
	char path[4200];

	snprintf(r->night_name, sizeof(r->night_name), "%04" PRId64, r->night.id);
	if ((size_t)snprintf(r->report_dir, sizeof(r->report_dir), "%s/nights/%s/report",
			     r->results, r->night_name) >= sizeof(r->report_dir) - 64) {
		rw_err("the results directory's path is too long: %s", r->results);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/nights", r->results);
	if (file_make_dir(path))
		return -1;
	snprintf(path, sizeof(path), "%s/nights/%s", r->results, r->night_name);
	if (file_make_dir(path) || file_make_dir(r->report_dir))
		return -1;
	snprintf(path, sizeof(path), "%s/plots", r->report_dir);
	return file_make_dir(path);
}

static bool has_history(const char *results)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", results, HISTORY_FILE);
	if (access(path, R_OK) == 0)
		return true;
	rw_err("%s has no history (%s: %s); is it the results directory of a rewind explore?",
	       results, HISTORY_FILE, strerror(errno));
	return false;
}

/*
 * The night from the history, and the report's folders: 0, REWIND_EXIT_USAGE
 * (not a results directory, no such night) or REWIND_EXIT_HOST (reported).
 */
static int load(struct report *r, int64_t night)
{
	sqlite3 *db;
	int rc = REWIND_EXIT_USAGE;

	if (!has_history(r->results) || history_open_existing(r->results, &db))
		return REWIND_EXIT_USAGE;
	if (!resolve_night(r, db, &night) && !load_night(r, db, night)) {
		rc = REWIND_EXIT_HOST;
		if (!load_tests(r, db) && !load_buckets(r, db) && !make_report_dirs(r)) {
			decide_status(r);
			report_plots_write(r, db); /* the page says why when there are none */
			rc = 0;
		}
	}
	sqlite3_close(db);
	return rc;
}

static void free_report(struct report *r)
{
	free(r->night.dir);
	free(r->night.suite);
	free(r->night.engine);
	free(r->night.state);
	for (size_t i = 0; i < r->test_count; i++) {
		free(r->tests[i].name);
		free(r->tests[i].state);
		free(r->tests[i].error);
	}
	free(r->tests);
	for (size_t i = 0; i < r->bucket_count; i++) {
		struct report_bucket *b = &r->buckets[i];

		free(b->id), free(b->test), free(b->cls), free(b->status), free(b->message);
		free(b->sites), free(b->artifact), free(b->explanation), free(b->replay);
		free(b->state), free(b->minimised);
	}
	free(r->buckets);
}

static void print_outcome(const struct report *r)
{
	size_t open = 0, fresh = 0;

	for (size_t i = 0; i < r->bucket_count; i++) {
		open += report_state_is_open(r->buckets[i].state);
		fresh += !strcmp(report_text(r->buckets[i].state), "new") ||
			 !strcmp(report_text(r->buckets[i].state), "reopened");
	}
	printf("rewind report: night %" PRId64 " (%s): %zu test%s, %zu bucket%s open, %zu new or "
	       "reopened: %s\n",
	       r->night.id, report_text(r->night.state), r->test_count,
	       r->test_count == 1 ? "" : "s", open, open == 1 ? "" : "s", fresh, r->verdict);
	printf("rewind report: the report is %s/index.html\n", r->report_dir);
	fflush(stdout);
}

int report_write(const char *results_dir, int64_t night, int *verdict)
{
	struct report r = {.results = results_dir};
	int rc;

	*verdict = REPORT_NIGHT_FAILED;
	if (night < 0) {
		rw_err("there is no night %" PRId64 "; nights count from 1", night);
		return REWIND_EXIT_USAGE;
	}
	rc = load(&r, night);
	if (!rc && (report_summary_write(&r) || report_junit_write(&r) || report_html_write(&r)))
		rc = REWIND_EXIT_HOST;
	if (!rc) {
		print_outcome(&r);
		*verdict = r.status;
	}
	free_report(&r);
	return rc;
}

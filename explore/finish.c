/* SPDX-License-Identifier: MIT */
/* Finishing a night: history, buckets, the latest link, the report. */
#include "explore/finish.h"

#include "explore/buckets.h"
#include "explore/signature.h"
#include "explore/worker_result.h"
#include "lib/exit_status.h"
#include "lib/file.h"
#include "lib/log.h"
#include "reports/history.h"
#include "reports/report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SAMPLE_STEP_S 5.0 /* afl-fuzz writes plot_data every 5 s */
#define SAMPLES_MAX   8192

struct test_totals {
	char state[16], error[256];
	double seconds_run, execs, exec_per_s, edges;
	size_t failures;
	unsigned int workers, skipped; /* the test's workers, and those whose every run skipped */
};

/*
 * Adds worker k's result to the totals; the worst state wins (failed >
 * interrupted > done). The test is skipped when every worker's runs skipped.
 */
static void add_worker(const char *path, struct test_totals *tt)
{
	struct worker_result r;

	tt->workers++;
	if (worker_read_result(path, &r)) {
		/* no result: the worker never finished the test */
		if (strcmp(tt->state, "failed"))
			snprintf(tt->state, sizeof(tt->state), "interrupted");
	} else if (!strcmp(r.state, "failed") ||
		   (!strcmp(r.state, "interrupted") && strcmp(tt->state, "failed"))) {
		snprintf(tt->state, sizeof(tt->state), "%s", r.state);
	}
	tt->skipped += !strcmp(r.state, "skipped");
	if (r.error[0])
		snprintf(tt->error, sizeof(tt->error), "%s", r.error);
	if (r.seconds_run > tt->seconds_run)
		tt->seconds_run = r.seconds_run;
	tt->execs += r.execs;
	tt->exec_per_s += r.exec_per_s;
	if (r.edges > tt->edges)
		tt->edges = r.edges;
}

static void test_totals(const struct night *n, const struct suite_test *t, struct test_totals *tt)
{
	char dir[PATH_MAX], **paths;

	memset(tt, 0, sizeof(*tt));
	if (t->worker == SUITE_WORKER_NONE) {
		snprintf(tt->state, sizeof(tt->state), "not-run"); /* no time this night */
		return;
	}
	snprintf(tt->state, sizeof(tt->state), "done");
	for (unsigned int k = 0; k < n->workers; k++) {
		char name[32], path[PATH_MAX];

		snprintf(name, sizeof(name), WORKER_RESULT_FMT, k);
		if (worker_has_test(n, t, k) &&
		    !night_test_path(n, t->name, name, path, sizeof(path)))
			add_worker(path, tt);
	}
	if (!strcmp(tt->state, "done") && tt->workers && tt->skipped == tt->workers)
		snprintf(tt->state, sizeof(tt->state), "skipped");
	if (!night_test_path(n, t->name, "artifacts", dir, sizeof(dir)) &&
	    !signature_list_artifacts(dir, &paths, &tt->failures))
		signature_free_list(paths, tt->failures);
}

static int record_test(sqlite3 *db, const struct night *n, const struct suite_test *t,
		       const struct test_totals *tt)
{
	sqlite3_stmt *st;
	int rc;

	if (history_prepare(
		    db,
		    "INSERT OR REPLACE INTO night_tests(night, test, state, seconds_planned,"
		    " seconds_run, execs, exec_per_s, edges, failures, error)"
		    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		    &st))
		return -1;
	sqlite3_bind_int64(st, 1, n->id);
	sqlite3_bind_text(st, 2, t->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, tt->state, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, t->seconds);
	sqlite3_bind_double(st, 5, tt->seconds_run);
	sqlite3_bind_int64(st, 6, (int64_t)tt->execs);
	sqlite3_bind_double(st, 7, tt->exec_per_s);
	sqlite3_bind_int64(st, 8, (int64_t)tt->edges);
	sqlite3_bind_int64(st, 9, (int64_t)tt->failures);
	sqlite3_bind_text(st, 10, tt->error, -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	if (rc)
		rw_err("cannot record %s in the history: %s", t->name, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc;
}

/*
 * Samples on a 5 s grid, from each worker's samples-K.tsv: executions and
 * failures summed over the test's workers, corpus entries and edges the most
 * any worker has (afl-fuzz -M/-S instances share their corpus).
 */
struct samples {
	double execs[SAMPLES_MAX], failures[SAMPLES_MAX], corpus[SAMPLES_MAX], edges[SAMPLES_MAX];
	bool set[SAMPLES_MAX];
	size_t count;
};

static void read_worker_samples(const char *path, struct samples *w)
{
	FILE *f = fopen(path, "r");
	double t, execs, failures, corpus, edges;

	if (!f)
		return;
	while (fscanf(f, "%lf %lf %lf %lf %lf", &t, &execs, &failures, &corpus, &edges) == 5) {
		size_t i = (size_t)(t / SAMPLE_STEP_S + 0.5);

		if (t < 0 || i >= SAMPLES_MAX)
			continue;
		w->execs[i] = execs;
		w->failures[i] = failures;
		w->corpus[i] = corpus;
		w->edges[i] = edges;
		w->set[i] = true;
		if (i + 1 > w->count)
			w->count = i + 1;
	}
	fclose(f);
}

/* A worker's value at every grid point: the last one it reported (its final after it ended). */
static void add_worker_samples(struct samples *sum, struct samples *w)
{
	for (size_t i = 1; i < w->count; i++)
		if (!w->set[i]) {
			w->execs[i] = w->execs[i - 1];
			w->failures[i] = w->failures[i - 1];
			w->corpus[i] = w->corpus[i - 1];
			w->edges[i] = w->edges[i - 1];
		}
	if (w->count > sum->count)
		sum->count = w->count;
	for (size_t i = 0; w->count && i < sum->count; i++) {
		size_t j = i < w->count ? i : w->count - 1;

		sum->execs[i] += w->execs[j];
		sum->failures[i] += w->failures[j];
		if (w->corpus[j] > sum->corpus[i])
			sum->corpus[i] = w->corpus[j];
		if (w->edges[j] > sum->edges[i])
			sum->edges[i] = w->edges[j];
	}
}

static int insert_samples(sqlite3 *db, const struct night *n, const char *test,
			  const struct samples *s)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (history_prepare(db,
			    "INSERT INTO samples(night, test, t, execs, edges, failures, corpus)"
			    " VALUES (?, ?, ?, ?, ?, ?, ?)",
			    &st))
		return -1;
	for (size_t i = 0; i < s->count && !rc; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, n->id);
		sqlite3_bind_text(st, 2, test, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 3, (double)i * SAMPLE_STEP_S);
		sqlite3_bind_int64(st, 4, (int64_t)s->execs[i]);
		sqlite3_bind_int64(st, 5, (int64_t)s->edges[i]);
		sqlite3_bind_int64(st, 6, (int64_t)s->failures[i]);
		sqlite3_bind_int64(st, 7, (int64_t)s->corpus[i]);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	}
	sqlite3_finalize(st);
	return rc;
}

static int record_samples(sqlite3 *db, const struct night *n, const struct suite_test *t)
{
	static struct samples sum, w;
	char sql[256];

	sqlite3_snprintf(sizeof(sql), sql, "DELETE FROM samples WHERE night = %lld AND test = %Q",
			 (long long)n->id, t->name);
	if (history_exec(db, sql, "replace the night's samples"))
		return -1;
	memset(&sum, 0, sizeof(sum));
	for (unsigned int k = 0; k < n->workers; k++) {
		char path[PATH_MAX], name[32];

		snprintf(name, sizeof(name), WORKER_SAMPLES_FMT, k);
		memset(&w, 0, sizeof(w));
		if (worker_has_test(n, t, k) &&
		    !night_test_path(n, t->name, name, path, sizeof(path))) {
			read_worker_samples(path, &w);
			add_worker_samples(&sum, &w);
		}
	}
	return insert_samples(db, n, t->name, &sum);
}

static int record_night_state(sqlite3 *db, const struct night *n, const char *state)
{
	char sql[256];

	sqlite3_snprintf(sizeof(sql), sql,
			 "UPDATE nights SET ended = %lld, state = %Q WHERE id = %lld",
			 (long long)time(NULL), state, (long long)n->id);
	return history_exec(db, sql, "record the night's end");
}

/* RESULTS/latest -> nights/NNNN, replaced atomically. */
static void link_latest(const struct night *n)
{
	char target[64], tmp[PATH_MAX + 32], link[PATH_MAX + 16];

	snprintf(target, sizeof(target), "nights/%04" PRId64, n->id);
	snprintf(tmp, sizeof(tmp), "%s/.latest.%d", n->results, (int)getpid());
	snprintf(link, sizeof(link), "%s/latest", n->results);
	unlink(tmp);
	if (symlink(target, tmp) || rename(tmp, link)) {
		rw_err_errno(errno, "cannot link %s to the night", link);
		unlink(tmp);
	}
}

static int import_tests(sqlite3 *db, const struct night *n, bool *failed)
{
	for (size_t i = 0; i < n->suite.count; i++) {
		const struct suite_test *t = &n->suite.tests[i];
		struct test_totals tt;

		test_totals(n, t, &tt);
		if (!strcmp(tt.state, "failed")) {
			rw_err("night %" PRId64 ": test %s could not run: %s", n->id, t->name,
			       tt.error[0] ? tt.error : "(no reason recorded)");
			*failed = true;
		}
		if (record_test(db, n, t, &tt) || record_samples(db, n, t))
			return -1;
		/* a test that could not run, skipped or got no time says nothing of its buckets */
		if (strcmp(tt.state, "failed") && strcmp(tt.state, "skipped") &&
		    strcmp(tt.state, "not-run") && buckets_import_test(db, n, t))
			return -1;
	}
	return buckets_update_totals(db);
}

int finish_night(const struct night *n, bool interrupted)
{
	sqlite3 *db;
	bool failed = false;
	int rc, verdict;

	fprintf(stderr, "%s: night %" PRId64 ": grouping failures into buckets\n", rw_log.program,
		n->id);
	if (history_open(n->results, &db))
		return REWIND_EXIT_HOST;
	rc = import_tests(db, n, &failed);
	if (record_night_state(db, n,
			       rc || failed  ? "failed"
			       : interrupted ? "interrupted"
					     : "done"))
		rc = -1;
	sqlite3_close(db);
	link_latest(n);
	if (rc)
		return REWIND_EXIT_HOST;
	/* the report of a night just recorded: any error is the host's */
	return report_write(n->results, n->id, &verdict) ? REWIND_EXIT_HOST : verdict;
}

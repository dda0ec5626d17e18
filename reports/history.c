/* SPDX-License-Identifier: MIT */
/* RESULTS/history.sqlite: opening it, its schema, small query helpers. */
#include "reports/history.h"

#include "lib/log.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static const char SCHEMA[] =
	"CREATE TABLE IF NOT EXISTS nights(id INTEGER PRIMARY KEY, dir TEXT, suite TEXT,"
	" engine TEXT, started INTEGER, ended INTEGER, seconds INTEGER, jobs INTEGER, state TEXT);"
	"CREATE TABLE IF NOT EXISTS night_tests(night INTEGER, test TEXT, state TEXT,"
	" seconds_planned INTEGER, seconds_run REAL, execs INTEGER, exec_per_s REAL,"
	" edges INTEGER, failures INTEGER, error TEXT, PRIMARY KEY (night, test));"
	"CREATE TABLE IF NOT EXISTS samples(night INTEGER, test TEXT, t REAL, execs INTEGER,"
	" edges INTEGER, failures INTEGER, corpus INTEGER);"
	"CREATE TABLE IF NOT EXISTS buckets(id TEXT PRIMARY KEY, test TEXT, class TEXT,"
	" status TEXT, message TEXT, sites TEXT, first_night INTEGER, last_night INTEGER,"
	" nights_seen INTEGER, failures INTEGER, state TEXT, artifact TEXT, explanation TEXT,"
	" replay TEXT, site_key TEXT);"
	"CREATE TABLE IF NOT EXISTS signatures(id TEXT PRIMARY KEY, bucket TEXT, test TEXT,"
	" message TEXT, first_night INTEGER);"
	"CREATE TABLE IF NOT EXISTS bucket_nights(bucket TEXT, night INTEGER, failures INTEGER,"
	" state TEXT, PRIMARY KEY (bucket, night));";

static int open_path(const char *results_dir, int flags, sqlite3 **db)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", results_dir, HISTORY_FILE) >=
	    sizeof(path)) {
		rw_err("results directory path too long: %s", results_dir);
		return -1;
	}
	if (sqlite3_open_v2(path, db, flags, NULL) != SQLITE_OK) {
		rw_err("cannot open the history %s: %s", path,
		       *db ? sqlite3_errmsg(*db) : "out of memory");
		sqlite3_close(*db);
		*db = NULL;
		return -1;
	}
	/* a worker's report may read while the finishing step writes */
	sqlite3_busy_timeout(*db, 10000);
	return 0;
}

int history_open(const char *results_dir, sqlite3 **db)
{
	if (open_path(results_dir, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, db))
		return -1;
	if (history_exec(*db, SCHEMA, "create the history's tables")) {
		sqlite3_close(*db);
		*db = NULL;
		return -1;
	}
	return 0;
}

int history_open_existing(const char *results_dir, sqlite3 **db)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", results_dir, HISTORY_FILE);
	if (access(path, R_OK)) {
		rw_err("%s has no history (%s); is it a results directory of rewind explore?",
		       results_dir, HISTORY_FILE);
		return -1;
	}
	return open_path(results_dir, SQLITE_OPEN_READONLY, db);
}

int history_exec(sqlite3 *db, const char *sql, const char *what)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	rw_err("history: cannot %s: %s", what, msg ? msg : "unknown error");
	sqlite3_free(msg);
	return -1;
}

int history_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) == SQLITE_OK)
		return 0;
	rw_err("history: bad query (%s): %s", sqlite3_errmsg(db), sql);
	return -1;
}

int history_latest_night(sqlite3 *db, int64_t *night)
{
	sqlite3_stmt *st;

	*night = 0;
	if (history_prepare(db, "SELECT COALESCE(MAX(id), 0) FROM nights", &st))
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		*night = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

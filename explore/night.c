/* SPDX-License-Identifier: MIT */
/* Planning a night: its id and folder, which worker fuzzes which test, night.json. */
#include "explore/night.h"

#include "lib/file.h"
#include "lib/install_paths.h"
#include "lib/json_file.h"
#include "lib/log.h"
#include "reports/history.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NIGHT_FILE_MAX (64u << 20) /* thousands of tests, each with its options */

int night_default_tools(struct night_tools *t)
{
	struct install_paths where;
	char corpus[PATH_MAX];
	int rc = install_paths_get(&where);

	if (rc < 0) {
		rw_err_errno(-rc, "cannot find my own program");
		return -1;
	}
	if (install_paths_program(&where, "rewind-harness", t->harness, sizeof(t->harness)) ||
	    file_path_join(t->mutator, sizeof(t->mutator), where.lib, "rewind-mutator.so") ||
	    file_path_join(corpus, sizeof(corpus), where.share, "corpus") ||
	    file_path_join(t->corpus_pct, sizeof(t->corpus_pct), corpus, "pct") ||
	    file_path_join(t->corpus_ledger, sizeof(t->corpus_ledger), corpus, "ledger"))
		return -1;
	return 0;
}

static const char *layout_name(enum night_layout l)
{
	return l == LAYOUT_INSTANCES ? "instances" : "tests";
}

/* The plan (plan.h), a function of the suite, the budget, the workers, the layout and the id. */
static void plan_tests(struct night *n)
{
	struct plan p = {
		.seconds = n->seconds, .workers = n->workers, .layout = n->layout, .night = n->id};

	plan_night(&n->suite, &p);
	n->workers = p.workers;
	n->layout = p.layout;
	n->planned = p.planned;
	n->first_planned = p.first;
}

static cJSON *tools_json(const struct night_tools *t)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "harness", t->harness);
	cJSON_AddStringToObject(o, "mutator", t->mutator);
	cJSON_AddStringToObject(o, "corpus_pct", t->corpus_pct);
	cJSON_AddStringToObject(o, "corpus_ledger", t->corpus_ledger);
	return o;
}

static int write_night_json(const struct night *n)
{
	cJSON *o = cJSON_CreateObject();
	char path[PATH_MAX];
	int rc;

	cJSON_AddStringToObject(o, "format", "rewind-night");
	cJSON_AddNumberToObject(o, "version", 1);
	cJSON_AddNumberToObject(o, "night", (double)n->id);
	cJSON_AddStringToObject(o, "suite", n->suite_path);
	cJSON_AddStringToObject(o, "engine", n->engine);
	cJSON_AddStringToObject(o, "layout", layout_name(n->layout));
	cJSON_AddNumberToObject(o, "started", (double)n->started);
	cJSON_AddNumberToObject(o, "seconds", n->seconds);
	cJSON_AddNumberToObject(o, "workers", n->workers);
	/* the others get no time this night: "seconds" 0, "worker" -2 */
	cJSON_AddNumberToObject(o, "tests_planned", (double)n->planned);
	cJSON_AddItemToObject(o, "tools", tools_json(&n->tools));
	cJSON_AddItemToObject(o, "tests", suite_to_json(&n->suite));
	rc = file_path_join(path, sizeof(path), n->dir, NIGHT_FILE) ? -1
								    : json_write_atomic(path, o);
	cJSON_Delete(o);
	return rc ? -1 : 0;
}

/* A row in nights gives the night its id. */
static int allocate_id(struct night *n)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int rc = -1;

	if (history_open(n->results, &db))
		return -1;
	if (!history_prepare(db,
			     "INSERT INTO nights(suite, engine, started, seconds, jobs, state)"
			     " VALUES (?, ?, ?, ?, ?, 'running')",
			     &st)) {
		sqlite3_bind_text(st, 1, n->suite_path, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, n->engine, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, n->started);
		sqlite3_bind_int64(st, 4, n->seconds);
		sqlite3_bind_int64(st, 5, n->workers);
		if (sqlite3_step(st) == SQLITE_DONE) {
			n->id = sqlite3_last_insert_rowid(db);
			rc = 0;
		} else {
			rw_err("cannot record the night: %s", sqlite3_errmsg(db));
		}
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return rc;
}

static int record_dir(const struct night *n)
{
	sqlite3 *db;
	char sql[PATH_MAX + 128];
	int rc;

	if (history_open(n->results, &db))
		return -1;
	sqlite3_snprintf(sizeof(sql), sql, "UPDATE nights SET dir = %Q WHERE id = %lld", n->dir,
			 (long long)n->id);
	rc = history_exec(db, sql, "record the night's folder");
	sqlite3_close(db);
	return rc;
}

int night_create(struct night *n, const char *results)
{
	char nights[PATH_MAX], name[32];

	if (file_make_dir(results))
		return -1;
	if (!realpath(results, n->results)) {
		rw_err_errno(errno, "cannot use %s for results", results);
		return -1;
	}
	n->started = (int64_t)time(NULL);
	if (!n->workers)
		n->workers = 1; /* the callers ask for at least one */
	if (allocate_id(n))
		return -1;
	plan_tests(n); /* which tests get time depends on the night's id */
	snprintf(name, sizeof(name), "%04" PRId64, n->id);
	if (file_path_join(nights, sizeof(nights), n->results, "nights") || file_make_dir(nights) ||
	    file_path_join(n->dir, sizeof(n->dir), nights, name))
		return -1;
	if (mkdir(n->dir, 0755)) {
		rw_err_errno(errno, "cannot create the night's folder %s (nothing was changed)",
			     n->dir);
		return -1;
	}
	if (record_dir(n))
		return -1;
	for (size_t i = 0; i < n->suite.count; i++) {
		char path[PATH_MAX];

		if (n->suite.tests[i].worker == SUITE_WORKER_NONE)
			continue; /* no time this night: nothing to keep */
		if (night_test_path(n, n->suite.tests[i].name, NULL, path, sizeof(path)) ||
		    file_make_dir(path))
			return -1;
	}
	return write_night_json(n);
}

static int string_field(const cJSON *o, const char *key, char *out, size_t len)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsString(v) || strlen(v->valuestring) >= len)
		return -1;
	memcpy(out, v->valuestring, strlen(v->valuestring) + 1);
	return 0;
}

static int number_field(const cJSON *o, const char *key, double max, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > max)
		return -1;
	*out = v->valuedouble;
	return 0;
}

static int parse_night(const cJSON *o, struct night *n)
{
	const cJSON *tools = cJSON_GetObjectItemCaseSensitive(o, "tools");
	char layout[16];
	double id, started, seconds, workers;

	if (number_field(o, "night", 1e9, &id) || number_field(o, "started", 1e12, &started) ||
	    number_field(o, "seconds", 1e8, &seconds) ||
	    number_field(o, "workers", 1e5, &workers) ||
	    string_field(o, "suite", n->suite_path, sizeof(n->suite_path)) ||
	    string_field(o, "engine", n->engine, sizeof(n->engine)) ||
	    string_field(o, "layout", layout, sizeof(layout)) ||
	    string_field(tools, "harness", n->tools.harness, sizeof(n->tools.harness)) ||
	    string_field(tools, "mutator", n->tools.mutator, sizeof(n->tools.mutator)) ||
	    string_field(tools, "corpus_pct", n->tools.corpus_pct, sizeof(n->tools.corpus_pct)) ||
	    string_field(tools, "corpus_ledger", n->tools.corpus_ledger,
			 sizeof(n->tools.corpus_ledger)) ||
	    workers < 1)
		return -1;
	n->id = (int64_t)id;
	n->started = (int64_t)started;
	n->seconds = (unsigned int)seconds;
	n->workers = (unsigned int)workers;
	n->layout = !strcmp(layout, "instances") ? LAYOUT_INSTANCES : LAYOUT_TESTS;
	return suite_from_json(cJSON_GetObjectItemCaseSensitive(o, "tests"), &n->suite, NIGHT_FILE);
}

int night_load(const char *night_dir, struct night *n)
{
	char path[PATH_MAX], parent[PATH_MAX + 8];
	uint8_t *data;
	size_t len;
	cJSON *o;
	int rc;

	memset(n, 0, sizeof(*n));
	if (!realpath(night_dir, n->dir) ||
	    file_path_join(path, sizeof(path), n->dir, NIGHT_FILE) || access(path, F_OK)) {
		rw_err("%s is not a night's folder (no %s); give a folder RESULTS/nights/NNNN",
		       night_dir, NIGHT_FILE);
		return -1;
	}
	if (file_read_max(path, NIGHT_FILE_MAX, "night file", &data, &len))
		return -1; /* reported */
	o = cJSON_ParseWithLength((const char *)data, len);
	free(data);
	rc = o ? parse_night(o, n) : -1;
	cJSON_Delete(o);
	snprintf(parent, sizeof(parent), "%s/../..", n->dir);
	if (!rc && !realpath(parent, n->results))
		rc = -1;
	if (rc)
		rw_err("%s is damaged; plan again with a new night", path);
	return rc;
}

int night_test_path(const struct night *n, const char *test, const char *sub, char *out, size_t len)
{
	int w = sub ? snprintf(out, len, "%s/%s/%s", n->dir, test, sub)
		    : snprintf(out, len, "%s/%s", n->dir, test);

	if (w >= 0 && (size_t)w < len)
		return 0;
	rw_err("path too long under %s", n->dir);
	return -1;
}

int night_latest_dir(const char *results, char *out, size_t len)
{
	sqlite3 *db;
	int64_t id = 0;
	int rc;

	if (history_open_existing(results, &db))
		return -1;
	rc = history_latest_night(db, &id);
	sqlite3_close(db);
	if (rc || !id) {
		rw_err("%s has no night yet; there is nothing to resume", results);
		return -1;
	}
	if ((size_t)snprintf(out, len, "%s/nights/%04" PRId64, results, id) >= len)
		return -1;
	return 0;
}

void night_free(struct night *n)
{
	suite_free(&n->suite);
}

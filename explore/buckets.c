/* SPDX-License-Identifier: MIT */
/*
 * A night's failures into buckets: grouped by signature; a signature seen
 * for the first time is kept and explained (bucket_keep.c) and joins the
 * test's bucket whose failures land at the same functions, or starts a new
 * one; the buckets a night did not find are checked against the build.
 */
#include "explore/buckets.h"

#include "explore/bucket_keep.h"
#include "explore/signature.h"
#include "lib/file.h"
#include "lib/log.h"
#include "lib/spawn.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GROUPS_MAX   256
#define REPLAY_FIXED 0 /* rewind-harness --replay --expect-fixed: the job passes */
#define REPLAY_FAILS 1 /* ... it still fails */
#define REPLAY_OTHER 3 /* ... neither passes nor fails (a skip: "differs") */

/* The failing runs of one signature this night. */
struct group {
	struct signature sig;
	size_t count;
	const char *first[KEEP_CANDIDATES]; /* the first artifacts by name */
};

/* A bucket found this night and its failing runs (several signatures may share it). */
struct tally {
	char bucket[17];
	size_t count;
};

struct bucket_ctx {
	sqlite3 *db;
	const struct night *n;
	const struct suite_test *t;
	struct tally tallies[GROUPS_MAX];
	size_t tally_count;
};

static struct group *group_of(struct group *groups, size_t *count, const struct signature *sig)
{
	for (size_t i = 0; i < *count; i++)
		if (!strcmp(groups[i].sig.id, sig->id))
			return &groups[i];
	if (*count == GROUPS_MAX)
		return NULL;
	groups[*count] = (struct group){.sig = *sig};
	return &groups[(*count)++];
}

/*
 * The first column of the first row of sql with ?1 = a and, unless b is
 * NULL, ?2 = b, into out; false if there is no row.
 */
static bool query_text(sqlite3 *db, const char *sql, const char *a, const char *b, char *out,
		       size_t len)
{
	sqlite3_stmt *st;
	bool found = false;

	out[0] = 0;
	if (history_prepare(db, sql, &st))
		return false;
	sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
	if (b)
		sqlite3_bind_text(st, 2, b, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		found = true;
		if (sqlite3_column_text(st, 0))
			snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	return found;
}

/* The bucket's state on the last night before this one ("" if none). */
static void state_before(sqlite3 *db, const char *id, int64_t night, char *out, size_t len)
{
	char text[24];

	snprintf(text, sizeof(text), "%" PRId64, night);
	query_text(
		db,
		"SELECT state FROM bucket_nights WHERE bucket = ?1 AND night < CAST(?2 AS INTEGER)"
		" ORDER BY night DESC LIMIT 1",
		id, text, out, len);
}

static int record_night(sqlite3 *db, const char *id, int64_t night, size_t failures,
			const char *state)
{
	sqlite3_stmt *st;
	int rc;

	if (history_prepare(db,
			    "INSERT OR REPLACE INTO bucket_nights(bucket, night, failures, state)"
			    " VALUES (?, ?, ?, ?)",
			    &st))
		return -1;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, night);
	sqlite3_bind_int64(st, 3, (int64_t)failures);
	sqlite3_bind_text(st, 4, state, -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	if (rc)
		rw_err("cannot record bucket %s: %s", id, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc;
}

static int insert_bucket(const struct bucket_ctx *c, const struct signature *sig,
			 const struct kept *k)
{
	char replay[4 * PATH_MAX];
	sqlite3_stmt *st;
	int rc;

	snprintf(replay, sizeof(replay), "%s --replay %s/%s --trust", c->n->tools.harness,
		 c->n->results, k->artifact);
	if (history_prepare(c->db,
			    "INSERT INTO buckets(id, test, class, status, message, sites, site_key,"
			    " first_night, last_night, nights_seen, failures, state, artifact,"
			    " explanation, replay)"
			    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 'new', ?, ?, ?)",
			    &st))
		return -1;
	sqlite3_bind_text(st, 1, sig->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, c->t->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, sig->cls, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, sig->status, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, sig->message, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, k->sites, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, k->site_key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, c->n->id);
	sqlite3_bind_int64(st, 9, c->n->id);
	sqlite3_bind_text(st, 10, k->artifact, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 11, k->explanation, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 12, replay, -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	if (rc)
		rw_err("cannot record bucket %s: %s", sig->id, sqlite3_errmsg(c->db));
	sqlite3_finalize(st);
	return rc;
}

/* signature -> bucket, and the signature's message among the bucket's. */
static int record_signature(const struct bucket_ctx *c, const struct signature *sig,
			    const char *bucket)
{
	char sql[1024];

	sqlite3_snprintf(sizeof(sql), sql,
			 "INSERT OR REPLACE INTO signatures(id, bucket, test, message, first_night)"
			 " VALUES (%Q, %Q, %Q, %Q, %lld);",
			 sig->id, bucket, c->t->name, sig->message, (long long)c->n->id);
	if (strcmp(sig->id, bucket) && sig->message[0])
		sqlite3_snprintf(
			sizeof(sql) - strlen(sql), sql + strlen(sql),
			"UPDATE buckets SET message = message || ' | ' || %Q WHERE id = %Q;",
			sig->message, bucket);
	return history_exec(c->db, sql, "record a failure signature");
}

/*
 * The bucket of a signature seen for the first time: explained, it joins
 * the test's bucket whose minimised failures land at the same functions
 * (one bug often fails at several checks: its messages differ, its sites
 * do not), or it is a new bucket. 0 (bucket set), 1 unconfirmed, -1 error.
 */
static int first_seen(const struct bucket_ctx *c, const struct group *g, char *bucket)
{
	struct kept k;
	int rc = bucket_keep(c->n->results, c->n->tools.harness, &g->sig, g->first,
			     g->count < KEEP_CANDIDATES ? g->count : KEEP_CANDIDATES, &k);

	if (rc == 1)
		fprintf(stderr,
			"%s: %zu failing run%s of %s (%s) did not fail again when "
			"replayed: not a bucket (a failure that depends on the host's load?); "
			"see %s/buckets/%s/explain.txt\n",
			rw_log.program, g->count, g->count == 1 ? "" : "s", c->t->name, g->sig.cls,
			c->n->results, g->sig.id);
	if (rc)
		return rc;
	if (k.site_key[0] &&
	    query_text(
		    c->db,
		    "SELECT id FROM buckets WHERE test = ?1 AND site_key = ?2 ORDER BY first_night"
		    " LIMIT 1",
		    c->t->name, k.site_key, bucket, 17)) {
		fprintf(stderr, "%s: %s fails at the same sites as bucket %s: one bug\n",
			rw_log.program, g->sig.id, bucket);
		bucket_keep_discard(c->n->results, g->sig.id);
	} else {
		snprintf(bucket, 17, "%s", g->sig.id);
		if (insert_bucket(c, &g->sig, &k))
			return -1;
	}
	return record_signature(c, &g->sig, bucket);
}

static void tally(struct bucket_ctx *c, const char *bucket, size_t count)
{
	for (size_t i = 0; i < c->tally_count; i++)
		if (!strcmp(c->tallies[i].bucket, bucket)) {
			c->tallies[i].count += count;
			return;
		}
	if (c->tally_count < GROUPS_MAX) {
		snprintf(c->tallies[c->tally_count].bucket, 17, "%s", bucket);
		c->tallies[c->tally_count++].count = count;
	}
}

/* A group's bucket: known from an earlier signature, or decided now. */
static int resolve_group(struct bucket_ctx *c, const struct group *g)
{
	char bucket[17];
	int rc = 0;

	if (!query_text(c->db, "SELECT bucket FROM signatures WHERE id = ?1", g->sig.id, NULL,
			bucket, sizeof(bucket)))
		rc = first_seen(c, g, bucket);
	if (rc == 0)
		tally(c, bucket, g->count);
	return rc < 0 ? -1 : 0;
}

/* A bucket found this night: new, still failing, or reopened. */
static int found_bucket(const struct bucket_ctx *c, const struct tally *b)
{
	char first[32], before[32];

	query_text(c->db, "SELECT first_night FROM buckets WHERE id = ?1", b->bucket, NULL, first,
		   sizeof(first));
	state_before(c->db, b->bucket, c->n->id, before, sizeof(before));
	return record_night(c->db, b->bucket, c->n->id, b->count,
			    strtoll(first, NULL, 10) == c->n->id ? "new"
			    : !strcmp(before, "fixed")		 ? "reopened"
								 : "still-failing");
}

static bool log_says(const char *log, const char *text)
{
	uint8_t *data;
	size_t len;
	bool found;

	if (file_read_max(log, 16u << 20, "replay log", &data, &len))
		return false;
	found = memmem(data, len, text, strlen(text)) != NULL;
	free(data);
	return found;
}

/*
 * A bucket this night did not find: does its artifact still fail with the
 * test's job as the suite gives it now? fixed, still-failing, or flaky.
 */
static const char *check_fix(const struct bucket_ctx *c, const char *artifact)
{
	char path[3 * PATH_MAX], log[3 * PATH_MAX], *argv[2 * SUITE_MAX_ARGS + 16];
	size_t a = 0;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", c->n->results, artifact);
	snprintf(log, sizeof(log), "%s/%s/fix-check.log", c->n->dir, c->t->name);
	argv[a++] = (char *)c->n->tools.harness;
	argv[a++] = "--replay";
	argv[a++] = path;
	argv[a++] = "--trust";
	argv[a++] = "--expect-fixed";
	for (size_t i = 0; i < c->t->arg_count; i++)
		argv[a++] = c->t->args[i];
	argv[a++] = "--";
	for (size_t i = 0; i < c->t->command_len; i++)
		argv[a++] = c->t->command[i];
	argv[a] = NULL;
	unlink(log);
	rc = spawn_run(argv, log);
	if (rc == REPLAY_FIXED)
		return "fixed";
	if (rc == REPLAY_OTHER && log_says(log, "neither fails nor passes"))
		return "flaky";
	if (rc != REPLAY_FAILS)
		fprintf(stderr, "%s: could not replay %s (see %s); kept as failing\n",
			rw_log.program, path, log);
	return "still-failing";
}

static bool found_tonight(const struct bucket_ctx *c, const char *id)
{
	for (size_t i = 0; i < c->tally_count; i++)
		if (!strcmp(c->tallies[i].bucket, id))
			return true;
	return false;
}

/* The test's earlier buckets this night did not find. */
static int check_missing(const struct bucket_ctx *c)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (history_prepare(c->db, "SELECT id, artifact FROM buckets WHERE test = ? ORDER BY id",
			    &st))
		return -1;
	sqlite3_bind_text(st, 1, c->t->name, -1, SQLITE_STATIC);
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		char id[17], before[32], artifact[PATH_MAX];

		snprintf(id, sizeof(id), "%s", (const char *)sqlite3_column_text(st, 0));
		snprintf(artifact, sizeof(artifact), "%s",
			 (const char *)sqlite3_column_text(st, 1));
		if (found_tonight(c, id))
			continue;
		state_before(c->db, id, c->n->id, before, sizeof(before));
		rc = record_night(c->db, id, c->n->id, 0,
				  !strcmp(before, "fixed") ? "fixed" : check_fix(c, artifact));
	}
	sqlite3_finalize(st);
	return rc;
}

int buckets_import_test(sqlite3 *db, const struct night *n, const struct suite_test *t)
{
	static struct bucket_ctx c;
	static struct group groups[GROUPS_MAX];
	char dir[PATH_MAX], buckets[PATH_MAX + 16], **paths;
	size_t count, group_count = 0;
	int rc = 0;

	c = (struct bucket_ctx){.db = db, .n = n, .t = t};
	snprintf(buckets, sizeof(buckets), "%s/buckets", n->results);
	if ((mkdir(buckets, 0755) && errno != EEXIST) ||
	    night_test_path(n, t->name, "artifacts", dir, sizeof(dir)) ||
	    signature_list_artifacts(dir, &paths, &count)) {
		rw_err("cannot read the artifacts of %s", t->name);
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		struct signature sig;
		struct group *g;

		if (signature_of_artifact(paths[i], t->name, &sig) ||
		    !(g = group_of(groups, &group_count, &sig)))
			continue;
		if (g->count < KEEP_CANDIDATES)
			g->first[g->count] = paths[i];
		g->count++;
	}
	for (size_t i = 0; i < group_count && !rc; i++)
		rc = resolve_group(&c, &groups[i]);
	for (size_t i = 0; i < c.tally_count && !rc; i++)
		rc = found_bucket(&c, &c.tallies[i]);
	if (!rc)
		rc = check_missing(&c);
	signature_free_list(paths, count);
	return rc;
}

int buckets_update_totals(sqlite3 *db)
{
	return history_exec(
		db,
		"UPDATE buckets SET"
		" nights_seen = (SELECT COUNT(*) FROM bucket_nights b WHERE b.bucket = buckets.id"
		"   AND b.failures > 0),"
		" last_night = (SELECT MAX(night) FROM bucket_nights b WHERE b.bucket = buckets.id"
		"   AND b.failures > 0),"
		" failures = (SELECT COALESCE(SUM(failures), 0) FROM bucket_nights b"
		"   WHERE b.bucket = buckets.id),"
		" state = (SELECT state FROM bucket_nights b WHERE b.bucket = buckets.id"
		"   ORDER BY night DESC LIMIT 1)",
		"update the buckets' totals");
}

/* SPDX-License-Identifier: MIT */
/* report/summary.json (format "rewind-report", docs/explore.md). */
#include "reports/report_summary.h"

#include "lib/log.h"

#include <stdlib.h>
#include <string.h>

/* A JSON string (invalid UTF-8 replaced: it may be guest output), or null for NULL. */
static cJSON *text_or_null(const char *s)
{
	char *valid = report_utf8(s);
	cJSON *o = valid ? cJSON_CreateString(valid) : cJSON_CreateNull();

	free(valid);
	return o;
}

static void add_text(cJSON *o, const char *key, const char *s)
{
	cJSON_AddItemToObject(o, key, text_or_null(s));
}

/* Adds the pieces of plain text between newlines and semicolons, trimmed. */
static void add_text_sites(cJSON *list, const char *sites)
{
	const char *p = sites;

	while (*p) {
		size_t len = strcspn(p, "\n;");
		size_t start = 0, end = len;

		while (start < end && (p[start] == ' ' || p[start] == '\t' || p[start] == '\r'))
			start++;
		while (end > start &&
		       (p[end - 1] == ' ' || p[end - 1] == '\t' || p[end - 1] == '\r'))
			end--;
		if (end > start) {
			char *piece = strndup(p + start, end - start);

			if (piece)
				cJSON_AddItemToArray(list, text_or_null(piece));
			free(piece);
		}
		p += len + (p[len] != 0);
	}
}

cJSON *report_sites_json(const char *sites)
{
	char *valid = report_utf8(sites);
	cJSON *parsed = valid ? cJSON_Parse(valid) : NULL, *list;

	free(valid);
	if (cJSON_IsArray(parsed))
		return parsed;
	cJSON_Delete(parsed);
	list = cJSON_CreateArray();
	if (sites)
		add_text_sites(list, sites);
	return list;
}

static cJSON *night_json(const struct report *r)
{
	const struct report_night *n = &r->night;
	cJSON *o = cJSON_CreateObject();
	char dir[64];

	snprintf(dir, sizeof(dir), "nights/%s", r->night_name);
	cJSON_AddNumberToObject(o, "id", (double)n->id);
	cJSON_AddStringToObject(o, "dir", dir);
	add_text(o, "suite", n->suite);
	add_text(o, "engine", n->engine);
	add_text(o, "state", n->state);
	cJSON_AddNumberToObject(o, "started", (double)n->started);
	cJSON_AddNumberToObject(o, "ended", (double)n->ended);
	cJSON_AddNumberToObject(o, "seconds", (double)n->seconds);
	cJSON_AddNumberToObject(o, "jobs", (double)n->jobs);
	return o;
}

static cJSON *test_json(const struct report *r, const struct report_test *t)
{
	cJSON *o = cJSON_CreateObject(), *ids;

	add_text(o, "name", t->name);
	add_text(o, "state", t->state);
	add_text(o, "error", t->error);
	cJSON_AddNumberToObject(o, "seconds_planned", (double)t->seconds_planned);
	cJSON_AddNumberToObject(o, "seconds", t->seconds_run);
	cJSON_AddNumberToObject(o, "execs", (double)t->execs);
	cJSON_AddNumberToObject(o, "exec_per_s", t->exec_per_s);
	cJSON_AddNumberToObject(o, "edges", (double)t->edges);
	cJSON_AddNumberToObject(o, "failures", (double)t->failures);
	ids = cJSON_AddArrayToObject(o, "buckets");
	for (size_t i = 0; i < r->bucket_count; i++)
		if (report_bucket_of(&r->buckets[i], t))
			cJSON_AddItemToArray(ids, text_or_null(r->buckets[i].id));
	return o;
}

static cJSON *bucket_json(const struct report_bucket *b)
{
	cJSON *o = cJSON_CreateObject();

	add_text(o, "id", b->id);
	add_text(o, "test", b->test);
	add_text(o, "class", b->cls);
	add_text(o, "status", b->status);
	add_text(o, "message", b->message);
	cJSON_AddItemToObject(o, "sites", report_sites_json(b->sites));
	add_text(o, "state", b->state);
	cJSON_AddBoolToObject(o, "open", report_state_is_open(b->state));
	cJSON_AddNumberToObject(o, "failures", (double)b->failures_night);
	cJSON_AddNumberToObject(o, "failures_total", (double)b->failures_total);
	cJSON_AddNumberToObject(o, "first_night", (double)b->first_night);
	cJSON_AddNumberToObject(o, "last_night", (double)b->last_night);
	cJSON_AddNumberToObject(o, "nights_seen", (double)b->nights_seen);
	add_text(o, "artifact", b->artifact);
	add_text(o, "minimised_artifact", b->minimised);
	add_text(o, "explanation", b->explanation);
	add_text(o, "replay", b->replay);
	return o;
}

/* How many buckets are in each state that night. */
static cJSON *counts_json(const struct report *r)
{
	static const char *const states[] = {"new", "reopened", "still-failing", "flaky", "fixed"};
	cJSON *o = cJSON_CreateObject();
	size_t open = 0;

	for (size_t s = 0; s < sizeof(states) / sizeof(states[0]); s++) {
		size_t n = 0;

		for (size_t i = 0; i < r->bucket_count; i++)
			n += !strcmp(report_text(r->buckets[i].state), states[s]);
		cJSON_AddNumberToObject(o, states[s], (double)n);
	}
	for (size_t i = 0; i < r->bucket_count; i++)
		open += report_state_is_open(r->buckets[i].state);
	cJSON_AddNumberToObject(o, "open", (double)open);
	return o;
}

/* How many tests are in each state that night. */
static cJSON *test_counts_json(const struct report *r)
{
	static const char *const states[] = {"done", "interrupted", "failed", "skipped", "not-run"};
	cJSON *o = cJSON_CreateObject();

	for (size_t s = 0; s < sizeof(states) / sizeof(states[0]); s++) {
		size_t n = 0;

		for (size_t i = 0; i < r->test_count; i++)
			n += !strcmp(report_text(r->tests[i].state), states[s]);
		cJSON_AddNumberToObject(o, states[s], (double)n);
	}
	return o;
}

static cJSON *summary_json(const struct report *r)
{
	cJSON *o = cJSON_CreateObject(), *list;

	cJSON_AddStringToObject(o, "format", "rewind-report");
	cJSON_AddNumberToObject(o, "version", 1);
	cJSON_AddItemToObject(o, "night", night_json(r));
	cJSON_AddNumberToObject(o, "exit_status", r->status);
	cJSON_AddStringToObject(o, "verdict", r->verdict);
	cJSON_AddItemToObject(o, "bucket_counts", counts_json(r));
	cJSON_AddItemToObject(o, "test_counts", test_counts_json(r));
	list = cJSON_AddArrayToObject(o, "tests");
	for (size_t i = 0; i < r->test_count; i++)
		cJSON_AddItemToArray(list, test_json(r, &r->tests[i]));
	list = cJSON_AddArrayToObject(o, "buckets");
	for (size_t i = 0; i < r->bucket_count; i++)
		cJSON_AddItemToArray(list, bucket_json(&r->buckets[i]));
	return o;
}

int report_summary_write(struct report *r)
{
	cJSON *json = summary_json(r);
	char *text = cJSON_Print(json);
	struct report_stream s;
	int rc = -1;

	cJSON_Delete(json);
	if (!text) {
		rw_err("out of memory writing summary.json");
		return -1;
	}
	if (report_stream_open(&s) == 0) {
		fprintf(s.f, "%s\n", text);
		rc = report_stream_commit(r, &s, "summary.json");
	}
	free(text);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/* The live progress line of `rewind explore`. */
#include "explore/progress.h"

#include "explore/signature.h"
#include "explore/worker_result.h"
#include "lib/file.h"
#include "lib/log.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#define PLOT_DATA_MAX (256u << 20)

int progress_plot_rows(const char *instance_dir, void (*fn)(const struct plot_row *, void *),
		       void *ctx)
{
	char path[PATH_MAX + 16];
	uint8_t *data;
	size_t len;
	char *line, *save = NULL;

	snprintf(path, sizeof(path), "%s/plot_data", instance_dir);
	if (access(path, R_OK) || file_read_max(path, PLOT_DATA_MAX, "plot_data", &data, &len))
		return -1;
	data[len ? len - 1 : 0] = 0; /* the last line ends with a newline */
	for (line = strtok_r((char *)data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		double v[13];
		struct plot_row r;

		/* relative_time, cycles_done, cur_item, corpus_count, pending_total,
		 * pending_favs, map_size, saved_crashes, saved_hangs, max_depth,
		 * execs_per_sec, total_execs, edges_found */
		if (line[0] == '#' ||
		    sscanf(line,
			   "%lf, %lf, %lf, %lf, %lf, %lf, %lf%%, %lf, %lf, %lf, %lf, %lf, %lf",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9],
			   &v[10], &v[11], &v[12]) != 13)
			continue;
		r = (struct plot_row){v[0], v[11], v[12], v[7], v[10]};
		fn(&r, ctx);
	}
	free(data);
	return 0;
}

static void keep_last(const struct plot_row *r, void *ctx)
{
	*(struct plot_row *)ctx = *r;
}

void progress_last_row(const char *instance_dir, struct plot_row *row)
{
	*row = (struct plot_row){0};
	progress_plot_rows(instance_dir, keep_last, row);
}

/* The whole number at key of o (rewind-harness --progress), or 0. */
static unsigned long long count_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e18
		       ? (unsigned long long)v->valuedouble
		       : 0;
}

void progress_read_counts(const char *path, struct harness_counts *c)
{
	uint8_t *data;
	size_t len;

	cJSON *o;

	*c = (struct harness_counts){0};
	if (access(path, R_OK) || file_read_max(path, 16384, "progress file", &data, &len))
		return;
	o = cJSON_ParseWithLength((const char *)data, len);
	free(data);
	c->execs = count_of(o, "execs");
	c->failures = count_of(o, "failures");
	c->skips = count_of(o, "skips"); /* came later: 0 in an older harness's file */
	cJSON_Delete(o);
}

/* The executions so far of worker k on test t, from rewind-harness --progress. */
static uint64_t harness_execs(const struct night *n, const struct suite_test *t, unsigned int k)
{
	char name[32], path[PATH_MAX];
	struct harness_counts c;

	snprintf(name, sizeof(name), WORKER_PROGRESS_FMT, k);
	if (night_test_path(n, t->name, name, path, sizeof(path)))
		return 0;
	progress_read_counts(path, &c);
	return c.execs;
}

/*
 * Sums test t's workers: executions from the harness (live), exec/s and
 * edges from afl's plot_data (only after its first minute).
 */
static void read_numbers(const struct night *n, const struct suite_test *t,
			 struct progress_test *pt, double elapsed)
{
	uint64_t before = pt->execs;

	pt->execs = pt->edges = 0;
	for (unsigned int k = 0; k < n->workers; k++) {
		struct plot_row last = {0};
		char dir[PATH_MAX], sub[48];

		if (!worker_has_test(n, t, k))
			continue;
		pt->execs += harness_execs(n, t, k);
		snprintf(sub, sizeof(sub), "afl/worker-%u", k);
		if (night_test_path(n, t->name, sub, dir, sizeof(dir)))
			continue;
		progress_last_row(dir, &last);
		if ((uint64_t)last.edges > pt->edges)
			pt->edges = (uint64_t)last.edges;
	}
	pt->exec_per_s = elapsed > pt->since && pt->execs >= before
				 ? (double)(pt->execs - before) / (elapsed - pt->since)
				 : 0;
	pt->since = elapsed;
}

static bool seen_before(struct progress_test *pt, const char *path)
{
	uint64_t h = XXH3_64bits(path, strlen(path));

	for (size_t i = 0; i < pt->seen_count; i++)
		if (pt->seen[i] == h)
			return true;
	if (pt->seen_count == pt->seen_capacity && pt->seen_capacity < PROGRESS_MAX_SEEN) {
		size_t cap = pt->seen_capacity ? 2 * pt->seen_capacity : 16;
		uint64_t *grown = realloc(pt->seen, cap * sizeof(*grown));

		if (grown) {
			pt->seen = grown;
			pt->seen_capacity = cap;
		}
	}
	if (pt->seen_count < pt->seen_capacity)
		pt->seen[pt->seen_count++] = h;
	return false;
}

static void note_bucket(struct progress_test *pt, const struct signature *sig)
{
	for (size_t i = 0; i < pt->bucket_count; i++)
		if (!strcmp(pt->buckets[i], sig->id))
			return;
	if (pt->bucket_count == PROGRESS_MAX_BUCKETS)
		return;
	memcpy(pt->buckets[pt->bucket_count++], sig->id, sizeof(sig->id));
	fprintf(stderr, "%s: %s fails: %s%s%s%s\n", rw_log.program, sig->test,
		sig->status[0] ? sig->status : sig->cls, sig->message[0] ? ": \"" : "",
		sig->message, sig->message[0] ? "\"" : "");
}

/* Reads the artifacts not read before; returns how many the test has. */
static size_t read_artifacts(const struct night *n, const struct suite_test *t,
			     struct progress_test *pt)
{
	char dir[PATH_MAX], **paths;
	size_t count;

	if (night_test_path(n, t->name, "artifacts", dir, sizeof(dir)) ||
	    signature_list_artifacts(dir, &paths, &count))
		return 0;
	for (size_t i = 0; i < count; i++) {
		struct signature sig;

		if (!seen_before(pt, paths[i]) && !signature_of_artifact(paths[i], t->name, &sig))
			note_bucket(pt, &sig);
	}
	signature_free_list(paths, count);
	return count;
}

/* Has every worker of t written its result (not "interrupted": a resumed night redoes those)? */
static bool test_done(const struct night *n, const struct suite_test *t)
{
	for (unsigned int k = 0; k < n->workers; k++) {
		char name[32], path[PATH_MAX];
		struct worker_result r;

		snprintf(name, sizeof(name), WORKER_RESULT_FMT, k);
		if (worker_has_test(n, t, k) &&
		    (night_test_path(n, t->name, name, path, sizeof(path)) || access(path, F_OK) ||
		     worker_read_result(path, &r) || !strcmp(r.state, "interrupted")))
			return false;
	}
	return true;
}

/* "NAME 1234 execs 40/s 2 buckets" for a test being fuzzed, appended to out. */
static void append_running(char *out, size_t len, const struct suite_test *t,
			   const struct progress_test *pt)
{
	size_t used = strlen(out);

	snprintf(out + used, len - used, "%s%s %llu execs %.0f/s %zu bucket%s", used ? ", " : "",
		 t->name, (unsigned long long)pt->execs, pt->exec_per_s, pt->bucket_count,
		 pt->bucket_count == 1 ? "" : "s");
}

/*
 * Reads test t's numbers and artifacts; a test all of whose workers have
 * written their results is read a last time, then kept as it was.
 */
static void update_test(const struct night *n, const struct suite_test *t, struct progress_test *pt,
			double elapsed, size_t *failures)
{
	if (!pt->finished) {
		pt->finished = test_done(n, t);
		read_numbers(n, t, pt, elapsed);
		pt->artifacts = read_artifacts(n, t, pt);
	}
	*failures += pt->artifacts;
}

void progress_print(struct progress *p, const struct night *n, double elapsed)
{
	uint64_t execs = 0;
	double rate = 0;
	size_t failures = 0, buckets = 0, done = 0, planned = 0;
	char running[512] = "";

	if (!p->tests) {
		p->tests = calloc(n->suite.count, sizeof(*p->tests));
		p->count = p->tests ? n->suite.count : 0;
	}
	for (size_t i = 0; i < p->count; i++) {
		const struct suite_test *t = &n->suite.tests[i];
		struct progress_test *pt = &p->tests[i];

		if (t->worker == SUITE_WORKER_NONE)
			continue; /* no time this night */
		update_test(n, t, pt, elapsed, &failures);
		planned++;
		execs += pt->execs;
		buckets += pt->bucket_count;
		done += pt->finished;
		if (!pt->finished && pt->execs) {
			rate += pt->exec_per_s;
			append_running(running, sizeof(running), t, pt);
		}
	}
	fprintf(stderr,
		"%s: %4.0fs of %us  execs %llu  exec/s %.1f  failures %zu  buckets %zu"
		"  tests done %zu/%zu%s%s\n",
		rw_log.program, elapsed, n->seconds, (unsigned long long)execs, rate, failures,
		buckets, done, planned, running[0] ? " | " : "", running);
}

void progress_free(struct progress *p)
{
	for (size_t i = 0; i < p->count; i++)
		free(p->tests[i].seen);
	free(p->tests);
	*p = (struct progress){0};
}

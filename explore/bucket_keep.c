/* SPDX-License-Identifier: MIT */
/* A signature's first failing run, kept and explained in RESULTS/buckets/ID/. */
#include "explore/bucket_keep.h"

#include "lib/file.h"
#include "lib/log.h"
#include "lib/spawn.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXPLAIN_MAX    (64u << 20)
#define ARTIFACT_MAX   (16u << 20)
#define KEEP_PATH      (PATH_MAX + 64)
#define EXPLAIN_PASSES 0 /* rewind-harness --explain: the artifact does not fail again */
#define EXPLAIN_FAILS  1 /* ... it fails as recorded, and is explained */
#define EXPLAIN_OTHER  3 /* ... it runs, but not as the artifact recorded */
#define KEEP_NOT_AGAIN 1 /* bucket_keep: no candidate failed again */

static const char *const KEPT_FILES[] = {"artifact.json", "artifact.json.min.json", "explain.json",
					 "explain.txt"};

static void keep_path(const char *results, const char *id, const char *file, char *out, size_t len)
{
	snprintf(out, len, "%s/buckets/%s%s%s", results, id, file ? "/" : "", file ? file : "");
}

static int copy_file(const char *from, const char *to)
{
	uint8_t *data;
	size_t len;
	int rc;

	if (file_read_max(from, ARTIFACT_MAX, "crash artifact", &data, &len))
		return -1;
	rc = file_write_atomic(to, &(struct file_part){data, len}, 1); /* says why it failed */
	free(data);
	return rc ? -1 : 0;
}

static int by_text(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The functions of the sites, sorted, each once: "f,g". */
static void site_key_of(const char **functions, size_t count, char *out, size_t len)
{
	out[0] = 0;
	qsort(functions, count, sizeof(*functions), by_text);
	for (size_t i = 0; i < count; i++) {
		size_t used = strlen(out);

		if (i && !strcmp(functions[i], functions[i - 1]))
			continue;
		snprintf(out + used, len - used, "%s%s", used ? "," : "", functions[i]);
	}
}

/* A frame of Rewind's guest runtime (its event hooks and countdown), not the test's:
 * by its source file, so a test's own function named rt_... still counts. */
static bool runtime_frame(const cJSON *frame)
{
	const cJSON *file = cJSON_GetObjectItemCaseSensitive(frame, "file");

	return cJSON_IsString(file) && strstr(file->valuestring, "guest/runtime/");
}

/*
 * A landing's site in the test's code: the site, or where the test called
 * into the runtime when the injection landed inside it (a stall lands at
 * the runtime's countdown, on the event of the test's access).
 */
static const cJSON *test_site(const cJSON *landing)
{
	const cJSON *site = cJSON_GetObjectItemCaseSensitive(landing, "site"), *frame;

	if (!runtime_frame(site))
		return site;
	cJSON_ArrayForEach(frame, cJSON_GetObjectItemCaseSensitive(landing, "called_from"))
	{
		if (!runtime_frame(frame))
			return frame;
	}
	return site;
}

/* The landings' sites of an explanation: k->sites and k->site_key. */
static void read_sites(const char *explain_json, struct kept *k)
{
	const char *functions[64];
	size_t count = 0, n;
	uint8_t *data;
	cJSON *root;
	const cJSON *l;

	if (file_read_max(explain_json, EXPLAIN_MAX, "explanation", &data, &n))
		return;
	root = cJSON_ParseWithLength((const char *)data, n);
	free(data);
	cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(root, "landings"))
	{
		const cJSON *site = test_site(l);
		const cJSON *fn = cJSON_GetObjectItemCaseSensitive(site, "function");
		const cJSON *file = cJSON_GetObjectItemCaseSensitive(site, "file");
		const cJSON *line = cJSON_GetObjectItemCaseSensitive(site, "line");
		size_t used = strlen(k->sites);

		if (!cJSON_IsString(fn) || !cJSON_IsString(file) || !cJSON_IsNumber(line))
			continue;
		snprintf(k->sites + used, sizeof(k->sites) - used, "%s%s (%s:%d)", used ? "; " : "",
			 fn->valuestring, file->valuestring, (int)line->valuedouble);
		if (count < sizeof(functions) / sizeof(functions[0]))
			functions[count++] = fn->valuestring;
	}
	site_key_of(functions, count, k->site_key, sizeof(k->site_key));
	cJSON_Delete(root);
}

/* Did the candidate not fail again as it did (it passes, or runs otherwise)? */
static bool not_again(int rc)
{
	return rc == EXPLAIN_PASSES || rc == EXPLAIN_OTHER;
}

/*
 * Explains the first candidate that fails again: 0 explained,
 * KEEP_NOT_AGAIN none did, -1 an error, another number: kept unexplained.
 */
static int explain_first(const char *results, const char *harness, const char *id,
			 const char *const *candidates, size_t count)
{
	char copy[KEEP_PATH], json[KEEP_PATH], text[KEEP_PATH];
	char *argv[] = {(char *)harness, "--explain", copy, "--trust", "-o", json, NULL};
	int rc = EXPLAIN_PASSES;

	keep_path(results, id, "artifact.json", copy, sizeof(copy));
	keep_path(results, id, "explain.json", json, sizeof(json));
	keep_path(results, id, "explain.txt", text, sizeof(text));
	for (size_t i = 0; i < count && i < KEEP_CANDIDATES && not_again(rc); i++) {
		if (copy_file(candidates[i], copy))
			return -1;
		unlink(text);
		rc = spawn_run(argv, text);
	}
	if (rc == EXPLAIN_FAILS)
		return 0;
	if (not_again(rc))
		return KEEP_NOT_AGAIN;
	fprintf(stderr, "%s: could not explain %s (see %s)\n", rw_log.program, copy, text);
	return rc < 0 ? rc : 2;
}

int bucket_keep(const char *results, const char *harness, const struct signature *sig,
		const char *const *candidates, size_t count, struct kept *k)
{
	char dir[KEEP_PATH], min[KEEP_PATH], json[KEEP_PATH];
	int rc;

	memset(k, 0, sizeof(*k));
	keep_path(results, sig->id, NULL, dir, sizeof(dir));
	if (mkdir(dir, 0755) && errno != EEXIST) {
		rw_err_errno(errno, "cannot keep a failure in %s", dir);
		return -1;
	}
	fprintf(stderr, "%s: explaining %s of %s (%s)\n", rw_log.program, sig->id, sig->test,
		sig->message[0] ? sig->message : sig->cls);
	rc = explain_first(results, harness, sig->id, candidates, count);
	if (rc < 0 || rc == KEEP_NOT_AGAIN)
		return rc;
	snprintf(k->artifact, sizeof(k->artifact), "buckets/%s/artifact.json", sig->id);
	if (rc != 0)
		return 0; /* kept, unexplained */
	snprintf(k->explanation, sizeof(k->explanation), "buckets/%s/explain.json", sig->id);
	keep_path(results, sig->id, "artifact.json.min.json", min, sizeof(min));
	if (!access(min, R_OK))
		snprintf(k->artifact, sizeof(k->artifact), "buckets/%s/artifact.json.min.json",
			 sig->id);
	keep_path(results, sig->id, "explain.json", json, sizeof(json));
	read_sites(json, k);
	return 0;
}

void bucket_keep_discard(const char *results, const char *id)
{
	char path[KEEP_PATH];

	for (size_t i = 0; i < sizeof(KEPT_FILES) / sizeof(KEPT_FILES[0]); i++) {
		keep_path(results, id, KEPT_FILES[i], path, sizeof(path));
		unlink(path);
	}
	keep_path(results, id, NULL, path, sizeof(path));
	rmdir(path);
}

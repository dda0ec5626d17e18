/* SPDX-License-Identifier: MIT */
/* Failure signatures of crash artifacts, and listing a test's artifacts. */
#include "explore/signature.h"

#include "lib/failure_line.h"
#include "lib/file.h"
#include "lib/log.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <xxhash.h>

#define ARTIFACT_MAX (16u << 20)

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

bool signature_is_artifact_name(const char *name)
{
	return name[0] != '.' && ends_with(name, ".json") && strcmp(name, "first-failure.json") &&
	       !ends_with(name, ".min.json") && !ends_with(name, ".explain.json");
}

static void status_text(const cJSON *outcome, char *out, size_t len)
{
	const cJSON *ws = cJSON_GetObjectItemCaseSensitive(outcome, "job_wait_status");
	int status;

	out[0] = 0;
	if (!cJSON_IsNumber(ws) || ws->valuedouble < 0 || ws->valuedouble > 0xffff)
		return;
	status = (int)ws->valuedouble;
	if (WIFSIGNALED(status))
		snprintf(out, len, "signal %d", WTERMSIG(status));
	else if (WIFEXITED(status))
		snprintf(out, len, "exit %d", WEXITSTATUS(status));
}

static void signature_id(struct signature *sig)
{
	char key[sizeof(*sig)];
	int n = snprintf(key, sizeof(key), "%s%c%s%c%s%c%s", sig->test, 0, sig->cls, 0, sig->status,
			 0, sig->message);

	snprintf(sig->id, sizeof(sig->id), "%016" PRIx64, (uint64_t)XXH3_64bits(key, (size_t)n));
}

static int fill(const cJSON *root, struct signature *sig)
{
	const cJSON *outcome = cJSON_GetObjectItemCaseSensitive(root, "outcome");
	const cJSON *cls = cJSON_GetObjectItemCaseSensitive(outcome, "class");
	const cJSON *tail = cJSON_GetObjectItemCaseSensitive(root, "output_tail");

	if (!cJSON_IsString(cls) || strlen(cls->valuestring) >= sizeof(sig->cls))
		return -1;
	snprintf(sig->cls, sizeof(sig->cls), "%s", cls->valuestring);
	/* the job's own status only where it ended (exit, signal) */
	if (!strcmp(sig->cls, "exit") || !strcmp(sig->cls, "signal"))
		status_text(outcome, sig->status, sizeof(sig->status));
	/*
	 * Only a job that ended said why it failed; a hang's last line is
	 * whatever some thread printed last, and would split one bug.
	 */
	if (sig->status[0] && cJSON_IsString(tail))
		failure_line(tail->valuestring, sig->message, sizeof(sig->message));
	signature_id(sig);
	return 0;
}

int signature_of_artifact(const char *path, const char *test, struct signature *sig)
{
	uint8_t *data;
	size_t len;
	cJSON *root;
	int rc;

	memset(sig, 0, sizeof(*sig));
	snprintf(sig->test, sizeof(sig->test), "%s", test);
	if (file_read_max(path, ARTIFACT_MAX, "crash artifact", &data, &len))
		return -1;
	root = cJSON_ParseWithLength((const char *)data, len);
	free(data);
	rc = root ? fill(root, sig) : -1;
	cJSON_Delete(root);
	if (rc)
		fprintf(stderr, "%s: %s is not a crash artifact; left out\n", rw_log.program, path);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int push_path(char ***paths, size_t *count, size_t *cap, const char *dir, const char *name)
{
	char *path;

	if (*count == *cap) {
		size_t n = *cap ? *cap * 2 : 64;
		char **grown = realloc(*paths, n * sizeof(**paths));

		if (!grown)
			return -1;
		*paths = grown;
		*cap = n;
	}
	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return -1;
	(*paths)[(*count)++] = path;
	return 0;
}

int signature_list_artifacts(const char *dir, char ***paths, size_t *count)
{
	DIR *d = opendir(dir);
	const struct dirent *e;
	size_t cap = 0;

	*paths = NULL;
	*count = 0;
	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d)))
		if (signature_is_artifact_name(e->d_name) &&
		    push_path(paths, count, &cap, dir, e->d_name)) {
			closedir(d);
			signature_free_list(*paths, *count);
			return -1;
		}
	closedir(d);
	if (*count)
		qsort(*paths, *count, sizeof(**paths), by_name);
	return 0;
}

void signature_free_list(char **paths, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(paths[i]);
	free(paths);
}

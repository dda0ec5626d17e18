/* SPDX-License-Identifier: MIT */
/* TEST/worker-K.json: what a worker keeps of a test, written and read back. */
#include "explore/worker_result.h"

#include "lib/file.h"
#include "lib/json_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RESULT_FILE_MAX (64u << 10)

bool worker_has_test(const struct night *n, const struct suite_test *t, unsigned int k)
{
	(void)n;
	return t->worker == SUITE_WORKER_EVERY || t->worker == (int)k;
}

static double number_field(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) && v->valuedouble >= 0 ? v->valuedouble : 0;
}

int worker_read_result(const char *path, struct worker_result *r)
{
	cJSON *o;
	const cJSON *state, *error;

	memset(r, 0, sizeof(*r));
	o = json_read_file(path, RESULT_FILE_MAX, "worker result");
	if (!o)
		return -1;
	state = cJSON_GetObjectItemCaseSensitive(o, "state");
	error = cJSON_GetObjectItemCaseSensitive(o, "error");
	if (cJSON_IsString(state))
		snprintf(r->state, sizeof(r->state), "%s", state->valuestring);
	if (cJSON_IsString(error))
		snprintf(r->error, sizeof(r->error), "%s", error->valuestring);
	r->seconds_run = number_field(o, "seconds_run");
	r->execs = number_field(o, "execs");
	r->exec_per_s = number_field(o, "exec_per_s");
	r->edges = number_field(o, "edges");
	r->crashes = number_field(o, "afl_saved_crashes");
	r->runs = number_field(o, "harness_runs");
	r->skips = number_field(o, "skips");
	cJSON_Delete(o);
	return r->state[0] ? 0 : -1;
}

int worker_write_result(const char *path, const struct suite_test *t, unsigned int k,
			const struct worker_result *r)
{
	cJSON *o = cJSON_CreateObject();
	int rc;

	cJSON_AddStringToObject(o, "format", "rewind-worker-result");
	cJSON_AddNumberToObject(o, "version", 1);
	cJSON_AddStringToObject(o, "test", t->name);
	cJSON_AddNumberToObject(o, "worker", k);
	cJSON_AddStringToObject(o, "state", r->state);
	cJSON_AddNumberToObject(o, "seconds_planned", t->seconds);
	cJSON_AddNumberToObject(o, "seconds_run", r->seconds_run);
	cJSON_AddNumberToObject(o, "execs", r->execs);
	cJSON_AddNumberToObject(o, "exec_per_s", r->exec_per_s);
	cJSON_AddNumberToObject(o, "edges", r->edges);
	cJSON_AddNumberToObject(o, "afl_saved_crashes", r->crashes);
	cJSON_AddNumberToObject(o, "harness_runs", r->runs);
	cJSON_AddNumberToObject(o, "skips", r->skips);
	cJSON_AddStringToObject(o, "error", r->error);
	rc = json_write_atomic(path, o);
	cJSON_Delete(o);
	return rc ? -1 : 0;
}

/* SPDX-License-Identifier: MIT */
/* An execution's result as rewind-harness prints it, and as JSON (harness/executor.h). */
#include "harness/executor.h"
#include "lib/log.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

void exec_result_print(const struct exec_result *res)
{
	fprintf(stderr, "%s: outcome %s", rw_log.program, exec_class_name(res->cls));
	if (res->cls == CLASS_SIGNAL)
		fprintf(stderr, " (the job was killed by SIG%s)",
			sigabbrev_np(WTERMSIG(res->job_status)) ?: "?");
	else if (res->cls == CLASS_EXIT)
		fprintf(stderr, " (the job exited with %d)", WEXITSTATUS(res->job_status));
	else if (res->cls != CLASS_PASS)
		fprintf(stderr, " (%s)", res->detail);
	fprintf(stderr, " at step %" PRIu64 ",", res->job_steps);
	if (res->blocks)
		fprintf(stderr, " %" PRIu64 " events,", res->blocks);
	if (res->stepped)
		fprintf(stderr, " %" PRIu64 " instructions stepped,", res->stepped);
	if (res->features)
		fprintf(stderr, " %" PRIu32 " interleaving features,", res->features);
	fprintf(stderr, " %" PRIu64 " injections applied, trace 0x%016" PRIx64 "\n", res->injected,
		res->trace_hash);
}

/* The wait status as JSON: an exit code, or the signal's name. */
static void add_job_status(cJSON *o, const struct exec_result *res)
{
	if (!res->has_job_status) {
		cJSON_AddNullToObject(o, "status");
		return;
	}
	cJSON_AddNumberToObject(o, "status", res->job_status);
	if (WIFEXITED(res->job_status))
		cJSON_AddNumberToObject(o, "exit_code", WEXITSTATUS(res->job_status));
	else if (WIFSIGNALED(res->job_status))
		cJSON_AddStringToObject(o, "signal",
					sigabbrev_np(WTERMSIG(res->job_status)) ?: "?");
}

cJSON *exec_result_to_json(const struct exec_result *res)
{
	cJSON *o = cJSON_CreateObject();
	char hash[24];

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "class", exec_class_name(res->cls));
	cJSON_AddStringToObject(o, "detail", res->detail ? res->detail : "");
	add_job_status(o, res);
	cJSON_AddNumberToObject(o, "steps", (double)res->job_steps);
	cJSON_AddNumberToObject(o, "events", (double)res->blocks);
	cJSON_AddNumberToObject(o, "stepped", (double)res->stepped);
	cJSON_AddNumberToObject(o, "features", res->features);
	cJSON_AddNumberToObject(o, "injections", (double)res->injected);
	snprintf(hash, sizeof(hash), "0x%016" PRIx64, res->trace_hash);
	cJSON_AddStringToObject(o, "trace", hash);
	return o;
}

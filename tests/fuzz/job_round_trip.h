/* SPDX-License-Identifier: MIT */
/*
 * A check both the artifact and the job-file targets make: an accepted job
 * comes back the same through job_to_json and job_apply_json.
 */
#ifndef REWIND_FUZZ_JOB_ROUND_TRIP_H
#define REWIND_FUZZ_JOB_ROUND_TRIP_H

#include "harness/job.h"
#include "tests/fuzz/fuzz.h"

#include <string.h>

/* job_to_json, applied to the defaults, gives the same job (as job_to_json says it). */
static void check_job_round_trip(const struct harness_job *job)
{
	struct harness_job back;
	cJSON *json = job_to_json(job), *json_back;
	char *text, *text_back;

	if (job_init_defaults(&back) < 0)
		fuzz_die("job_init_defaults", "failed");
	if (!json || job_apply_json(&back, json, "job_to_json") != 0)
		fuzz_die("job_apply_json", "refused what job_to_json made of an accepted job");
	json_back = job_to_json(&back);
	text = cJSON_PrintUnformatted(json);
	text_back = cJSON_PrintUnformatted(json_back);
	if (!text || !text_back)
		fuzz_die("cJSON_PrintUnformatted", "failed");
	if (strcmp(text, text_back) != 0)
		fuzz_die("job round trip", text_back);
	cJSON_free(text);
	cJSON_free(text_back);
	cJSON_Delete(json);
	cJSON_Delete(json_back);
	job_free(&back);
}

#endif

/* SPDX-License-Identifier: MIT */
/* The harness's progress file, as the schedule mutator reads it (mutators/progress.h). */
#include "mutators/progress.h"

#include <cjson/cJSON.h>

#include <stdio.h>

/* A count of the progress file into *out, where it is one (1 up to 10^15); else *out stays. */
static void take_count(const cJSON *v, uint64_t *out)
{
	if (cJSON_IsNumber(v) && v->valuedouble >= 1 && v->valuedouble < 1e15)
		*out = (uint64_t)v->valuedouble;
}

/* The progress file's counts, parsed (NULL where it cannot be read); cJSON_Delete it. */
static cJSON *progress_read(const struct schedule_mutator *m)
{
	char text[8192]; /* a first failure's artifact path comes after the counts */
	size_t n;
	FILE *f = fopen(m->progress_path, "r");

	if (!f)
		return NULL;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	return cJSON_Parse(text);
}

/* Whether the guest kernel makes the job's events, once the harness has said it. */
static void take_kernel_events(struct schedule_mutator *m, const cJSON *v)
{
	if (!cJSON_IsBool(v))
		return;
	m->kernel_events_known = true;
	m->kernel_events = cJSON_IsTrue(v);
}

void progress_learn_steps(struct schedule_mutator *m)
{
	cJSON *o;

	/* tried at every mutant until known, as k is */
	if (m->steps_profiled || !m->progress_path)
		return;
	o = progress_read(m);
	take_count(cJSON_GetObjectItemCaseSensitive(o, "steps_profiled"), &m->steps_profiled);
	cJSON_Delete(o);
}

void progress_learn_counts(struct schedule_mutator *m)
{
	cJSON *o;

	/* tried at every mutant until k is known (the first mutant may come
	 * before the harness has written it, and the first fresh samples follow
	 * its estimate), then every 32nd until the racy count is */
	if ((m->pct_events && m->kernel_events_known &&
	     (m->pct_racy_events || !m->draw.racy_eighths)) ||
	    !m->progress_path || (m->pct_events && m->progress_tries++ % 32))
		return;
	o = progress_read(m);
	take_kernel_events(m, cJSON_GetObjectItemCaseSensitive(o, "kernel_events"));
	take_count(cJSON_GetObjectItemCaseSensitive(o, "pct_events"), &m->pct_events);
	take_count(cJSON_GetObjectItemCaseSensitive(o, "pct_racy_events"), &m->pct_racy_events);
	take_count(cJSON_GetObjectItemCaseSensitive(o, "pct_racy_estimate"), &m->pct_racy_estimate);
	cJSON_Delete(o);
}

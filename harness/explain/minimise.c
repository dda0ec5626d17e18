/* SPDX-License-Identifier: MIT */
#include "harness/explain/minimise.h"

#include "harness/artifact.h"
#include "harness/guest_output.h"
#include "lib/failure_line.h"
#include "schedule/draw.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * The run's class, the job's wait status where it ended, and then its
 * failed check: the last output line, numbers masked (lib/failure_line.h,
 * the rule a night's buckets use: explore/signature.c). A hang has no
 * check: its last line is whatever a thread printed last, not part of it.
 */
void signature_of(const struct executor *ex, const struct exec_result *res,
		  struct failure_signature *sig)
{
	char *tail;

	*sig = (struct failure_signature){
		.cls = res->cls, .status = res->job_status, .has_status = res->has_job_status};
	if (!sig->has_status)
		return;
	tail = guest_output_tail(&ex->vm.trace, ex->job_trace_from, ARTIFACT_OUTPUT_TAIL_LINES);
	failure_line(tail ? tail : "", sig->last_line, sizeof(sig->last_line));
	free(tail);
}

bool signature_same(const struct failure_signature *a, const struct failure_signature *b)
{
	return a->cls == b->cls && a->has_status == b->has_status &&
	       (!a->has_status || a->status == b->status) && !strcmp(a->last_line, b->last_line);
}

int fails_alike(struct executor *ex, const struct exec_input *input,
		const struct failure_signature *sig, struct exec_result *res)
{
	struct failure_signature got;

	if (executor_run(ex, input, res) < 0)
		return -EIO;
	if (!exec_class_is_failure(res->cls))
		return 0;
	signature_of(ex, res, &got);
	return signature_same(&got, sig);
}

static void drop(struct exec_input *in, uint32_t i)
{
	memmove(&in->schedule.at[i], &in->schedule.at[i + 1],
		(in->schedule.count - i - 1) * sizeof(in->schedule.at[0]));
	in->schedule.count--;
}

/* Drops every injection the failure does not need, last first, until none can go. */
static int drop_injections(struct executor *ex, struct exec_input *in,
			   const struct failure_signature *sig, uint64_t *execs)
{
	bool dropped = true;
	struct exec_result res;

	while (dropped) {
		dropped = false;
		for (uint32_t i = in->schedule.count; i-- > 0;) {
			struct exec_input without = *in;
			int rc;

			drop(&without, i);
			rc = fails_alike(ex, &without, sig, &res);
			(*execs)++;
			if (rc < 0)
				return rc;
			if (rc) {
				*in = without;
				dropped = true;
			}
		}
	}
	return 0;
}

/* Kinds whose argument is an amount (µs), not a place or a priority. */
static bool shrinkable(const struct injection *inj)
{
	return (inj->kind == INJECT_STALL || inj->kind == INJECT_TIMER_LATE) && inj->arg > 1;
}

/* The smallest argument (by bisection) that still fails, for each amount. */
static int shrink_arguments(struct executor *ex, struct exec_input *in,
			    const struct failure_signature *sig, uint64_t *execs)
{
	struct exec_result res;

	for (uint32_t i = 0; i < in->schedule.count; i++) {
		uint32_t lo = 1, hi;

		if (!shrinkable(&in->schedule.at[i]))
			continue;
		hi = in->schedule.at[i].arg; /* fails at hi; find the least that fails */
		while (lo < hi) {
			struct exec_input try = *in;
			uint32_t mid = lo + (hi - lo) / 2;
			int rc;

			try.schedule.at[i].arg = (uint16_t)mid;
			rc = fails_alike(ex, &try, sig, &res);
			(*execs)++;
			if (rc < 0)
				return rc;
			if (rc)
				hi = mid;
			else
				lo = mid + 1;
		}
		in->schedule.at[i].arg = (uint16_t)hi;
	}
	return 0;
}

int minimise(struct executor *ex, struct exec_input *input, const struct failure_signature *sig,
	     uint64_t *execs)
{
	int rc = drop_injections(ex, input, sig, execs);

	return rc ? rc : shrink_arguments(ex, input, sig, execs);
}

int minimise_walk(struct executor *ex, struct exec_input *input,
		  const struct failure_signature *sig, uint32_t *found, uint64_t *execs)
{
	const struct draw_counts unknown = {.pct_events = 0};
	struct draw_state d;

	draw_init(&d, (unsigned int)(input->seed ^ input->seed >> 32));
	/* the published sampler's shape, whatever a benchmark's variables say */
	d.fixed_depth = 0;
	d.wide_mixture = false;
	d.racy_eighths = 0;
	*found = 0;
	for (uint32_t i = 1; i <= WALK_STAND_IN_TRIES; i++) {
		struct exec_input sample = *input;
		struct exec_result res;
		int rc;

		draw_pct_sample(&d, &sample, &unknown);
		rc = fails_alike(ex, &sample, sig, &res);
		(*execs)++;
		if (rc < 0)
			return rc;
		if (rc) {
			*found = i;
			*input = sample;
			return minimise(ex, input, sig, execs);
		}
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
#include "harness/reach.h"

#include "harness/job_start.h"
#include "rewind/abi.h"

#include <inttypes.h>
#include <string.h>

/* What the unperturbed run shows about the job's threads and its exits. */
struct reach {
	unsigned int threads;	  /* threads the job started */
	unsigned int alive;	  /* of them, running now */
	uint64_t steps, together; /* job steps; steps while two threads were alive */
	uint64_t last_step;	  /* the last step counted in together */
};

static void note(struct reach *r, const struct trace_record *rec)
{
	bool thread = rec->type == REWIND_EV_FORK && rec->args[2];

	if (thread) {
		r->threads++;
		r->alive++;
		return;
	}
	if (rec->type == REWIND_EV_EXIT && r->alive && !rec->args[1]) {
		r->alive--;
		return;
	}
	/* a step of the job's own while a second thread runs: a point inside */
	if (r->alive && rec->type < TRACE_READY && rec->type != REWIND_EV_SWITCH &&
	    rec->type != REWIND_EV_CONSOLE && rec->step != r->last_step) {
		r->together++;
		r->last_step = rec->step;
	}
}

static void scan(const struct trace *t, size_t from, struct reach *r)
{
	struct trace_record rec;

	for (size_t at = from; trace_next(t, &at, &rec, NULL);)
		note(r, &rec);
}

int reach_check(struct executor *ex, bool steps_inputs)
{
	static const struct exec_input plain = {.seed = 0, .mode = INPUT_MODE_STEPS};
	FILE *output = ex->vm.cfg.output;
	struct exec_result res;
	struct reach r = {0};
	int rc;

	ex->vm.cfg.output = NULL;
	rc = executor_run(ex, &plain, &res);
	ex->vm.cfg.output = output;
	if (rc < 0)
		return rc;
	rc = job_start_check(&ex->vm.trace, ex->job_trace_from, &ex->in);
	if (rc < 0)
		return rc;
	if (ex->vm.counter.started || !steps_inputs) /* instrumented: its accesses are the points */
		return 0;
	scan(&ex->vm.trace, ex->job_trace_from, &r);
	r.steps = res.job_steps;
	if (r.threads && !r.together)
		fprintf(stderr,
			"rewind-harness: warning: the job started %u thread(s) and made no exit "
			"while two of its threads were alive (%" PRIu64 " steps in all): "
			"in steps mode, injections at exits cannot land inside code that runs "
			"between them, and preempt-insns reaches at most %u instructions past an "
			"exit. Search it in pct mode (corpus/pct, what rewind fuzz picks for it: "
			"the guest kernel makes its threads' accesses off their own stacks "
			"schedule points), or build it with guest/rewind-cc (fewer and cheaper "
			"events: only its own code's accesses and locks).\n",
			r.threads, r.steps, INJECT_INSNS_MAX);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* --random: random search, no feedback (harness/cmd_random.h). */
#include "harness/cmd_random.h"

#include "harness/coverage.h"
#include "lib/host_time.h"
#include "schedule/draw.h"

#include <stdlib.h>
#include <time.h>

/* What the random search's executions came to: outcomes, and events a run. */
struct random_tally {
	uint64_t runs, by_class[CLASS_COUNT], events, events_max;
};

static void random_tally_add(struct random_tally *t, const struct harness_exec *e)
{
	t->runs++;
	if (e->cls < CLASS_COUNT)
		t->by_class[e->cls]++;
	if (e->cls != CLASS_REJECTED) {
		t->events += e->res.blocks;
		if (e->res.blocks > t->events_max)
			t->events_max = e->res.blocks;
	}
}

/* "random: outcomes pass 28, timeout 2; events a run: mean 1234, max 5678" */
static void random_tally_print(const struct random_tally *t)
{
	const char *sep = " ";

	if (!t->runs)
		return;
	printf("random: outcomes");
	for (int c = 0; c < CLASS_COUNT; c++)
		if (t->by_class[c]) {
			printf("%s%s %llu", sep, exec_class_name((enum exec_class)c),
			       (unsigned long long)t->by_class[c]);
			sep = ", ";
		}
	printf("; events a run: mean %llu, max %llu\n", (unsigned long long)(t->events / t->runs),
	       (unsigned long long)t->events_max);
}

/*
 * Random search, the baseline coverage guidance is measured against: fresh
 * inputs from the search's base distribution (draw_random_input: PCT
 * samples with --pct, walks with --walk, both with --mix as an instrumented
 * job's search starts them, 1-4 random injections otherwise), no
 * feedback. Prints the
 * executions to the first failure, or how many ran without one.
 */
int cmd_random(struct cli *c)
{
	static struct harness h;
	static uint8_t map[COVERAGE_MAX_SIZE];
	static uint8_t buf[INPUT_MAX_SIZE];
	struct draw_state d;
	const struct draw_counts counts = {.pct_events = 0}; /* no progress file here */
	struct exec_input in;
	struct timespec t0;
	struct random_tally tally = {.runs = 0};
	uint64_t failed = 0;
	bool host_failed = false; /* KVM or the host failed mid-search */

	draw_init(&d, (unsigned int)c->random_seed);
	if (cli_open_harness(&h, c, NULL) < 0) {
		executor_close(&h.ex);
		return STATUS_SETUP;
	}
	/* the baseline is PCT as published, over every event, unless a benchmark
	 * asks for samples that count racy events (REWIND_PCT_RACY), from the
	 * first sample on unless it says when (REWIND_PCT_RACY_AFTER) */
	if (!getenv("REWIND_PCT_RACY"))
		d.racy_eighths = 0;
	if (!getenv("REWIND_PCT_RACY_AFTER"))
		d.racy_after = 0;
	d.racy_by_estimate = false; /* no estimate here: no afl-fuzz, no progress file */
	h.map = map;
	h.quiet = true;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (h.execs < c->random_execs && (!failed || c->random_keep_going) &&
	       (!c->random_seconds || host_time_seconds_since(&t0) < (double)c->random_seconds)) {
		struct harness_exec e;
		size_t len;

		if (c->random_walk || (c->random_mix && draw_below(&d, 1024) < WALK_SHARE_START))
			draw_walk_sample(&d, &in);
		else
			draw_random_input(&d, c->random_mode, &in, &counts);
		len = input_encode(&in, buf);
		if (harness_exec(&h, buf, len, &e) < 0) {
			host_failed = true;
			break;
		}
		random_tally_add(&tally, &e);
		/* the harness's counts: a racy-site profile's samples are executions too */
		if (h.failures && !failed)
			printf("random: first failure (%s) after %llu executions, %.3f s\n",
			       exec_class_name(h.first_failure_class),
			       (unsigned long long)h.first_failure_exec,
			       host_time_seconds_since(&t0));
		else if (h.failures > failed) /* --keep-going: each later one (the gaps: trials) */
			printf("random: failure (%s) at execution %llu\n", exec_class_name(e.cls),
			       (unsigned long long)h.execs);
		failed = h.failures;
	}
	if (!host_failed && !failed)
		printf("random: no failure in %llu executions, %.3f s\n",
		       (unsigned long long)h.execs, host_time_seconds_since(&t0));
	if (!host_failed && c->random_keep_going) {
		double secs = host_time_seconds_since(&t0);

		printf("random: %llu executions in %.3f s (%.1f exec/s), %llu failures\n",
		       (unsigned long long)h.execs, secs, secs > 0 ? (double)h.execs / secs : 0.0,
		       (unsigned long long)failed);
	}
	random_tally_print(&tally);
	executor_close(&h.ex);
	return host_failed ? STATUS_HOST : failed ? STATUS_FOUND : STATUS_OK;
}

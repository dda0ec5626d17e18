/* SPDX-License-Identifier: MIT */
/* A night's plan: which tests get time, how much, on which worker. */
#include "explore/plan.h"

#define MAX_WORKERS 1024

/* Tests one worker can start and fuzz for the minimum in the night (at least one). */
static size_t tests_per_worker_max(unsigned int seconds)
{
	size_t fit = seconds / (PLAN_STARTUP_S + PLAN_MIN_FUZZ_S);

	return fit ? fit : 1;
}

/*
 * The fuzzing seconds a worker has in the night: afl-fuzz's -V counts from
 * when it starts fuzzing, after it started and the guest booted, so each
 * test a worker runs costs that much more (at least a third is kept).
 */
static double fuzzing_seconds(unsigned int seconds, size_t tests_per_worker)
{
	double left = (double)seconds - (double)tests_per_worker * PLAN_STARTUP_S;

	return left > seconds / 3.0 ? left : seconds / 3.0;
}

/* The tests that get time: planned of them from first on, wrapping; the others none. */
static void choose_tests(struct suite *s, struct plan *p)
{
	size_t fit =
		tests_per_worker_max(p->seconds) * (p->layout == LAYOUT_TESTS ? p->workers : 1);
	uint64_t night = p->night > 0 ? (uint64_t)p->night : 1;

	bool all = s->count <= fit;

	p->planned = all ? s->count : fit;
	p->first = all ? 0 : (size_t)(((night - 1) * fit) % s->count);
	for (size_t i = 0; i < s->count; i++) {
		bool in = (i + s->count - p->first) % s->count < p->planned;

		s->tests[i].seconds = 0;
		s->tests[i].worker = in ? SUITE_WORKER_EVERY : SUITE_WORKER_NONE;
	}
}

/*
 * The budget by share among the tests that get time, each at least min:
 * a test whose share would give it less gets min, and the rest of the
 * budget is shared again among the others, until none is below.
 */
static void share_out(struct suite *s, double budget, unsigned int min)
{
	double left, shares;
	bool again = true;

	while (again) {
		again = false;
		left = budget;
		shares = 0;
		for (size_t i = 0; i < s->count; i++) {
			const struct suite_test *t = &s->tests[i];

			if (t->worker != SUITE_WORKER_NONE && t->seconds)
				left -= t->seconds;
			else if (t->worker != SUITE_WORKER_NONE)
				shares += t->share;
		}
		for (size_t i = 0; i < s->count && min; i++) {
			struct suite_test *t = &s->tests[i];

			if (t->worker != SUITE_WORKER_NONE && !t->seconds &&
			    left * t->share / shares < min) {
				t->seconds = min;
				again = true;
			}
		}
	}
	for (size_t i = 0; i < s->count; i++) {
		struct suite_test *t = &s->tests[i];

		if (t->worker != SUITE_WORKER_NONE && !t->seconds)
			t->seconds = (unsigned int)(left * t->share / shares);
	}
}

/* Layout tests: the longest first onto the least loaded worker; ties keep the suite's order. */
static void spread(struct suite *s, unsigned int workers)
{
	double load[MAX_WORKERS] = {0};

	for (;;) {
		size_t pick = s->count, w = 0;

		/* the tests not placed yet are still SUITE_WORKER_EVERY */
		for (size_t i = 0; i < s->count; i++)
			if (s->tests[i].worker == SUITE_WORKER_EVERY &&
			    (pick == s->count || s->tests[i].seconds > s->tests[pick].seconds))
				pick = i;
		if (pick == s->count)
			return;
		for (size_t k = 1; k < workers && k < MAX_WORKERS; k++)
			if (load[k] < load[w])
				w = k;
		s->tests[pick].worker = (int)w;
		load[w] += s->tests[pick].seconds;
	}
}

void plan_night(struct suite *s, struct plan *p)
{
	size_t per_worker_tests;
	double per_worker, budget;

	if (!p->workers)
		p->workers = 1;
	if (p->layout == LAYOUT_AUTO)
		p->layout = s->count >= p->workers ? LAYOUT_TESTS : LAYOUT_INSTANCES;
	choose_tests(s, p);
	per_worker_tests = p->layout == LAYOUT_INSTANCES
				   ? p->planned
				   : (p->planned + p->workers - 1) / p->workers;
	per_worker = fuzzing_seconds(p->seconds, per_worker_tests);
	budget = p->layout == LAYOUT_INSTANCES ? per_worker : per_worker * p->workers;
	share_out(s, budget, budget >= (double)p->planned * PLAN_MIN_FUZZ_S ? PLAN_MIN_FUZZ_S : 0);
	if (p->layout == LAYOUT_TESTS)
		spread(s, p->workers);
}

unsigned int plan_test_seconds(unsigned int planned, double seconds_left, size_t tests_left,
			       double startup_s)
{
	double share = seconds_left / (double)(tests_left ? tests_left : 1) - startup_s;

	if (planned <= PLAN_LATE_FUZZ_S || share >= planned)
		return planned;
	return share > PLAN_LATE_FUZZ_S ? (unsigned int)share : PLAN_LATE_FUZZ_S;
}

/* SPDX-License-Identifier: MIT */
/*
 * A night's plan (docs/explore.md, "How the time is spent"): which tests get
 * time this night, how many seconds each, and on which worker. A function of
 * the suite, the budget, the workers, the layout and the night's id only.
 */
#ifndef REWIND_PLAN_H
#define REWIND_PLAN_H

#include "explore/suite.h"

#include <stdint.h>

/* afl-fuzz starting and the guest booting, per test (measured in the KVM box; ~1 s on hardware) */
#define PLAN_STARTUP_S 10u
/* The fewest seconds of fuzzing (afl-fuzz -V) a test gets on a night it runs, budget allowing */
#define PLAN_MIN_FUZZ_S 20u
/* The fewest a planned test gets when the night runs late (its starts cost more than planned) */
#define PLAN_LATE_FUZZ_S 5u

enum night_layout {
	LAYOUT_AUTO,	 /* tests spread over workers; instances if fewer tests than workers */
	LAYOUT_TESTS,	 /* each test fuzzed by one worker, tests spread over workers */
	LAYOUT_INSTANCES /* each test fuzzed by every worker at once (afl -M/-S), in turn */
};

struct plan {
	/* in */
	unsigned int seconds, workers; /* workers: 0 is taken as 1 */
	enum night_layout layout;      /* LAYOUT_AUTO is decided */
	int64_t night;		       /* the night's id (1, 2, ...): which tests get time */
	/* out: tests first, first + 1, ... (planned of them, in the suite's order, wrapping) */
	size_t planned, first;
};

/*
 * Sets every test's seconds and worker. When the budget cannot give every
 * test PLAN_STARTUP_S to start and PLAN_MIN_FUZZ_S of fuzzing, the tests
 * that fit get time, the next ones in the suite's order each night (night
 * N starts at test (N - 1) x planned, wrapping), and the others get
 * seconds 0 and worker SUITE_WORKER_NONE. Each test that gets time gets
 * its share of the budget, and at least PLAN_MIN_FUZZ_S when the budget
 * has that much for every one.
 */
void plan_night(struct suite *s, struct plan *p);

/*
 * The fuzzing seconds a worker gives its next test while the night runs:
 * its planned seconds, cut when the worker is late (its tests start slower
 * than PLAN_STARTUP_S, measured as startup_s) so that its tests_left tests,
 * this one included, end within seconds_left; never below PLAN_LATE_FUZZ_S
 * (nor above planned). A night then ends near its end instead of each
 * test's start adding to it.
 */
unsigned int plan_test_seconds(unsigned int planned, double seconds_left, size_t tests_left,
			       double startup_s);

#endif

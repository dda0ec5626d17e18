/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the coverage map (harness/coverage.c) on traces built by
 * hand: the same trace gives the same map, thread ids do not matter (only
 * their order of appearance), what an event says and the order of events
 * do, the outcome goes in the tail and only there, the boot before `from`
 * is not counted, and a trace cut inside a record is read up to the cut.
 */
#include "harness/coverage.h"
#include "rewind/abi.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#define SIZE (1u << 12)
#define TAIL (SIZE - COVERAGE_CLASS_BYTES)

static void add(struct trace *t, uint32_t type, uint32_t tid, uint64_t arg0, const char *payload)
{
	struct trace_record r = {.step = t->count,
				 .type = type,
				 .pid = tid,
				 .tid = tid,
				 .len = payload ? (uint32_t)strlen(payload) : 0,
				 .args = {arg0}};

	trace_append(t, &r, payload);
}

/*
 * Two threads (tids a, b) print, the second exits; a context switch between
 * them. (No fork record: its arguments name the child's tid, which is what
 * it says.)
 */
static void two_threads(struct trace *t, uint32_t a, uint32_t b, const char *says)
{
	struct trace_record sw = {.type = REWIND_EV_SWITCH, .args = {a, b}};

	assert_int_equal(trace_init(t), 0);
	add(t, TRACE_READY, 1, 0, NULL); /* the boot ends here */
	add(t, REWIND_EV_OUTPUT, a, 0, "start");
	add(t, REWIND_EV_OUTPUT, a, 0, says);
	trace_append(t, &sw, NULL);
	add(t, REWIND_EV_OUTPUT, b, 0, "world");
	add(t, REWIND_EV_CONSOLE, 0, 0, "kernel chatter");
	add(t, REWIND_EV_EXIT, b, 0, NULL);
}

static size_t bytes_set(const uint8_t *map, size_t from, size_t to)
{
	size_t n = 0;

	for (size_t i = from; i < to; i++)
		n += map[i] != 0;
	return n;
}

static void map_of(const struct trace *t, size_t from, enum exec_class cls, int status,
		   uint8_t *map)
{
	memset(map, 0, SIZE);
	coverage_add_trace(map, SIZE, t, from, NULL, cls, status);
}

static void test_same_trace_same_map_whatever_the_thread_ids(void **state)
{
	static uint8_t one[SIZE], two[SIZE], other[SIZE];
	struct trace t, u;

	(void)state;
	two_threads(&t, 40, 41, "hello");
	two_threads(&u, 900, 77, "hello"); /* other tids, same order of appearance */
	map_of(&t, 0, CLASS_PASS, 0, one);
	map_of(&u, 0, CLASS_PASS, 0, two);
	assert_memory_equal(one, two, SIZE);
	map_of(&t, 0, CLASS_PASS, 0, other);
	assert_memory_equal(one, other, SIZE); /* nothing carried over between calls */
	assert_true(bytes_set(one, 0, TAIL) >= 5);
	trace_free(&t);
	trace_free(&u);
}

/* The output's text is part of the event: other text, other edges. */
static void test_what_an_event_says_counts(void **state)
{
	static uint8_t one[SIZE], two[SIZE];
	struct trace t, u;

	(void)state;
	two_threads(&t, 40, 41, "hello");
	two_threads(&u, 40, 41, "HELLO");
	map_of(&t, 0, CLASS_PASS, 0, one);
	map_of(&u, 0, CLASS_PASS, 0, two);
	assert_memory_not_equal(one, two, TAIL);
	assert_memory_equal(one + TAIL, two + TAIL, COVERAGE_CLASS_BYTES);
	trace_free(&t);
	trace_free(&u);
}

/* The outcome: the class byte and, for a signal or an exit code, its status byte. */
static void test_the_outcome_goes_in_the_tail(void **state)
{
	static uint8_t map[SIZE];
	struct trace t;

	(void)state;
	assert_int_equal(trace_init(&t), 0);
	map_of(&t, 0, CLASS_PASS, 0, map); /* no records: only the class */
	assert_int_equal(bytes_set(map, 0, SIZE), 1);
	assert_int_equal(map[TAIL + CLASS_PASS], 1);
	map_of(&t, 0, CLASS_SIGNAL, SIGABRT, map); /* killed by SIGABRT */
	assert_int_equal(bytes_set(map, 0, SIZE), 2);
	assert_int_equal(map[TAIL + CLASS_SIGNAL], 1);
	assert_int_equal(map[TAIL + 32 + SIGABRT], 1);
	map_of(&t, 0, CLASS_EXIT, 3 << 8, map); /* exit code 3 */
	assert_int_equal(map[TAIL + CLASS_EXIT], 1);
	assert_int_equal(map[TAIL + 32 + 3], 1);
	map_of(&t, 0, CLASS_COUNT + 5, 0, map); /* no such class: a host error */
	assert_int_equal(map[TAIL + CLASS_HOST_ERROR], 1);
	assert_int_equal(bytes_set(map, 0, SIZE), 1);
	memset(map, 0, SIZE);
	coverage_add_class(map, SIZE, CLASS_REJECTED);
	assert_int_equal(bytes_set(map, 0, SIZE), 1);
	assert_int_equal(map[TAIL + CLASS_REJECTED], 1);
	trace_free(&t);
}

/* Records before from (the boot) add nothing; the job's records do. */
static void test_records_before_from_are_not_counted(void **state)
{
	static uint8_t all[SIZE], job[SIZE], none[SIZE];
	struct trace t;

	(void)state;
	two_threads(&t, 40, 41, "hello");
	map_of(&t, 0, CLASS_PASS, 0, all);
	map_of(&t, sizeof(struct trace_record), CLASS_PASS, 0, job); /* after READY */
	map_of(&t, t.len, CLASS_PASS, 0, none);
	assert_int_equal(bytes_set(none, 0, TAIL), 0);
	assert_true(bytes_set(job, 0, TAIL) > 0);
	assert_memory_not_equal(all, job, TAIL);
	trace_free(&t);
}

/* A trace cut inside its last record: the map of the whole records before it. */
static void test_a_cut_record_ends_the_walk(void **state)
{
	static uint8_t whole[SIZE], cut[SIZE];
	struct trace t, u;

	(void)state;
	two_threads(&t, 40, 41, "hello");
	two_threads(&u, 40, 41, "hello");
	add(&u, REWIND_EV_OUTPUT, 40, 0, "a last line");
	u.len -= 3; /* its payload runs past the end now */
	map_of(&t, 0, CLASS_PASS, 0, whole);
	map_of(&u, 0, CLASS_PASS, 0, cut);
	assert_memory_equal(whole, cut, SIZE);
	u.len = 3 * sizeof(struct trace_record) - 1; /* cut inside a header */
	map_of(&u, 0, CLASS_PASS, 0, cut);
	assert_true(bytes_set(cut, 0, TAIL) > 0);
	trace_free(&t);
	trace_free(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_trace_same_map_whatever_the_thread_ids),
		cmocka_unit_test(test_what_an_event_says_counts),
		cmocka_unit_test(test_the_outcome_goes_in_the_tail),
		cmocka_unit_test(test_records_before_from_are_not_counted),
		cmocka_unit_test(test_a_cut_record_ends_the_walk),
	};

	return cmocka_run_group_tests_name("coverage", tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the trace record iterator (vmm/trace.c): the bytes can come
 * from an untrusted file, so a truncated record, a hostile payload length
 * or a start past the end stops the walk without reading past the bytes
 * (ASan would say), and says where.
 */
#include "vmm/trace.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define REC ((size_t)sizeof(struct trace_record))

/* A trace of three records: payloads of 0, 5 and 2 bytes. */
static void three_records(struct trace *t)
{
	struct trace_record r = {.step = 1, .type = 1, .pid = 1, .tid = 1};

	assert_int_equal(trace_init(t), 0);
	trace_append(t, &r, NULL);
	r = (struct trace_record){.step = 2, .type = 2, .len = 5, .tid = 7, .args = {9}};
	trace_append(t, &r, "hello");
	r = (struct trace_record){.step = 3, .type = 3, .len = 2};
	trace_append(t, &r, "ok");
}

/* A copy of len bytes on the heap, so ASan catches a read past them. */
static uint8_t *heap_copy(const void *data, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);

	assert_non_null(copy);
	memcpy(copy, data, len);
	return copy;
}

static void test_walks_every_record_and_payload(void **state)
{
	struct trace t;
	struct trace_iter it;
	struct trace_record r;
	const uint8_t *payload;

	(void)state;
	three_records(&t);
	trace_iter_init(&it, t.buf, t.len, 0);
	assert_true(trace_iter_next(&it, &r, &payload));
	assert_int_equal(r.step, 1);
	assert_int_equal(r.len, 0);
	assert_true(trace_iter_next(&it, &r, &payload));
	assert_int_equal(r.step, 2);
	assert_int_equal(r.tid, 7);
	assert_int_equal(r.args[0], 9);
	assert_memory_equal(payload, "hello", 5);
	assert_true(trace_iter_next(&it, &r, NULL));
	assert_int_equal(r.step, 3);
	assert_false(trace_iter_next(&it, &r, &payload));
	assert_true(trace_iter_at_end(&it));
	assert_int_equal(it.at, t.len);
	assert_int_equal(t.len, 3 * REC + 7);
	trace_free(&t);
}

/* From the offset of the second record: the second and the third, as trace_next. */
static void test_starts_at_an_offset_like_trace_next(void **state)
{
	struct trace t;
	struct trace_iter it;
	struct trace_record r, same;
	size_t at = REC, n = 0;

	(void)state;
	three_records(&t);
	trace_iter_init(&it, t.buf, t.len, REC);
	while (trace_iter_next(&it, &r, NULL)) {
		assert_true(trace_next(&t, &at, &same, NULL));
		assert_memory_equal(&r, &same, sizeof(r));
		assert_int_equal(it.at, at);
		n++;
	}
	assert_int_equal(n, 2);
	assert_false(trace_next(&t, &at, &same, NULL));
	trace_free(&t);
}

/* Every cut of the bytes: the whole records before the cut, then a stop at the cut one. */
static void test_every_truncation_stops_at_the_cut_record(void **state)
{
	struct trace t;
	const size_t ends[] = {REC, 2 * REC + 5, 3 * REC + 7}; /* where each record ends */

	(void)state;
	three_records(&t);
	for (size_t len = 0; len <= t.len; len++) {
		uint8_t *bytes = heap_copy(t.buf, len);
		struct trace_iter it;
		struct trace_record r;
		size_t whole = 0;

		while (whole < 3 && ends[whole] <= len)
			whole++;
		trace_iter_init(&it, bytes, len, 0);
		for (size_t i = 0; i < whole; i++)
			assert_true(trace_iter_next(&it, &r, NULL));
		assert_false(trace_iter_next(&it, &r, NULL));
		assert_int_equal(it.at, whole ? ends[whole - 1] : 0);
		assert_int_equal(trace_iter_at_end(&it), len == it.at);
		free(bytes);
	}
	trace_free(&t);
}

/* Lengths that would wrap an offset or run past the bytes: refused, nothing read. */
static void test_hostile_lengths_are_refused(void **state)
{
	const uint32_t lens[] = {UINT32_MAX, UINT32_MAX - (uint32_t)REC, 1u << 31, 6};
	struct trace_record r = {.step = 1, .type = 1};
	uint8_t raw[REC + 5];

	(void)state;
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct trace_iter it;
		struct trace_record got;
		uint8_t *bytes;

		r.len = lens[i];
		memcpy(raw, &r, REC);
		memset(raw + REC, 'x', 5);
		bytes = heap_copy(raw, sizeof(raw));
		trace_iter_init(&it, bytes, sizeof(raw), 0);
		assert_false(trace_iter_next(&it, &got, NULL));
		assert_int_equal(it.at, 0);
		assert_false(trace_iter_at_end(&it));
		free(bytes);
	}
}

/* A start past the end, or in the middle of nothing: no record. */
static void test_a_start_past_the_end_reads_nothing(void **state)
{
	struct trace t;
	struct trace_iter it;
	struct trace_record r;

	(void)state;
	three_records(&t);
	trace_iter_init(&it, t.buf, t.len, t.len + 1);
	assert_false(trace_iter_next(&it, &r, NULL));
	trace_iter_init(&it, t.buf, t.len, SIZE_MAX);
	assert_false(trace_iter_next(&it, &r, NULL));
	trace_iter_init(&it, NULL, 0, 0);
	assert_false(trace_iter_next(&it, &r, NULL));
	assert_true(trace_iter_at_end(&it));
	trace_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walks_every_record_and_payload),
		cmocka_unit_test(test_starts_at_an_offset_like_trace_next),
		cmocka_unit_test(test_every_truncation_stops_at_the_cut_record),
		cmocka_unit_test(test_hostile_lengths_are_refused),
		cmocka_unit_test(test_a_start_past_the_end_reads_nothing),
	};

	return cmocka_run_group_tests_name("trace_iter", tests, NULL, NULL);
}

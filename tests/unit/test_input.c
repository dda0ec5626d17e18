/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the execution-input format (schedule/input.c) and the
 * schedule helpers (vmm/schedule.c): every rejection rule, both round trips,
 * and a deterministic random loop checked against an independent oracle.
 */
#include "schedule/input.h"

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define WHY_LEN 160

/* --- building inputs byte by byte (independently of input_encode) ---------- */

static void put_bytes_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_bytes_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* A valid header with this seed; returns its size. */
static size_t header(uint8_t *buf, uint64_t seed)
{
	memcpy(buf, "RWSI", 4);
	buf[4] = 1;
	buf[5] = 0;
	buf[6] = 0;
	buf[7] = 0;
	put_bytes_le(buf + 8, seed, 8);
	return 16;
}

/* Writes record i (any bytes, valid or not); returns the input size up to and with it. */
static size_t record(uint8_t *buf, size_t i, uint32_t step, uint8_t kind, uint8_t reserved,
		     uint16_t arg)
{
	uint8_t *r = buf + 16 + 8 * i;

	put_bytes_le(r, step, 4);
	r[4] = kind;
	r[5] = reserved;
	put_bytes_le(r + 6, arg, 2);
	return 16 + 8 * (i + 1);
}

/* Parses, expecting -EINVAL with want in the reason and *in left untouched. */
static void expect_reject(const uint8_t *data, size_t len, const char *want)
{
	static struct exec_input in, before;
	char why[WHY_LEN] = "";
	int rc;

	memset(&in, 0xa5, sizeof(in));
	before = in;
	rc = input_parse(data, len, &in, why, sizeof(why));
	if (rc != -EINVAL || !strstr(why, want))
		fail_msg("len %zu: rc %d, reason \"%s\", wanted -EINVAL and \"%s\"", len, rc, why,
			 want);
	assert_memory_equal(&in, &before, sizeof(in));
	assert_null(strchr(why, '\n')); /* one line */
}

/* --- schedule.c ------------------------------------------------------------- */

static void test_kind_names(void **state)
{
	(void)state;
	assert_string_equal(injection_kind_name(INJECT_RESCHED), "resched");
	assert_string_equal(injection_kind_name(INJECT_STALL), "stall");
	assert_string_equal(injection_kind_name(INJECT_TIMER_LATE), "timer-late");
	assert_string_equal(injection_kind_name(INJECT_PREEMPT), "preempt");
	assert_string_equal(injection_kind_name(INJECT_PREEMPT_INSNS), "preempt-insns");
	assert_string_equal(injection_kind_name(INJECT_PRIORITY), "priority");
	assert_string_equal(injection_kind_name(INJECT_DEMOTE), "demote");
	assert_int_equal(INJECT_PRIORITY, 6);
	assert_int_equal(INJECT_DEMOTE, 7);
	assert_int_equal(INJECT_KIND_END, 8);
	assert_null(injection_kind_name(0));
	assert_null(injection_kind_name(INJECT_KIND_END));
	assert_null(injection_kind_name(255));
	assert_null(injection_kind_name(0x101)); /* not truncated to a byte */
	assert_int_equal(injection_kind_from_name("resched"), INJECT_RESCHED);
	assert_int_equal(injection_kind_from_name("stall"), INJECT_STALL);
	assert_int_equal(injection_kind_from_name("timer-late"), INJECT_TIMER_LATE);
	assert_int_equal(injection_kind_from_name("preempt"), INJECT_PREEMPT);
	assert_int_equal(injection_kind_from_name("preempt-insns"), INJECT_PREEMPT_INSNS);
	assert_int_equal(injection_kind_from_name("priority"), INJECT_PRIORITY);
	assert_int_equal(injection_kind_from_name("demote"), INJECT_DEMOTE);
	assert_int_equal(injection_kind_from_name("pct"), 0);
	assert_int_equal(injection_kind_from_name("Stall"), 0);
	assert_int_equal(injection_kind_from_name("timer"), 0);
	assert_int_equal(injection_kind_from_name(""), 0);
	assert_int_equal(injection_kind_from_name(NULL), 0);
}

static void test_sort_stable(void **state)
{
	static const uint32_t steps[] = {5, 1, 5, 0, 1, 5, 0};
	static const uint32_t want_steps[] = {0, 0, 1, 1, 5, 5, 5};
	static const uint16_t want_args[] = {3, 6, 1, 4, 0, 2, 5};
	struct schedule s = {.count = 7};

	(void)state;
	for (uint16_t i = 0; i < 7; i++)
		s.at[i] = (struct injection){.step = steps[i], .arg = i, .kind = INJECT_STALL};
	schedule_sort(&s);
	assert_int_equal(s.count, 7);
	for (int i = 0; i < 7; i++) {
		assert_int_equal(s.at[i].step, want_steps[i]);
		assert_int_equal(s.at[i].arg, want_args[i]); /* file order within a step */
		assert_int_equal(s.at[i].kind, INJECT_STALL);
	}
	s.count = 0; /* nothing to do, nothing touched */
	schedule_sort(&s);
	assert_int_equal(s.at[0].step, 0);
	assert_int_equal(s.at[6].arg, 5);
}

static void test_sort_full(void **state)
{
	struct schedule s = {.count = SCHEDULE_MAX};

	(void)state;
	/* 256 entries, steps 0..15 in reverse-ish order; arg is the file position */
	for (uint32_t i = 0; i < SCHEDULE_MAX; i++)
		s.at[i] = (struct injection){.step = (i * 7 + 3) % 16 + (i % 3 == 0 ? 0 : 100),
					     .arg = (uint16_t)i,
					     .kind = INJECT_TIMER_LATE};
	schedule_sort(&s);
	for (uint32_t i = 1; i < SCHEDULE_MAX; i++) {
		assert_true(s.at[i - 1].step <= s.at[i].step);
		if (s.at[i - 1].step == s.at[i].step)
			assert_true(s.at[i - 1].arg < s.at[i].arg);
	}
}

/* --- binary form ------------------------------------------------------------ */

/* Every field at its documented offset, little-endian. */
static const uint8_t all_kinds[] = {
	'R',  'W',  'S',  'I',	1,    0,    0,	  0,	/* magic, version, mode, reserved */
	0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01, /* seed 0x0123456789abcdef */
	0x03, 0x00, 0x00, 0x00, 1,    0,    0x00, 0x00, /* step 3 resched */
	0x78, 0x56, 0x34, 0x12, 2,    0,    0xa8, 0x61, /* step 0x12345678 stall 25000 */
	0x07, 0x00, 0x00, 0x00, 3,    0,    0x28, 0x00, /* step 7 timer-late 40 */
	0xff, 0xff, 0xff, 0xff, 2,    0,    0xff, 0xff, /* step 2^32-1 stall 65535 */
	0x03, 0x00, 0x00, 0x00, 3,    0,    0x00, 0x00, /* step 3 timer-late 0 */
};

static void test_parse_all_kinds(void **state)
{
	struct exec_input in;
	uint8_t out[INPUT_MAX_SIZE];
	char why[WHY_LEN] = "";

	(void)state;
	assert_int_equal(input_parse(all_kinds, sizeof(all_kinds), &in, why, sizeof(why)), 0);
	assert_string_equal(why, ""); /* untouched on success */
	assert_true(in.seed == 0x0123456789abcdefULL);
	assert_int_equal(in.mode, INPUT_MODE_STEPS);
	assert_int_equal(in.schedule.count, 5);
	assert_int_equal(in.schedule.at[0].step, 3);
	assert_int_equal(in.schedule.at[0].kind, INJECT_RESCHED);
	assert_int_equal(in.schedule.at[0].arg, 0);
	assert_int_equal(in.schedule.at[1].step, 0x12345678);
	assert_int_equal(in.schedule.at[1].kind, INJECT_STALL);
	assert_int_equal(in.schedule.at[1].arg, 25000);
	assert_int_equal(in.schedule.at[2].step, 7);
	assert_int_equal(in.schedule.at[2].kind, INJECT_TIMER_LATE);
	assert_int_equal(in.schedule.at[2].arg, 40);
	assert_int_equal(in.schedule.at[3].step, UINT32_MAX);
	assert_int_equal(in.schedule.at[3].kind, INJECT_STALL);
	assert_int_equal(in.schedule.at[3].arg, UINT16_MAX);
	assert_int_equal(in.schedule.at[4].kind, INJECT_TIMER_LATE);
	assert_int_equal(in.schedule.at[4].arg, 0);

	assert_int_equal(input_encode(&in, out), sizeof(all_kinds));
	assert_memory_equal(out, all_kinds, sizeof(all_kinds));

	/* sorting moves the resched at step 3 first, the timer-late at step 3 second */
	schedule_sort(&in.schedule);
	assert_int_equal(in.schedule.at[0].kind, INJECT_RESCHED);
	assert_int_equal(in.schedule.at[1].step, 3);
	assert_int_equal(in.schedule.at[1].kind, INJECT_TIMER_LATE);
	assert_int_equal(in.schedule.at[2].step, 7);
	assert_int_equal(in.schedule.at[4].step, UINT32_MAX);
}

static void test_parse_sizes(void **state)
{
	static uint8_t buf[INPUT_MAX_SIZE + 16];
	static struct exec_input in;
	size_t len = header(buf, 42);

	(void)state;
	/* no injections */
	assert_int_equal(input_parse(buf, len, &in, NULL, 0), 0);
	assert_true(in.seed == 42);
	assert_int_equal(in.schedule.count, 0);
	/* exactly SCHEDULE_MAX records */
	for (size_t i = 0; i < SCHEDULE_MAX; i++)
		len = record(buf, i, (uint32_t)(1000 - i), (uint8_t)(i % 3 + 1), 0,
			     i % 3 ? (uint16_t)i : 0);
	assert_int_equal(len, INPUT_MAX_SIZE);
	assert_int_equal(input_parse(buf, len, &in, NULL, 0), 0);
	assert_int_equal(in.schedule.count, SCHEDULE_MAX);
	assert_int_equal(in.schedule.at[SCHEDULE_MAX - 1].step, 1000 - 255);
	assert_int_equal(in.schedule.at[SCHEDULE_MAX - 1].kind, 255 % 3 + 1);
	/* one more is too many, even though the record itself is valid */
	len = record(buf, SCHEDULE_MAX, 1, INJECT_STALL, 0, 1);
	expect_reject(buf, len, "offset 2064: 257 records, at most 256");
	len = record(buf, SCHEDULE_MAX + 1, 1, INJECT_STALL, 0, 1);
	expect_reject(buf, len, "258 records");
}

static void test_parse_rejections(void **state)
{
	uint8_t buf[64];
	size_t len;

	(void)state;
	/* too short */
	expect_reject(NULL, 0, "offset 0: input ends inside the 16-byte header");
	header(buf, 1);
	expect_reject(buf, 1, "offset 1:");
	expect_reject(buf, 15, "offset 15: input ends inside the 16-byte header");

	/* magic */
	len = header(buf, 1);
	buf[3] = 'J';
	expect_reject(buf, len, "offset 0: bad magic 52 57 53 4a, expected \"RWSI\"");
	header(buf, 1);
	buf[0] = 'r';
	expect_reject(buf, len, "offset 0: bad magic");

	/* version */
	header(buf, 1);
	buf[4] = 0;
	expect_reject(buf, len, "offset 4: version 0, expected 1");
	buf[4] = 2;
	expect_reject(buf, len, "offset 4: version 2, expected 1");

	/* mode: 0, 1 and 2 exist */
	header(buf, 1);
	buf[5] = 3;
	expect_reject(buf, len,
		      "offset 5: unknown mode 3, expected 0 (steps), 1 (counter) or 2 (pct)");
	buf[5] = 255;
	expect_reject(buf, len,
		      "offset 5: unknown mode 255, expected 0 (steps), 1 (counter) or 2 (pct)");
	for (uint8_t mode = 0; mode < INPUT_MODES; mode++) {
		struct exec_input in;

		buf[5] = mode;
		assert_int_equal(input_parse(buf, len, &in, NULL, 0), 0);
		assert_int_equal(in.mode, mode);
	}

	/* the header's flags: racy-events (bit 0) and wide priorities (bit 1) in pct mode
	 * only, the other bits reserved */
	header(buf, 1);
	buf[6] = 1;
	expect_reject(buf, len, "offset 6: racy-events needs pct mode");
	buf[5] = INPUT_MODE_COUNTER;
	expect_reject(buf, len, "offset 6: racy-events needs pct mode");
	buf[5] = INPUT_MODE_PCT;
	{
		struct exec_input in;
		static uint8_t out[INPUT_MAX_SIZE];

		assert_int_equal(input_parse(buf, len, &in, NULL, 0), 0);
		assert_int_equal(in.flags, INPUT_FLAG_RACY);
		assert_int_equal(input_encode(&in, out), len);
		assert_memory_equal(out, buf, len);
	}
	buf[6] = 3;
	buf[5] = INPUT_MODE_STEPS;
	expect_reject(buf, len, "offset 6: racy-events needs pct mode");
	buf[6] = 2;
	expect_reject(buf, len, "offset 6: wide priorities need pct mode");
	buf[5] = INPUT_MODE_PCT;
	{
		struct exec_input in;
		static uint8_t out[INPUT_MAX_SIZE];

		assert_int_equal(input_parse(buf, len, &in, NULL, 0), 0);
		assert_int_equal(in.flags, INPUT_FLAG_WIDE);
		assert_int_equal(input_encode(&in, out), len);
		assert_memory_equal(out, buf, len);
		buf[6] = 3;
		assert_int_equal(input_parse(buf, len, &in, NULL, 0), 0);
		assert_int_equal(in.flags, INPUT_FLAG_RACY | INPUT_FLAG_WIDE);
	}
	/* walk (bit 2): pct mode only, and no demote records (priority records stay) */
	buf[6] = 4;
	buf[5] = INPUT_MODE_COUNTER;
	expect_reject(buf, len, "offset 6: walk needs pct mode");
	buf[5] = INPUT_MODE_PCT;
	{
		struct exec_input in;
		static uint8_t out[INPUT_MAX_SIZE];

		assert_int_equal(input_parse(buf, len, &in, NULL, 0), 0);
		assert_int_equal(in.flags, INPUT_FLAG_WALK);
		assert_int_equal(input_encode(&in, out), len);
		assert_memory_equal(out, buf, len);
		buf[6] = 5;
		assert_int_equal(input_parse(buf, len, &in, NULL, 0), 0);
		assert_int_equal(in.flags, INPUT_FLAG_WALK | INPUT_FLAG_RACY);
		buf[6] = 4;
		record(buf, 0, 3, INJECT_DEMOTE, 0, 5);
		expect_reject(buf, len + INPUT_RECORD_SIZE,
			      "record 0 (offset 20): demote in a walk (the walk draws its own "
			      "switches)");
		record(buf, 0, 3, INJECT_PRIORITY, 0, 5);
		assert_int_equal(input_parse(buf, len + INPUT_RECORD_SIZE, &in, NULL, 0), 0);
		assert_int_equal(in.schedule.at[0].kind, INJECT_PRIORITY);
		header(buf, 1);
		buf[5] = INPUT_MODE_PCT;
	}
	buf[6] = 8;
	expect_reject(buf, len, "offset 6: reserved header bits are set (flags 0x0008)");
	buf[6] = 0;
	buf[7] = 0x80;
	expect_reject(buf, len, "offset 6: reserved header bits are set (flags 0x8000)");
	buf[5] = 0;

	/* a trailing partial record is ignored (afl-tmin trims from the end) */
	{
		struct exec_input in;
		char why[WHY_LEN];
		static uint8_t out[INPUT_MAX_SIZE];

		header(buf, 1);
		assert_int_equal(input_parse(buf, 17, &in, why, sizeof(why)), 0);
		assert_int_equal(in.schedule.count, 0);
		assert_int_equal(input_parse(buf, 23, &in, why, sizeof(why)), 0);
		assert_int_equal(in.schedule.count, 0);
		record(buf, 0, 1, INJECT_STALL, 0, 5);
		assert_int_equal(input_parse(buf, 25, &in, why, sizeof(why)), 0);
		assert_int_equal(in.schedule.count, 1);
		assert_int_equal(input_encode(&in, out), 24);
	}

	/* kind: record 2 starts at 32, its kind is at 36 */
	header(buf, 1);
	record(buf, 0, 1, INJECT_STALL, 0, 5);
	record(buf, 1, 2, INJECT_RESCHED, 0, 0);
	len = record(buf, 2, 3, 0, 0, 0);
	expect_reject(buf, len, "record 2 (offset 36): unknown kind 0");
	record(buf, 2, 3, INJECT_KIND_END, 0, 0);
	expect_reject(buf, len, "record 2 (offset 36): unknown kind 8");
	record(buf, 2, 3, 255, 0, 0);
	expect_reject(buf, len, "record 2 (offset 36): unknown kind 255");

	/* reserved record byte */
	record(buf, 2, 3, INJECT_TIMER_LATE, 0, 0);
	record(buf, 1, 2, INJECT_RESCHED, 1, 0);
	expect_reject(buf, len, "record 1 (offset 29): reserved byte is 1, not 0");
	record(buf, 1, 2, INJECT_STALL, 0x80, 0);
	expect_reject(buf, len, "record 1 (offset 29): reserved byte is 128, not 0");

	/* resched takes no argument: low byte, high byte */
	record(buf, 1, 2, INJECT_RESCHED, 0, 0);
	record(buf, 0, 1, INJECT_RESCHED, 0, 1);
	expect_reject(buf, len, "record 0 (offset 22): resched with arg 1, not 0");
	record(buf, 0, 1, INJECT_RESCHED, 0, 0x100);
	expect_reject(buf, len, "record 0 (offset 22): resched with arg 256, not 0");

	/* the first bad record is named; the header is checked before any record */
	record(buf, 0, 1, INJECT_RESCHED, 0, 0);
	record(buf, 1, 2, 9, 0, 0);
	record(buf, 2, 3, 9, 0, 0);
	expect_reject(buf, len, "record 1 (offset 28): unknown kind 9");
	buf[4] = 3;
	expect_reject(buf, len, "offset 4: version 3");
	/* all fixed: accepted */
	buf[4] = 1;
	record(buf, 1, 2, INJECT_TIMER_LATE, 0, 0);
	record(buf, 2, 3, INJECT_STALL, 0, 0);
	assert_int_equal(input_parse(buf, len, &(struct exec_input){0}, NULL, 0), 0);
}

static void test_reason_buffer(void **state)
{
	uint8_t buf[16];
	struct exec_input in;
	char why[12];

	(void)state;
	header(buf, 1);
	buf[4] = 7;
	memset(why, 'x', sizeof(why));
	assert_int_equal(input_parse(buf, sizeof(buf), &in, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "offset 4: v"); /* truncated, terminated */
	memset(why, 'x', sizeof(why));
	assert_int_equal(input_parse(buf, sizeof(buf), &in, why, 0), -EINVAL);
	assert_int_equal(why[0], 'x'); /* why_len 0: nothing written */
	assert_int_equal(input_parse(buf, sizeof(buf), &in, NULL, 0), -EINVAL);
}

static void test_encode_round_trip(void **state)
{
	static struct exec_input in, back;
	static uint8_t buf[INPUT_MAX_SIZE], again[INPUT_MAX_SIZE];
	size_t len;

	(void)state;
	in.seed = 0xfedcba9876543210ULL;
	in.mode = INPUT_MODE_STEPS;
	in.schedule.count = SCHEDULE_MAX;
	for (uint32_t i = 0; i < SCHEDULE_MAX; i++) {
		uint8_t kind = (uint8_t)(i % 3 + 1);

		in.schedule.at[i] = (struct injection){
			.step = i * 0x01010101u,
			.arg = kind == INJECT_RESCHED ? 0 : (uint16_t)(i * 257),
			.kind = kind,
		};
	}
	len = input_encode(&in, buf);
	assert_int_equal(len, INPUT_MAX_SIZE);
	assert_int_equal(get_bytes_le(buf + 8, 8), in.seed);
	assert_int_equal(get_bytes_le(buf + 16 + 8 * 255, 4), 255 * 0x01010101u);
	assert_int_equal(input_parse(buf, len, &back, NULL, 0), 0);
	assert_true(back.seed == in.seed);
	assert_int_equal(back.mode, in.mode);
	assert_int_equal(back.schedule.count, in.schedule.count);
	for (uint32_t i = 0; i < SCHEDULE_MAX; i++) {
		assert_int_equal(back.schedule.at[i].step, in.schedule.at[i].step);
		assert_int_equal(back.schedule.at[i].kind, in.schedule.at[i].kind);
		assert_int_equal(back.schedule.at[i].arg, in.schedule.at[i].arg);
	}
	assert_int_equal(input_encode(&back, again), len);
	assert_memory_equal(again, buf, len);

	/* an empty schedule is just the header */
	in.schedule.count = 0;
	assert_int_equal(input_encode(&in, buf), INPUT_HEADER_SIZE);
	assert_memory_equal(buf, "RWSI\1\0\0\0\x10\x32\x54\x76\x98\xba\xdc\xfe", 16);
}

/* --- JSON form ------------------------------------------------------------- */

static const char all_kinds_json[] =
	"{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"steps\","
	"\"seed\":\"0x0123456789abcdef\",\"injections\":["
	"{\"step\":3,\"kind\":\"resched\"},"
	"{\"step\":305419896,\"kind\":\"stall\",\"us\":25000},"
	"{\"step\":7,\"kind\":\"timer-late\",\"us\":40},"
	"{\"step\":4294967295,\"kind\":\"stall\",\"us\":65535},"
	"{\"step\":3,\"kind\":\"timer-late\",\"us\":0}]}";

/* in as compact JSON text; the caller frees it with cJSON_free. */
static char *json_text(const struct exec_input *in)
{
	cJSON *j = input_to_json(in);
	char *text;

	assert_non_null(j);
	text = cJSON_PrintUnformatted(j);
	assert_non_null(text);
	cJSON_Delete(j);
	return text;
}

/* input_to_json refuses in (freeing whatever it made before failing the test). */
static void assert_no_json(const struct exec_input *in)
{
	cJSON *j = input_to_json(in);
	bool refused = j == NULL;

	cJSON_Delete(j);
	assert_true(refused);
}

/* Parses JSON text into in; returns input_from_json's result. */
static int from_text(const char *text, struct exec_input *in, char *why, size_t why_len)
{
	cJSON *j = cJSON_Parse(text);
	int rc;

	if (!j)
		fail_msg("not JSON: %s", text);
	rc = input_from_json(j, in, why, why_len);
	cJSON_Delete(j);
	return rc;
}

static void test_json_from_binary(void **state)
{
	static struct exec_input in, back;
	uint8_t buf[INPUT_MAX_SIZE];
	char why[WHY_LEN] = "";
	char *text;

	(void)state;
	assert_int_equal(input_parse(all_kinds, sizeof(all_kinds), &in, NULL, 0), 0);
	text = json_text(&in);
	assert_string_equal(text, all_kinds_json);
	/* and back: byte-exact */
	assert_int_equal(from_text(text, &back, why, sizeof(why)), 0);
	assert_int_equal(input_encode(&back, buf), sizeof(all_kinds));
	assert_memory_equal(buf, all_kinds, sizeof(all_kinds));
	cJSON_free(text);

	/* the empty schedule; seed zero is printed in full */
	in.seed = 0;
	in.schedule.count = 0;
	text = json_text(&in);
	assert_string_equal(text, "{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"steps\","
				  "\"seed\":\"0x0000000000000000\",\"injections\":[]}");
	cJSON_free(text);

	/* what the JSON form cannot hold is refused, not silently changed */
	in.mode = INPUT_MODES;
	assert_no_json(&in);
	in.mode = 255;
	assert_no_json(&in);
	in.mode = INPUT_MODE_STEPS;
	in.schedule.count = 1;
	in.schedule.at[0] = (struct injection){.step = 1, .arg = 0, .kind = 0};
	assert_no_json(&in);
	in.schedule.at[0] = (struct injection){.step = 1, .arg = 0, .kind = INJECT_KIND_END};
	assert_no_json(&in);
	in.schedule.at[0] = (struct injection){.step = 1, .arg = 5, .kind = INJECT_RESCHED};
	assert_no_json(&in);
	in.schedule.at[0] = (struct injection){.step = 1, .arg = 5, .kind = INJECT_PREEMPT};
	assert_no_json(&in);
	in.schedule.count = SCHEDULE_MAX + 1;
	assert_no_json(&in);
}

static void test_json_to_binary(void **state)
{
	/* hand-written: other key order, spaces, decimal seed, integral floats */
	static const char text[] = "{ \"injections\": [ {\"kind\": \"resched\", \"step\": 3},\n"
				   "  {\"us\": 25000, \"kind\": \"stall\", \"step\": 305419896},\n"
				   "  {\"step\": 7.0, \"kind\": \"timer-late\", \"us\": 4e1},\n"
				   "  {\"step\": 4294967295, \"kind\": \"stall\", \"us\": 65535},\n"
				   "  {\"step\": 3, \"kind\": \"timer-late\", \"us\": 0} ],\n"
				   "  \"seed\": \"81985529216486895\", \"mode\": \"steps\",\n"
				   "  \"version\": 1, \"format\": \"rewind-input\" }";
	static struct exec_input in, back;
	uint8_t buf[INPUT_MAX_SIZE];
	char why[WHY_LEN] = "";
	char *canon;

	(void)state;
	assert_int_equal(from_text(text, &in, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_int_equal(input_encode(&in, buf), sizeof(all_kinds));
	assert_memory_equal(buf, all_kinds, sizeof(all_kinds));

	/* canonical JSON -> binary -> JSON is text-exact */
	assert_int_equal(from_text(all_kinds_json, &in, why, sizeof(why)), 0);
	assert_int_equal(input_parse(buf, input_encode(&in, buf), &back, NULL, 0), 0);
	canon = json_text(&back);
	assert_string_equal(canon, all_kinds_json);
	cJSON_free(canon);

	/* hex seeds in either case; leading zeros; the extremes */
	assert_int_equal(from_text("{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"steps\","
				   "\"seed\":\"0XFFFFFFFFFFFFFFFF\",\"injections\":[]}",
				   &in, why, sizeof(why)),
			 0);
	assert_true(in.seed == UINT64_MAX);
	assert_int_equal(from_text("{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"steps\","
				   "\"seed\":\"18446744073709551615\",\"injections\":[]}",
				   &in, why, sizeof(why)),
			 0);
	assert_true(in.seed == UINT64_MAX);
	assert_int_equal(from_text("{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"steps\","
				   "\"seed\":\"0x000000000000000000007\",\"injections\":[]}",
				   &in, why, sizeof(why)),
			 0);
	assert_true(in.seed == 7);
	assert_int_equal(in.schedule.count, 0);
}

/*
 * A JSON input of this mode with these injections and this seed (a JSON
 * value, quoted or not) must be rejected with want in the reason.
 */
static void expect_mode_json_reject(const char *mode, const char *seed, const char *injections,
				    const char *extra, const char *want)
{
	static struct exec_input in, before;
	static char text[16384];
	char why[WHY_LEN] = "";
	int rc;

	snprintf(text, sizeof(text),
		 "{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"%s\",\"seed\":%s,"
		 "\"injections\":[%s]%s}",
		 mode, seed, injections, extra);
	memset(&in, 0x5a, sizeof(in));
	before = in;
	rc = from_text(text, &in, why, sizeof(why));
	if (rc != -EINVAL || !strstr(why, want))
		fail_msg("%s: rc %d, reason \"%s\", wanted -EINVAL and \"%s\"", text, rc, why,
			 want);
	assert_memory_equal(&in, &before, sizeof(in));
}

/* The same, in steps mode. */
static void expect_json_reject(const char *seed, const char *injections, const char *extra,
			       const char *want)
{
	expect_mode_json_reject("steps", seed, injections, extra, want);
}

/* A whole JSON text that must be rejected with want in the reason. */
static void expect_text_reject(const char *text, const char *want)
{
	struct exec_input in;
	char why[WHY_LEN] = "";
	int rc = from_text(text, &in, why, sizeof(why));

	if (rc != -EINVAL || !strstr(why, want))
		fail_msg("%s: rc %d, reason \"%s\", wanted -EINVAL and \"%s\"", text, rc, why,
			 want);
}

static void test_json_rejections(void **state)
{
	static const char *const bad_seeds[] = {
		"\"\"",
		"\"0x\"",
		"\"12z\"",
		"\"-1\"",
		"\"+1\"",
		"\" 1\"",
		"\"1 \"",
		"\"0x-1\"",
		"\"0x1g\"",
		"\"1e3\"",
		"\"0b101\"",
		"\"18446744073709551616\"",
		"\"99999999999999999999999\"",
		"\"0x10000000000000000\"",
		"5",
		"null",
		"[\"1\"]",
	};
	const char *ok = "{\"step\":1,\"kind\":\"resched\"}";
	char many[SCHEDULE_MAX * 40 + 64];
	size_t n = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(bad_seeds) / sizeof(bad_seeds[0]); i++)
		expect_json_reject(bad_seeds[i], ok, "",
				   "\"seed\" must be a string holding a decimal or 0x-hex u64");

	/* us */
	expect_json_reject("\"1\"", "{\"step\":1,\"kind\":\"stall\",\"us\":65536}", "",
			   "injections[0]: \"us\" must be an integer in 0..65535");
	expect_json_reject("\"1\"", "{\"step\":1,\"kind\":\"timer-late\",\"us\":-1}", "",
			   "injections[0]: \"us\" must be an integer in 0..65535");
	expect_json_reject("\"1\"", "{\"step\":1,\"kind\":\"stall\",\"us\":1.5}", "",
			   "\"us\" must be an integer");
	expect_json_reject("\"1\"", "{\"step\":1,\"kind\":\"stall\",\"us\":\"10\"}", "",
			   "\"us\" must be an integer");
	expect_json_reject("\"1\"", "{\"step\":1,\"kind\":\"stall\",\"us\":1e400}", "",
			   "\"us\" must be an integer");
	expect_json_reject("\"1\"", "{\"step\":1,\"kind\":\"stall\"}", "",
			   "injections[0]: missing \"us\"");
	expect_json_reject("\"1\"", "{\"step\":1,\"kind\":\"resched\",\"us\":0}", "",
			   "injections[0]: \"us\" is not allowed with \"resched\"");

	/* kind */
	expect_json_reject(
		"\"1\"", "{\"step\":1,\"kind\":\"yield\"}", "",
		"injections[0]: \"kind\" must be \"resched\", \"stall\", \"timer-late\", "
		"\"preempt\", \"preempt-insns\", \"priority\" or \"demote\"");
	expect_json_reject("\"1\"", "{\"step\":1,\"kind\":2,\"us\":1}", "", "\"kind\" must be");
	expect_json_reject("\"1\"", "{\"step\":1}", "", "injections[0]: missing \"kind\"");

	/* step */
	expect_json_reject("\"1\"", "{\"kind\":\"resched\"}", "",
			   "injections[0]: missing \"step\"");
	expect_json_reject("\"1\"", "{\"step\":1,\"kind\":\"resched\"},{\"kind\":\"resched\"}", "",
			   "injections[1]: missing \"step\"");
	expect_json_reject("\"1\"", "{\"step\":4294967296,\"kind\":\"resched\"}", "",
			   "injections[0]: \"step\" must be an integer in 0..4294967295");
	expect_json_reject("\"1\"", "{\"step\":-1,\"kind\":\"resched\"}", "",
			   "\"step\" must be an integer");
	expect_json_reject("\"1\"", "{\"step\":2.5,\"kind\":\"resched\"}", "",
			   "\"step\" must be an integer");
	expect_json_reject("\"1\"", "{\"step\":\"3\",\"kind\":\"resched\"}", "",
			   "\"step\" must be an integer");

	/* unknown and repeated keys, at both levels */
	expect_json_reject("\"1\"", "{\"step\":1,\"kind\":\"resched\",\"arg\":0}", "",
			   "injections[0]: unknown key \"arg\"");
	expect_json_reject("\"1\"", "{\"step\":1,\"kind\":\"resched\",\"Step\":0}", "",
			   "injections[0]: unknown key \"Step\"");
	expect_json_reject("\"1\"", ok, ",\"extra\":1", "unknown key \"extra\"");
	expect_json_reject("\"1\"", "{\"step\":1,\"step\":2,\"kind\":\"resched\"}", "",
			   "injections[0]: key \"step\" repeated");
	expect_json_reject("\"1\"", ok, ",\"seed\":\"2\"", "key \"seed\" repeated");

	/* shape */
	expect_json_reject("\"1\"", "3", "", "injections[0]: not an object");
	expect_json_reject("\"1\"", "[]", "", "injections[0]: not an object");
	expect_text_reject("[]", "not a JSON object");
	expect_text_reject("\"rewind-input\"", "not a JSON object");
	expect_text_reject("{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"steps\","
			   "\"seed\":\"1\",\"injections\":{}}",
			   "\"injections\" must be an array");

	/* header fields: missing ones are named, wrong values rejected */
	expect_text_reject("{\"version\":1,\"mode\":\"steps\",\"seed\":\"1\",\"injections\":[]}",
			   "missing \"format\"");
	expect_text_reject("{\"format\":\"rewind-input\",\"mode\":\"steps\",\"seed\":\"1\","
			   "\"injections\":[]}",
			   "missing \"version\"");
	expect_text_reject("{\"format\":\"rewind-input\",\"version\":1,\"seed\":\"1\","
			   "\"injections\":[]}",
			   "missing \"mode\"");
	expect_text_reject("{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"steps\","
			   "\"injections\":[]}",
			   "missing \"seed\"");
	expect_text_reject("{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"steps\","
			   "\"seed\":\"1\"}",
			   "missing \"injections\"");
	expect_text_reject("{}", "missing \"format\"");
	expect_text_reject("{\"format\":\"rewind-keyframe\",\"version\":1,\"mode\":\"steps\","
			   "\"seed\":\"1\",\"injections\":[]}",
			   "\"format\" must be \"rewind-input\"");
	expect_text_reject("{\"format\":\"rewind-input\",\"version\":2,\"mode\":\"steps\","
			   "\"seed\":\"1\",\"injections\":[]}",
			   "\"version\" must be 1");
	expect_text_reject("{\"format\":\"rewind-input\",\"version\":\"1\",\"mode\":\"steps\","
			   "\"seed\":\"1\",\"injections\":[]}",
			   "\"version\" must be 1");
	expect_text_reject("{\"format\":\"rewind-input\",\"version\":1.5,\"mode\":\"steps\","
			   "\"seed\":\"1\",\"injections\":[]}",
			   "\"version\" must be 1");
	expect_text_reject("{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"time\","
			   "\"seed\":\"1\",\"injections\":[]}",
			   "\"mode\" must be \"steps\", \"counter\" or \"pct\"");
	expect_text_reject("{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"PCT\","
			   "\"seed\":\"1\",\"injections\":[]}",
			   "\"mode\" must be \"steps\", \"counter\" or \"pct\"");
	expect_text_reject("{\"format\":\"rewind-input\",\"version\":1,\"mode\":0,"
			   "\"seed\":\"1\",\"injections\":[]}",
			   "\"mode\" must be \"steps\"");

	/* at most SCHEDULE_MAX injections */
	for (int i = 0; i < SCHEDULE_MAX + 1; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n, "%s%s", i ? "," : "", ok);
	expect_json_reject("\"1\"", many, "", "\"injections\": 257 entries, at most 256");
}

/* Two good injections, then this third one: the reason must name injections[2]. */
static void expect_third_rejected(const char *third, const char *want)
{
	char injections[256];

	snprintf(injections, sizeof(injections),
		 "{\"step\":1,\"kind\":\"resched\"},{\"step\":2,\"kind\":\"stall\",\"us\":3},%s",
		 third);
	expect_json_reject("\"1\"", injections, "", want);
}

/* A header with this "version" (a JSON value) must be rejected with want in the reason. */
static void expect_version_rejected(const char *version, const char *want)
{
	char text[256];

	snprintf(text, sizeof(text),
		 "{\"format\":\"rewind-input\",\"version\":%s,\"mode\":\"steps\",\"seed\":\"1\","
		 "\"injections\":[]}",
		 version);
	expect_text_reject(text, want);
}

/*
 * Every number in the JSON form is a whole number in its range: negative,
 * fractional, huge and non-numeric values are named in the reason.
 */
static void test_json_numbers_checked(void **state)
{
	static const struct {
		const char *injection, *want;
	} bad[] = {
		{"{\"step\":-5,\"kind\":\"resched\"}",
		 "injections[2]: \"step\" must be an integer in 0..4294967295, not -5"},
		{"{\"step\":1.5,\"kind\":\"resched\"}",
		 "injections[2]: \"step\" must be an integer in 0..4294967295, not 1.5"},
		{"{\"step\":1e300,\"kind\":\"resched\"}",
		 "injections[2]: \"step\" must be an integer in 0..4294967295, not 1e+300"},
		{"{\"step\":-1e300,\"kind\":\"resched\"}",
		 "injections[2]: \"step\" must be an integer in 0..4294967295, not -1e+300"},
		{"{\"step\":4294967296,\"kind\":\"resched\"}",
		 "injections[2]: \"step\" must be an integer in 0..4294967295, not 4294967296"},
		{"{\"step\":4294967295.5,\"kind\":\"resched\"}",
		 "injections[2]: \"step\" must be an integer in 0..4294967295, not 4294967295.5"},
		{"{\"step\":\"7\",\"kind\":\"resched\"}",
		 "injections[2]: \"step\" must be an integer in 0..4294967295, not a string"},
		{"{\"step\":null,\"kind\":\"resched\"}",
		 "injections[2]: \"step\" must be an integer in 0..4294967295, not null"},
		{"{\"step\":true,\"kind\":\"resched\"}",
		 "injections[2]: \"step\" must be an integer in 0..4294967295, not true"},
		{"{\"step\":[1],\"kind\":\"resched\"}",
		 "injections[2]: \"step\" must be an integer in 0..4294967295, not an array"},
		{"{\"step\":1,\"kind\":\"stall\",\"us\":-5}",
		 "injections[2]: \"us\" must be an integer in 0..65535, not -5"},
		{"{\"step\":1,\"kind\":\"timer-late\",\"us\":0.5}",
		 "injections[2]: \"us\" must be an integer in 0..65535, not 0.5"},
		{"{\"step\":1,\"kind\":\"stall\",\"us\":1e300}",
		 "injections[2]: \"us\" must be an integer in 0..65535, not 1e+300"},
		{"{\"step\":1,\"kind\":\"stall\",\"us\":65536}",
		 "injections[2]: \"us\" must be an integer in 0..65535, not 65536"},
		{"{\"step\":1,\"kind\":\"preempt-insns\",\"insns\":-1}",
		 "injections[2]: \"insns\" must be an integer in 1..4096, not -1"},
		{"{\"step\":1,\"kind\":\"preempt-insns\",\"insns\":2.25}",
		 "injections[2]: \"insns\" must be an integer in 1..4096, not 2.25"},
		{"{\"block\":-3,\"kind\":\"preempt\"}",
		 "injections[2]: \"block\" must be an integer in 0..4294967295, not -3"},
		{"{\"thread\":-5,\"kind\":\"priority\",\"priority\":2}",
		 "injections[2]: \"thread\" must be an integer in 0..4294967295, not -5"},
		{"{\"thread\":1,\"kind\":\"priority\",\"priority\":1e300}",
		 "injections[2]: \"priority\" must be an integer in 1..99, not 1e+300"},
		{"{\"position\":1e300,\"kind\":\"demote\",\"priority\":2}",
		 "injections[2]: \"position\" must be an integer in 0..4294967295, not 1e+300"},
		{"{\"position\":1,\"kind\":\"demote\",\"priority\":-1}",
		 "injections[2]: \"priority\" must be an integer in 1..99, not -1"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_third_rejected(bad[i].injection, bad[i].want);
	expect_version_rejected("1.9", "\"version\" must be 1, not 1.9");
	expect_version_rejected("0.9999", "\"version\" must be 1, not 0.9999");
	expect_version_rejected("-1", "\"version\" must be 1, not -1");
	expect_version_rejected("1e300", "\"version\" must be 1, not 1e+300");
	expect_version_rejected("4294967297", "\"version\" must be 1, not 4294967297");
	expect_version_rejected("\"1\"", "\"version\" must be 1, not a string");
	expect_version_rejected("null", "\"version\" must be 1, not null");
}

/* Not a number (no JSON text holds one, but a cJSON tree can): rejected, never cast. */
static void expect_nan_rejected(const char *text, const char *field, double value, const char *want)
{
	cJSON *j = cJSON_Parse(text);
	cJSON *at = j;
	struct exec_input in;
	char why[WHY_LEN] = "";

	assert_non_null(j);
	if (strcmp(field, "version") != 0)
		at = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "injections"), 0);
	at = cJSON_GetObjectItemCaseSensitive(at, field);
	assert_non_null(at);
	at->valuedouble = value;
	assert_int_equal(input_from_json(j, &in, why, sizeof(why)), -EINVAL);
	cJSON_Delete(j);
	if (!strstr(why, want))
		fail_msg("reason \"%s\", wanted \"%s\"", why, want);
}

static void test_json_nan_and_infinity(void **state)
{
	static const char text[] =
		"{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"steps\",\"seed\":\"1\","
		"\"injections\":[{\"step\":1,\"kind\":\"stall\",\"us\":3}]}";

	(void)state;
	expect_nan_rejected(text, "step", NAN,
			    "injections[0]: \"step\" must be an integer in 0..4294967295, not nan");
	expect_nan_rejected(text, "us", NAN,
			    "injections[0]: \"us\" must be an integer in 0..65535, not nan");
	expect_nan_rejected(text, "step", INFINITY,
			    "injections[0]: \"step\" must be an integer in 0..4294967295, not inf");
	expect_nan_rejected(text, "version", NAN, "\"version\" must be 1, not nan");
	expect_nan_rejected(text, "version", -INFINITY, "\"version\" must be 1, not -inf");
}

/* --- random inputs against an oracle ---------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
	/* xorshift64*: deterministic and good enough to spread bytes */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static uint32_t rng_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)((rng_next(s) >> 32) % n);
}

/* The rules of docs/input-format.md (and of pct mode), written out a second time. */
static bool oracle_valid(const uint8_t *d, size_t len)
{
	if (len < 16 || (len - 16) / 8 > 256)
		return false;
	if (memcmp(d, "RWSI", 4) != 0 || d[4] != 1 || d[5] > 2 || d[6] != 0 || d[7] != 0)
		return false;
	for (size_t o = 16; o + 8 <= len; o += 8) {
		unsigned int arg = d[o + 6] | (unsigned int)d[o + 7] << 8;

		if (d[o + 4] < 1 || d[o + 4] > 7 || d[o + 5] != 0)
			return false;
		if ((d[o + 4] == 1 || d[o + 4] == 4) && arg != 0)
			return false;
		if (d[o + 4] == 5 && (arg < 1 || arg > 4096)) /* preempt-insns: 1..4096 */
			return false;
		if (d[o + 4] == 4 && d[5] != 1) /* preempt: counter mode only */
			return false;
		if ((d[o + 4] == 6 || d[o + 4] == 7) && d[5] != 2) /* priority, demote: pct only */
			return false;
		if ((d[o + 4] == 6 || d[o + 4] == 7) && (arg < 1 || arg > 99))
			return false;
	}
	return true;
}

/*
 * An argument the kind accepts; now and then one out of range for
 * preempt-insns, priority and demote.
 */
static uint16_t random_arg(uint64_t *rng, uint8_t kind)
{
	if (kind == INJECT_RESCHED || kind == INJECT_PREEMPT)
		return 0;
	if (kind == INJECT_PREEMPT_INSNS && rng_below(rng, 1024))
		return (uint16_t)(rng_below(rng, INJECT_INSNS_MAX) + 1);
	if ((kind == INJECT_PRIORITY || kind == INJECT_DEMOTE) && rng_below(rng, 1024))
		return (uint16_t)(rng_below(rng, INJECT_PRIO_MAX) + 1);
	return (uint16_t)rng_next(rng);
}

/* The kinds each mode allows, in kind order. */
static const uint8_t steps_kinds[] = {INJECT_RESCHED, INJECT_STALL, INJECT_TIMER_LATE,
				      INJECT_PREEMPT_INSNS};
static const uint8_t counter_kinds[] = {INJECT_RESCHED, INJECT_STALL, INJECT_TIMER_LATE,
					INJECT_PREEMPT, INJECT_PREEMPT_INSNS};
static const uint8_t pct_kinds[] = {INJECT_RESCHED,	  INJECT_STALL,	   INJECT_TIMER_LATE,
				    INJECT_PREEMPT_INSNS, INJECT_PRIORITY, INJECT_DEMOTE};

/* The kinds mode allows (mode < INPUT_MODES), and how many in *n. */
static const uint8_t *mode_kinds(uint8_t mode, size_t *n)
{
	switch (mode) {
	case INPUT_MODE_STEPS:
		*n = sizeof(steps_kinds);
		return steps_kinds;
	case INPUT_MODE_COUNTER:
		*n = sizeof(counter_kinds);
		return counter_kinds;
	default:
		*n = sizeof(pct_kinds);
		return pct_kinds;
	}
}

/* Random bytes of a random kind: pure noise, a valid header, or a valid input mutated. */
static size_t random_input(uint64_t *rng, uint8_t *buf, size_t cap)
{
	size_t len = rng_below(rng, (uint32_t)cap + 1), n;

	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)rng_next(rng);
	switch (rng_below(rng, 4)) {
	case 0: /* noise */
		return len;
	case 1: /* a valid header, noise after it */
		if (len >= 16)
			header(buf, rng_next(rng));
		return len;
	default: /* valid in any mode, then 0..3 bytes changed (a third of the time nothing) */
		n = rng_below(rng, rng_below(rng, 8) ? SCHEDULE_MAX + 1 : SCHEDULE_MAX + 4);
		len = header(buf, rng_next(rng));
		buf[5] = (uint8_t)rng_below(rng, INPUT_MODES);
		for (size_t i = 0; i < n; i++) {
			size_t nkinds;
			const uint8_t *kinds = mode_kinds(buf[5], &nkinds);
			uint8_t kind = kinds[rng_below(rng, (uint32_t)nkinds)];

			len = record(buf, i, (uint32_t)rng_next(rng), kind, 0,
				     random_arg(rng, kind));
		}
		for (uint32_t m = rng_below(rng, 4); m > 0 && len; m--)
			buf[rng_below(rng, (uint32_t)len)] = (uint8_t)rng_next(rng);
		if (rng_below(rng, 16) == 0) /* now and then cut short */
			len = rng_below(rng, (uint32_t)len + 1);
		return len;
	}
}

/* JSON text and back gives the same bytes. */
static void check_json_round_trip(const struct exec_input *in, const uint8_t *bytes, size_t len)
{
	static struct exec_input back;
	static uint8_t out[INPUT_MAX_SIZE];
	char why[WHY_LEN] = "";
	char *text = json_text(in);

	if (from_text(text, &back, why, sizeof(why)) != 0)
		fail_msg("own JSON rejected: %s: %s", why, text);
	cJSON_free(text);
	assert_int_equal(input_encode(&back, out), len);
	assert_memory_equal(out, bytes, len);
}

static void test_random_inputs(void **state)
{
	static uint8_t buf[2100], out[INPUT_MAX_SIZE];
	static struct exec_input in, before;
	uint64_t rng = 0x5eed5eed12345678ULL;
	unsigned int accepted = 0, rejected = 0, json_checked = 0, per_mode[INPUT_MODES] = {0};

	(void)state;
	memset(&before, 0x3c, sizeof(before));
	for (int iter = 0; iter < 100000; iter++) {
		size_t len = random_input(&rng, buf, sizeof(buf));
		uint8_t *data = malloc(len ? len : 1); /* exact size: ASan sees any over-read */
		char why[WHY_LEN] = "";
		bool valid;
		int rc;

		assert_non_null(data);
		memcpy(data, buf, len);
		in = before;
		rc = input_parse(data, len, &in, why, sizeof(why));
		valid = oracle_valid(data, len);
		if (rc != (valid ? 0 : -EINVAL))
			fail_msg("iteration %d, len %zu: rc %d, oracle says %s (%s)", iter, len, rc,
				 valid ? "valid" : "invalid", why);
		if (rc == 0) {
			accepted++;
			assert_true(in.seed == get_bytes_le(data + 8, 8));
			assert_int_equal(in.mode, data[5]);
			per_mode[in.mode]++;
			assert_int_equal(in.schedule.count, (len - 16) / 8);
			for (uint32_t i = 0; i < in.schedule.count; i++) {
				const uint8_t *r = data + 16 + 8 * i;

				assert_int_equal(in.schedule.at[i].step, get_bytes_le(r, 4));
				assert_int_equal(in.schedule.at[i].kind, r[4]);
				assert_int_equal(in.schedule.at[i].arg, get_bytes_le(r + 6, 2));
			}
			len -= (len - 16) % 8; /* a partial last record is ignored */
			assert_int_equal(input_encode(&in, out), len);
			assert_memory_equal(out, data, len);
			if (accepted % 8 == 0) {
				check_json_round_trip(&in, data, len);
				json_checked++;
			}
		} else {
			rejected++;
			assert_true(why[0] != '\0');
			assert_memory_equal(&in, &before, sizeof(in));
		}
		free(data);
	}
	print_message("random inputs: %u accepted (%u steps, %u counter, %u pct; %u through JSON), "
		      "%u rejected\n",
		      accepted, per_mode[INPUT_MODE_STEPS], per_mode[INPUT_MODE_COUNTER],
		      per_mode[INPUT_MODE_PCT], json_checked, rejected);
	assert_int_equal(accepted + rejected, 100000);
	assert_true(accepted > 20000); /* both sides well exercised */
	assert_true(rejected > 40000);
	for (uint8_t mode = 0; mode < INPUT_MODES; mode++) /* and every mode */
		assert_true(per_mode[mode] > 5000);
}

/* --- pct mode: priority and demote ------------------------------------------ */

/* Every kind pct mode allows, at its documented offsets. */
static const uint8_t pct_input[] = {
	'R',  'W',  'S',  'I',	1,    2,    0,	  0,	/* magic, version, mode pct, reserved */
	0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01, /* seed 0x0123456789abcdef */
	0x00, 0x00, 0x00, 0x00, 6,    0,    99,	  0x00, /* thread 0 (main) priority 99 */
	0x03, 0x00, 0x00, 0x00, 6,    0,    1,	  0x00, /* thread 3 priority 1 */
	0x00, 0x00, 0x00, 0x80, 7,    0,    2,	  0x00, /* position 2^31 demote to 2 */
	0xff, 0xff, 0xff, 0xff, 7,    0,    99,	  0x00, /* position 2^32-1 demote to 99 */
	0x05, 0x00, 0x00, 0x00, 1,    0,    0x00, 0x00, /* step 5 resched */
	0x06, 0x00, 0x00, 0x00, 2,    0,    0x10, 0x27, /* step 6 stall 10000 */
	0x07, 0x00, 0x00, 0x00, 3,    0,    0x28, 0x00, /* step 7 timer-late 40 */
	0x08, 0x00, 0x00, 0x00, 5,    0,    0x00, 0x10, /* step 8 preempt-insns 4096 */
};

static const char pct_json[] = "{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"pct\","
			       "\"seed\":\"0x0123456789abcdef\",\"injections\":["
			       "{\"thread\":0,\"kind\":\"priority\",\"priority\":99},"
			       "{\"thread\":3,\"kind\":\"priority\",\"priority\":1},"
			       "{\"position\":2147483648,\"kind\":\"demote\",\"priority\":2},"
			       "{\"position\":4294967295,\"kind\":\"demote\",\"priority\":99},"
			       "{\"step\":5,\"kind\":\"resched\"},"
			       "{\"step\":6,\"kind\":\"stall\",\"us\":10000},"
			       "{\"step\":7,\"kind\":\"timer-late\",\"us\":40},"
			       "{\"step\":8,\"kind\":\"preempt-insns\",\"insns\":4096}]}";

/* Field by field (the structs have padding), naming what differs. */
static void assert_same_input(const struct exec_input *got, const struct exec_input *want,
			      const char *what)
{
	if (got->seed != want->seed || got->mode != want->mode || got->flags != want->flags ||
	    got->schedule.count != want->schedule.count)
		fail_msg("%s: seed 0x%016llx mode %u flags %u count %u, wanted 0x%016llx mode %u "
			 "flags %u count %u",
			 what, (unsigned long long)got->seed, got->mode, got->flags,
			 got->schedule.count, (unsigned long long)want->seed, want->mode,
			 want->flags, want->schedule.count);
	for (uint32_t i = 0; i < want->schedule.count && i < SCHEDULE_MAX; i++) {
		const struct injection *g = &got->schedule.at[i], *w = &want->schedule.at[i];

		if (g->step != w->step || g->kind != w->kind || g->arg != w->arg)
			fail_msg("%s: injection %u is step %u kind %u arg %u, wanted step %u kind "
				 "%u arg %u",
				 what, i, g->step, g->kind, g->arg, w->step, w->kind, w->arg);
	}
}

static void test_pct_mode_binary(void **state)
{
	static const struct injection want[] = {
		{.step = 0, .kind = INJECT_PRIORITY, .arg = 99},
		{.step = 3, .kind = INJECT_PRIORITY, .arg = 1},
		{.step = 0x80000000u, .kind = INJECT_DEMOTE, .arg = 2},
		{.step = UINT32_MAX, .kind = INJECT_DEMOTE, .arg = 99},
		{.step = 5, .kind = INJECT_RESCHED, .arg = 0},
		{.step = 6, .kind = INJECT_STALL, .arg = 10000},
		{.step = 7, .kind = INJECT_TIMER_LATE, .arg = 40},
		{.step = 8, .kind = INJECT_PREEMPT_INSNS, .arg = 4096},
	};
	struct exec_input in;
	uint8_t buf[sizeof(pct_input)];
	char why[WHY_LEN] = "";

	(void)state;
	assert_int_equal(INPUT_MODE_PCT, 2);
	assert_int_equal(INPUT_MODES, 3);
	assert_int_equal(input_parse(pct_input, sizeof(pct_input), &in, why, sizeof(why)), 0);
	assert_true(in.seed == 0x0123456789abcdefULL);
	assert_int_equal(in.mode, INPUT_MODE_PCT);
	assert_int_equal(in.schedule.count, 8);
	for (uint32_t i = 0; i < 8; i++) {
		assert_int_equal(in.schedule.at[i].step, want[i].step);
		assert_int_equal(in.schedule.at[i].kind, want[i].kind);
		assert_int_equal(in.schedule.at[i].arg, want[i].arg);
	}
	assert_int_equal(input_encode(&in, buf), sizeof(pct_input));
	assert_memory_equal(buf, pct_input, sizeof(pct_input));

	/* priority and demote need pct mode: named at the kind byte of the first one */
	buf[5] = INPUT_MODE_STEPS;
	expect_reject(buf, sizeof(buf), "record 0 (offset 20): priority needs pct mode");
	buf[5] = INPUT_MODE_COUNTER;
	expect_reject(buf, sizeof(buf), "record 0 (offset 20): priority needs pct mode");
	buf[20] = INJECT_STALL; /* record 0 a stall, record 1 still a priority */
	expect_reject(buf, sizeof(buf), "record 1 (offset 28): priority needs pct mode");
	buf[28] = INJECT_STALL;
	expect_reject(buf, sizeof(buf), "record 2 (offset 36): demote needs pct mode");
	buf[38] = 0; /* the mode is checked before the priority */
	expect_reject(buf, sizeof(buf), "record 2 (offset 36): demote needs pct mode");
	buf[5] = INPUT_MODE_PCT;
	expect_reject(buf, sizeof(buf), "record 2 (offset 38): demote with arg 0, not 1..99");

	/* priorities 1..99, either byte */
	memcpy(buf, pct_input, sizeof(buf));
	buf[38] = 100;
	expect_reject(buf, sizeof(buf), "record 2 (offset 38): demote with arg 100, not 1..99");
	buf[38] = 2;
	buf[39] = 1;
	expect_reject(buf, sizeof(buf), "record 2 (offset 38): demote with arg 258, not 1..99");
	memcpy(buf, pct_input, sizeof(buf));
	buf[30] = 0;
	expect_reject(buf, sizeof(buf), "record 1 (offset 30): priority with arg 0, not 1..99");
	buf[30] = 0xff;
	buf[31] = 0xff;
	expect_reject(buf, sizeof(buf), "record 1 (offset 30): priority with arg 65535, not 1..99");
	buf[30] = 100;
	buf[31] = 0;
	expect_reject(buf, sizeof(buf), "record 1 (offset 30): priority with arg 100, not 1..99");

	/* the reserved byte is checked first, as for every kind */
	memcpy(buf, pct_input, sizeof(buf));
	buf[21] = 1;
	buf[22] = 0;
	expect_reject(buf, sizeof(buf), "record 0 (offset 21): reserved byte is 1, not 0");

	/* preempt still needs counter mode */
	memcpy(buf, pct_input, sizeof(buf));
	buf[52] = INJECT_PREEMPT; /* record 4, the resched */
	expect_reject(buf, sizeof(buf), "record 4 (offset 52): preempt needs counter mode");

	/* unknown kinds past demote */
	buf[52] = INJECT_KIND_END;
	expect_reject(buf, sizeof(buf), "record 4 (offset 52): unknown kind 8");
}

static void test_pct_mode_json(void **state)
{
	static struct exec_input in, back;
	uint8_t buf[INPUT_MAX_SIZE];
	char why[WHY_LEN] = "";
	char *text;

	(void)state;
	/* binary -> JSON is text-exact, JSON -> binary byte-exact */
	assert_int_equal(input_parse(pct_input, sizeof(pct_input), &in, NULL, 0), 0);
	text = json_text(&in);
	assert_string_equal(text, pct_json);
	cJSON_free(text);
	assert_int_equal(from_text(pct_json, &back, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_same_input(&back, &in, "pct JSON");
	assert_int_equal(input_encode(&back, buf), sizeof(pct_input));
	assert_memory_equal(buf, pct_input, sizeof(pct_input));

	/* hand-written: other key order, integral floats */
	assert_int_equal(from_text("{\"injections\":[{\"priority\":5.0,\"kind\":\"demote\","
				   "\"position\":7},{\"kind\":\"priority\",\"priority\":1,"
				   "\"thread\":4294967295}],\"seed\":\"9\",\"mode\":\"pct\","
				   "\"version\":1,\"format\":\"rewind-input\"}",
				   &in, why, sizeof(why)),
			 0);
	assert_int_equal(in.mode, INPUT_MODE_PCT);
	assert_true(in.seed == 9);
	assert_int_equal(in.schedule.count, 2);
	assert_int_equal(in.schedule.at[0].kind, INJECT_DEMOTE);
	assert_int_equal(in.schedule.at[0].step, 7);
	assert_int_equal(in.schedule.at[0].arg, 5);
	assert_int_equal(in.schedule.at[1].kind, INJECT_PRIORITY);
	assert_int_equal(in.schedule.at[1].step, UINT32_MAX);
	assert_int_equal(in.schedule.at[1].arg, 1);

	/* an empty pct schedule */
	in.schedule.count = 0;
	text = json_text(&in);
	assert_string_equal(text, "{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"pct\","
				  "\"seed\":\"0x0000000000000009\",\"injections\":[]}");
	cJSON_free(text);

	/* racy events: "events": "racy", both ways; "all" is the default, said or not */
	in.flags = INPUT_FLAG_RACY;
	text = json_text(&in);
	assert_string_equal(text, "{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"pct\","
				  "\"seed\":\"0x0000000000000009\",\"events\":\"racy\","
				  "\"injections\":[]}");
	assert_int_equal(from_text(text, &back, why, sizeof(why)), 0);
	assert_same_input(&back, &in, "pct JSON, racy events");
	cJSON_free(text);
	assert_int_equal(from_text("{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"pct\","
				   "\"seed\":\"9\",\"events\":\"all\",\"injections\":[]}",
				   &back, why, sizeof(why)),
			 0);
	assert_int_equal(back.flags, 0);
	expect_text_reject("{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"counter\","
			   "\"seed\":\"9\",\"events\":\"racy\",\"injections\":[]}",
			   "\"events\": \"racy\" needs pct mode");
	expect_text_reject("{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"pct\","
			   "\"seed\":\"9\",\"events\":1,\"injections\":[]}",
			   "\"events\" must be \"racy\" or \"all\"");
	expect_text_reject("{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"pct\","
			   "\"seed\":\"9\",\"events\":\"some\",\"injections\":[]}",
			   "\"events\" must be \"racy\" or \"all\"");

	/* wide priorities: "priorities": "wide", both ways, with racy events too; "narrow" is
	 * the default, said or not */
	in.flags = INPUT_FLAG_WIDE | INPUT_FLAG_RACY;
	text = json_text(&in);
	assert_string_equal(text, "{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"pct\","
				  "\"seed\":\"0x0000000000000009\",\"events\":\"racy\","
				  "\"priorities\":\"wide\",\"injections\":[]}");
	assert_int_equal(from_text(text, &back, why, sizeof(why)), 0);
	assert_same_input(&back, &in, "pct JSON, wide priorities");
	cJSON_free(text);
	assert_int_equal(from_text("{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"pct\","
				   "\"seed\":\"9\",\"priorities\":\"narrow\",\"injections\":[]}",
				   &back, why, sizeof(why)),
			 0);
	assert_int_equal(back.flags, 0);
	expect_text_reject("{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"steps\","
			   "\"seed\":\"9\",\"priorities\":\"wide\",\"injections\":[]}",
			   "\"priorities\": \"wide\" needs pct mode");
	expect_text_reject("{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"pct\","
			   "\"seed\":\"9\",\"priorities\":48,\"injections\":[]}",
			   "\"priorities\" must be \"wide\" or \"narrow\"");

	/* a walk: "sampler": "walk", both ways; "pct" is the default; no demote in a walk */
	in.flags = INPUT_FLAG_WALK;
	text = json_text(&in);
	assert_string_equal(text, "{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"pct\","
				  "\"seed\":\"0x0000000000000009\",\"sampler\":\"walk\","
				  "\"injections\":[]}");
	assert_int_equal(from_text(text, &back, why, sizeof(why)), 0);
	assert_same_input(&back, &in, "pct JSON, a walk");
	cJSON_free(text);
	assert_int_equal(from_text("{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"pct\","
				   "\"seed\":\"9\",\"sampler\":\"pct\",\"injections\":[]}",
				   &back, why, sizeof(why)),
			 0);
	assert_int_equal(back.flags, 0);
	assert_int_equal(from_text("{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"pct\","
				   "\"seed\":\"9\",\"sampler\":\"walk\",\"injections\":[{"
				   "\"thread\":1,\"kind\":\"priority\",\"priority\":40}]}",
				   &back, why, sizeof(why)),
			 0);
	assert_int_equal(back.flags, INPUT_FLAG_WALK);
	assert_int_equal(back.schedule.count, 1);
	expect_text_reject("{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"counter\","
			   "\"seed\":\"9\",\"sampler\":\"walk\",\"injections\":[]}",
			   "\"sampler\": \"walk\" needs pct mode");
	expect_text_reject("{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"pct\","
			   "\"seed\":\"9\",\"sampler\":\"urw\",\"injections\":[]}",
			   "\"sampler\" must be \"walk\" or \"pct\"");
	expect_text_reject("{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"pct\","
			   "\"seed\":\"9\",\"sampler\":\"walk\",\"injections\":[{"
			   "\"position\":3,\"kind\":\"demote\",\"priority\":5}]}",
			   "injections[0]: demote in a walk (\"sampler\": \"walk\" draws its own "
			   "switches)");
	in.flags = 0;

	/* each kind takes its own key for where it acts */
	expect_mode_json_reject("pct", "\"1\"", "{\"step\":5,\"kind\":\"demote\",\"priority\":2}",
				"", "injections[0]: demote takes \"position\", not \"step\"");
	expect_mode_json_reject("pct", "\"1\"", "{\"block\":5,\"kind\":\"demote\",\"priority\":2}",
				"", "injections[0]: demote takes \"position\", not \"block\"");
	expect_mode_json_reject("pct", "\"1\"", "{\"thread\":5,\"kind\":\"demote\",\"priority\":2}",
				"", "injections[0]: demote takes \"position\", not \"thread\"");
	expect_mode_json_reject("pct", "\"1\"", "{\"step\":0,\"kind\":\"priority\",\"priority\":2}",
				"", "injections[0]: priority takes \"thread\", not \"step\"");
	expect_mode_json_reject(
		"pct", "\"1\"",
		"{\"thread\":0,\"position\":1,\"kind\":\"priority\",\"priority\":2}", "",
		"injections[0]: priority takes \"thread\", not \"position\"");
	expect_mode_json_reject("pct", "\"1\"", "{\"thread\":0,\"kind\":\"stall\",\"us\":2}", "",
				"injections[0]: stall takes \"step\", not \"thread\"");
	expect_mode_json_reject("pct", "\"1\"", "{\"position\":0,\"kind\":\"resched\"}", "",
				"injections[0]: resched takes \"step\", not \"position\"");
	expect_mode_json_reject("pct", "\"1\"", "{\"kind\":\"demote\",\"priority\":2}", "",
				"injections[0]: missing \"position\"");
	expect_mode_json_reject("pct", "\"1\"", "{\"kind\":\"priority\",\"priority\":2}", "",
				"injections[0]: missing \"thread\"");
	expect_mode_json_reject("pct", "\"1\"",
				"{\"position\":4294967296,\"kind\":\"demote\",\"priority\":2}", "",
				"injections[0]: \"position\" must be an integer in 0..4294967295");
	expect_mode_json_reject("pct", "\"1\"",
				"{\"thread\":-1,\"kind\":\"priority\",\"priority\":2}", "",
				"injections[0]: \"thread\" must be an integer in 0..4294967295");

	/* priorities: 1..99, required, and only for priority and demote */
	expect_mode_json_reject("pct", "\"1\"",
				"{\"position\":1,\"kind\":\"demote\",\"priority\":0}", "",
				"injections[0]: \"priority\" must be an integer in 1..99");
	expect_mode_json_reject("pct", "\"1\"",
				"{\"thread\":1,\"kind\":\"priority\",\"priority\":100}", "",
				"injections[0]: \"priority\" must be an integer in 1..99");
	expect_mode_json_reject("pct", "\"1\"",
				"{\"thread\":1,\"kind\":\"priority\",\"priority\":1.5}", "",
				"injections[0]: \"priority\" must be an integer in 1..99");
	expect_mode_json_reject("pct", "\"1\"", "{\"position\":1,\"kind\":\"demote\"}", "",
				"injections[0]: missing \"priority\"");
	expect_mode_json_reject("pct", "\"1\"",
				"{\"position\":1,\"kind\":\"demote\",\"priority\":2,\"us\":3}", "",
				"injections[0]: \"us\" is not allowed with \"demote\"");
	expect_mode_json_reject("pct", "\"1\"",
				"{\"thread\":1,\"kind\":\"priority\",\"priority\":2,\"insns\":3}",
				"", "injections[0]: \"insns\" is not allowed with \"priority\"");
	expect_mode_json_reject("pct", "\"1\"",
				"{\"step\":1,\"kind\":\"stall\",\"us\":3,\"priority\":2}", "",
				"injections[0]: \"priority\" is not allowed with \"stall\"");
	expect_mode_json_reject("pct", "\"1\"", "{\"step\":1,\"kind\":\"resched\",\"priority\":2}",
				"", "injections[0]: \"priority\" is not allowed with \"resched\"");

	/* each kind in its own mode only; the first injection that is not is named */
	expect_mode_json_reject("steps", "\"1\"",
				"{\"thread\":0,\"kind\":\"priority\",\"priority\":9}", "",
				"injections[0]: priority needs \"mode\": \"pct\"");
	expect_mode_json_reject("counter", "\"1\"",
				"{\"step\":1,\"kind\":\"resched\"},"
				"{\"position\":9,\"kind\":\"demote\",\"priority\":9}",
				"", "injections[1]: demote needs \"mode\": \"pct\"");
	expect_mode_json_reject("pct", "\"1\"", "{\"block\":3,\"kind\":\"preempt\"}", "",
				"injections[0]: preempt needs \"mode\": \"counter\"");
	expect_mode_json_reject("steps", "\"1\"", "{\"block\":3,\"kind\":\"preempt\"}", "",
				"injections[0]: preempt needs \"mode\": \"counter\"");
}

/* --- lenient decoding: any bytes as a valid input -------------------------- */

/* input_decode of data, copied to an exact-size buffer (ASan sees any over-read). */
static int decode(const uint8_t *data, size_t len, struct exec_input *in)
{
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	assert_non_null(copy);
	if (len)
		memcpy(copy, data, len);
	rc = input_decode(copy, len, in);
	free(copy);
	return rc;
}

/* The decoding rules, written out a second time. */
static void oracle_decode(const uint8_t *d, size_t len, struct exec_input *in)
{
	uint8_t hdr[16] = {0};
	size_t nkinds, count = len > 16 ? (len - 16) / 8 : 0;
	const uint8_t *kinds;

	for (size_t i = 0; i < len && i < 16; i++)
		hdr[i] = d[i];
	in->mode = hdr[5] % 3;
	in->flags = in->mode == 2 ? hdr[6] & 7 : 0; /* racy-events, wide, walk: pct mode only */
	in->seed = get_bytes_le(hdr + 8, 8);
	in->schedule.count = 0;
	kinds = mode_kinds(in->mode, &nkinds);
	for (uint32_t i = 0; i < count && i < 256; i++) {
		const uint8_t *r = d + 16 + 8 * i;
		uint8_t kind = r[4];
		bool allowed = false;
		unsigned int arg = (unsigned int)get_bytes_le(r + 6, 2);

		for (size_t k = 0; k < nkinds; k++) /* a kind the mode allows stays */
			allowed = allowed || kinds[k] == kind;
		if (!allowed) /* any other: the kind byte indexes the mode's kinds */
			kind = kinds[kind % nkinds];

		if (kind == INJECT_RESCHED || kind == INJECT_PREEMPT)
			arg = 0;
		else if (kind == INJECT_PREEMPT_INSNS)
			arg = 1 + arg % 4096;
		else if (kind == INJECT_PRIORITY || kind == INJECT_DEMOTE)
			arg = 1 + arg % 99;
		if (kind == INJECT_DEMOTE && (in->flags & 4)) /* a walk's demotes are dropped */
			continue;
		in->schedule.at[in->schedule.count++] = (struct injection){
			.step = (uint32_t)get_bytes_le(r, 4), .arg = (uint16_t)arg, .kind = kind};
	}
}

static void test_decode_examples(void **state)
{
	static uint8_t buf[16 + 8 * 300];
	static struct exec_input in, want;
	size_t len;

	(void)state;
	/* nothing at all: steps mode, seed 0, no injections */
	memset(&in, 0xa5, sizeof(in));
	assert_int_equal(decode(buf, 0, &in), 1);
	assert_int_equal(in.mode, INPUT_MODE_STEPS);
	assert_true(in.seed == 0);
	assert_int_equal(in.schedule.count, 0);
	/* and no pointer at all, with length 0: the same */
	memset(&in, 0xa5, sizeof(in));
	assert_int_equal(input_decode(NULL, 0, &in), 1);
	assert_int_equal(in.mode, INPUT_MODE_STEPS);
	assert_true(in.seed == 0);
	assert_int_equal(in.schedule.count, 0);

	/* a bad magic, mode byte 2 (pct), one record with kind byte 0, a partial tail */
	memcpy(buf,
	       "XXXX\x01\x02\x77\x77\x11\x12\x13\x14\x15\x16\x17\x18"
	       "\x04\x03\x02\x01\x00\x55\x34\x12"
	       "\x01\x02\x03",
	       27);
	assert_int_equal(decode(buf, 27, &in), 1);
	assert_int_equal(in.mode, INPUT_MODE_PCT);
	assert_true(in.seed == 0x1817161514131211ULL);
	assert_int_equal(in.schedule.count, 1);
	assert_int_equal(in.schedule.at[0].step, 0x01020304);
	assert_int_equal(in.schedule.at[0].kind, INJECT_RESCHED); /* pct's first kind */
	assert_int_equal(in.schedule.at[0].arg, 0);		  /* resched: no argument */

	/* a walk (flag bit 2) made valid: its demote records are dropped, the rest stay */
	header(buf, 5);
	buf[5] = INPUT_MODE_PCT;
	buf[6] = 4;
	buf[7] = 0x10;				   /* a reserved bit: the input is made valid */
	record(buf, 0, 1, INJECT_PRIORITY, 0, 39); /* 1 + 39 % 99 */
	record(buf, 1, 9, INJECT_DEMOTE, 0, 3);
	len = record(buf, 2, 30, INJECT_RESCHED, 0, 0);
	assert_int_equal(decode(buf, len, &in), 1);
	want = (struct exec_input){.seed = 5, .mode = INPUT_MODE_PCT, .flags = INPUT_FLAG_WALK};
	want.schedule.count = 2;
	want.schedule.at[0] = (struct injection){.step = 1, .kind = INJECT_PRIORITY, .arg = 40};
	want.schedule.at[1] = (struct injection){.step = 30, .kind = INJECT_RESCHED, .arg = 0};
	assert_same_input(&in, &want, "a walk's demote dropped");

	/* inside the header: missing bytes are 0; the mode modulo 3 */
	assert_int_equal(decode((const uint8_t *)"RWSI\x01\x02", 6, &in), 1);
	assert_int_equal(in.mode, INPUT_MODE_PCT);
	assert_true(in.seed == 0);
	assert_int_equal(in.schedule.count, 0);
	assert_int_equal(decode((const uint8_t *)"RWSI\x01\x04\x00\x00\xab\xcd", 10, &in), 1);
	assert_int_equal(in.mode, INPUT_MODE_COUNTER);
	assert_true(in.seed == 0xcdab);
	assert_int_equal(decode((const uint8_t *)"RWSI", 4, &in), 1);
	assert_int_equal(in.mode, INPUT_MODE_STEPS);
	header(buf, 0x42);
	for (unsigned int mode = 3; mode < 256; mode++) { /* not a mode: 3 -> 0, 4 -> 1, ... */
		buf[5] = (uint8_t)mode;
		assert_int_equal(decode(buf, 16, &in), 1);
		assert_int_equal(in.mode, mode % 3);
		assert_true(in.seed == 0x42);
		assert_int_equal(in.schedule.count, 0);
	}

	/*
	 * In an input made valid, a kind byte the mode allows stays what it is;
	 * any other indexes the mode's kinds in kind order (steps: resched,
	 * stall, timer-late, preempt-insns), modulo their number. Arguments are
	 * made to fit the kind decoded. The header's reserved bytes make this
	 * steps input invalid.
	 */
	header(buf, 7);
	buf[6] = 1;
	record(buf, 0, 10, INJECT_RESCHED, 0, 0);	   /* kept: resched 0 */
	record(buf, 1, 11, INJECT_STALL, 0, 7);		   /* kept: stall 7 */
	record(buf, 2, 12, INJECT_TIMER_LATE, 0, 65535);   /* kept: timer-late 65535 */
	record(buf, 3, 13, INJECT_PREEMPT, 0, 9);	   /* 4 % 4 = 0: resched, arg 0 */
	record(buf, 4, 14, INJECT_PREEMPT_INSNS, 9, 5000); /* kept: preempt-insns 905 */
	record(buf, 5, 15, INJECT_DEMOTE, 0, 4096);	   /* 7 % 4 = 3: preempt-insns 1 */
	record(buf, 6, 16, 255, 0, 4095);		   /* 255 % 4 = 3: preempt-insns 4096 */
	record(buf, 7, 17, INJECT_PRIORITY, 0, 300);	   /* 6 % 4 = 2: timer-late 300 */
	record(buf, 8, 18, 0, 0, 5);			   /* 0 % 4 = 0: resched, arg 0 */
	len = record(buf, 9, 19, INJECT_KIND_END, 0, 6);   /* 8 % 4 = 0: resched, arg 0 */
	assert_int_equal(decode(buf, len, &in), 1);
	want = (struct exec_input){.seed = 7, .mode = INPUT_MODE_STEPS};
	want.schedule.count = 10;
	want.schedule.at[0] = (struct injection){.step = 10, .kind = INJECT_RESCHED, .arg = 0};
	want.schedule.at[1] = (struct injection){.step = 11, .kind = INJECT_STALL, .arg = 7};
	want.schedule.at[2] =
		(struct injection){.step = 12, .kind = INJECT_TIMER_LATE, .arg = 65535};
	want.schedule.at[3] = (struct injection){.step = 13, .kind = INJECT_RESCHED, .arg = 0};
	want.schedule.at[4] =
		(struct injection){.step = 14, .kind = INJECT_PREEMPT_INSNS, .arg = 905};
	want.schedule.at[5] =
		(struct injection){.step = 15, .kind = INJECT_PREEMPT_INSNS, .arg = 1};
	want.schedule.at[6] =
		(struct injection){.step = 16, .kind = INJECT_PREEMPT_INSNS, .arg = 4096};
	want.schedule.at[7] = (struct injection){.step = 17, .kind = INJECT_TIMER_LATE, .arg = 300};
	want.schedule.at[8] = (struct injection){.step = 18, .kind = INJECT_RESCHED, .arg = 0};
	want.schedule.at[9] = (struct injection){.step = 19, .kind = INJECT_RESCHED, .arg = 0};
	assert_same_input(&in, &want, "steps, reserved header bytes set");

	/* counter mode allows resched, stall, timer-late, preempt, preempt-insns */
	buf[5] = INPUT_MODE_COUNTER;
	record(buf, 0, 10, INJECT_PREEMPT, 0, 0x1234);	  /* kept: preempt, arg 0 */
	record(buf, 1, 11, INJECT_PREEMPT_INSNS, 0, 0);	  /* kept: preempt-insns 1 */
	record(buf, 2, 12, 255, 0, 77);			  /* 255 % 5 = 0: resched, arg 0 */
	record(buf, 3, 13, 9, 0, 77);			  /* 9 % 5 = 4: preempt-insns 78 */
	record(buf, 4, 14, INJECT_TIMER_LATE, 0, 0x1234); /* kept: timer-late 0x1234 */
	record(buf, 5, 15, INJECT_PRIORITY, 0, 500);	  /* 6 % 5 = 1: stall 500 */
	record(buf, 6, 16, INJECT_DEMOTE, 0, 600);	  /* 7 % 5 = 2: timer-late 600 */
	len = record(buf, 7, 17, 0, 0, 1);		  /* 0 % 5 = 0: resched, arg 0 */
	assert_int_equal(decode(buf, len, &in), 1);
	want = (struct exec_input){.seed = 7, .mode = INPUT_MODE_COUNTER};
	want.schedule.count = 8;
	want.schedule.at[0] = (struct injection){.step = 10, .kind = INJECT_PREEMPT, .arg = 0};
	want.schedule.at[1] =
		(struct injection){.step = 11, .kind = INJECT_PREEMPT_INSNS, .arg = 1};
	want.schedule.at[2] = (struct injection){.step = 12, .kind = INJECT_RESCHED, .arg = 0};
	want.schedule.at[3] =
		(struct injection){.step = 13, .kind = INJECT_PREEMPT_INSNS, .arg = 78};
	want.schedule.at[4] =
		(struct injection){.step = 14, .kind = INJECT_TIMER_LATE, .arg = 0x1234};
	want.schedule.at[5] = (struct injection){.step = 15, .kind = INJECT_STALL, .arg = 500};
	want.schedule.at[6] = (struct injection){.step = 16, .kind = INJECT_TIMER_LATE, .arg = 600};
	want.schedule.at[7] = (struct injection){.step = 17, .kind = INJECT_RESCHED, .arg = 0};
	assert_same_input(&in, &want, "counter, reserved header bytes set");

	/*
	 * pct mode allows resched, stall, timer-late, preempt-insns, priority,
	 * demote; priorities 1 + arg % 99
	 */
	buf[5] = INPUT_MODE_PCT;
	record(buf, 0, 0, INJECT_PREEMPT, 0, 0);	   /* 4 % 6 = 4: priority 1 */
	record(buf, 1, 1, INJECT_PREEMPT, 0, 98);	   /* 4 % 6 = 4: priority 99 */
	record(buf, 2, 2, INJECT_DEMOTE, 0, 99);	   /* kept: demote 1 */
	record(buf, 3, 3, INJECT_DEMOTE, 0, 65535);	   /* kept: demote 1 + 65535 % 99 = 97 */
	record(buf, 4, 4, 10, 0, 50);			   /* 10 % 6 = 4: priority 51 */
	record(buf, 5, 5, 255, 0, 0);			   /* 255 % 6 = 3: preempt-insns 1 */
	record(buf, 6, 0xffffffff, 11, 0, 0);		   /* 11 % 6 = 5: demote 1 */
	record(buf, 7, 7, INJECT_PREEMPT_INSNS, 0, 99);	   /* kept: preempt-insns 100 */
	record(buf, 8, 8, INJECT_PRIORITY, 0, 0);	   /* kept: priority 1 */
	record(buf, 9, 9, INJECT_RESCHED, 0, 7);	   /* kept: resched, arg 0 */
	len = record(buf, 10, 10, INJECT_KIND_END, 0, 42); /* 8 % 6 = 2: timer-late 42 */
	assert_int_equal(decode(buf, len, &in), 1);
	/* the header's racy-events bit is kept in pct mode (and dropped in the others above) */
	want = (struct exec_input){.seed = 7, .mode = INPUT_MODE_PCT, .flags = INPUT_FLAG_RACY};
	want.schedule.count = 11;
	want.schedule.at[0] = (struct injection){.step = 0, .kind = INJECT_PRIORITY, .arg = 1};
	want.schedule.at[1] = (struct injection){.step = 1, .kind = INJECT_PRIORITY, .arg = 99};
	want.schedule.at[2] = (struct injection){.step = 2, .kind = INJECT_DEMOTE, .arg = 1};
	want.schedule.at[3] = (struct injection){.step = 3, .kind = INJECT_DEMOTE, .arg = 97};
	want.schedule.at[4] = (struct injection){.step = 4, .kind = INJECT_PRIORITY, .arg = 51};
	want.schedule.at[5] = (struct injection){.step = 5, .kind = INJECT_PREEMPT_INSNS, .arg = 1};
	want.schedule.at[6] =
		(struct injection){.step = UINT32_MAX, .kind = INJECT_DEMOTE, .arg = 1};
	want.schedule.at[7] =
		(struct injection){.step = 7, .kind = INJECT_PREEMPT_INSNS, .arg = 100};
	want.schedule.at[8] = (struct injection){.step = 8, .kind = INJECT_PRIORITY, .arg = 1};
	want.schedule.at[9] = (struct injection){.step = 9, .kind = INJECT_RESCHED, .arg = 0};
	want.schedule.at[10] = (struct injection){.step = 10, .kind = INJECT_TIMER_LATE, .arg = 42};
	assert_same_input(&in, &want, "pct, reserved header bytes set");

	/* too many records: the first 256 are kept (and made valid) */
	header(buf, 3);
	for (size_t i = 0; i < 300; i++)
		len = record(buf, i, (uint32_t)i, INJECT_STALL, 0, (uint16_t)i);
	assert_int_equal(input_parse(buf, len, &in, NULL, 0), -EINVAL);
	assert_int_equal(decode(buf, len, &in), 1);
	assert_int_equal(in.mode, INPUT_MODE_STEPS);
	assert_int_equal(in.schedule.count, SCHEDULE_MAX);
	for (uint32_t i = 0; i < SCHEDULE_MAX; i++) {
		assert_int_equal(in.schedule.at[i].step, i);
		assert_int_equal(in.schedule.at[i].kind, INJECT_STALL); /* kept */
		assert_int_equal(in.schedule.at[i].arg, i);
	}

	/* a valid input is itself, returning 0: with a partial tail too */
	assert_int_equal(input_parse(pct_input, sizeof(pct_input), &want, NULL, 0), 0);
	memset(&in, 0x5a, sizeof(in));
	assert_int_equal(decode(pct_input, sizeof(pct_input), &in), 0);
	assert_same_input(&in, &want, "valid pct input");
	memcpy(buf, pct_input, sizeof(pct_input));
	memset(buf + sizeof(pct_input), 0xff, 7);
	assert_int_equal(decode(buf, sizeof(pct_input) + 7, &in), 0);
	assert_same_input(&in, &want, "valid pct input, partial tail");
	assert_int_equal(input_parse(all_kinds, sizeof(all_kinds), &want, NULL, 0), 0);
	assert_int_equal(decode(all_kinds, sizeof(all_kinds), &in), 0);
	assert_same_input(&in, &want, "valid steps input");
	header(buf, 5);
	assert_int_equal(decode(buf, 16, &in), 0);
	assert_int_equal(in.mode, INPUT_MODE_STEPS);
	assert_true(in.seed == 5);
	assert_int_equal(in.schedule.count, 0);
}

/* Any bytes decode to a valid input: the oracle's, which encodes and parses back to itself. */
static void test_decode_random(void **state)
{
	static uint8_t buf[2100], out[INPUT_MAX_SIZE];
	static struct exec_input in, want, parsed, again;
	uint64_t rng = 0xdec0de0123456789ULL;
	unsigned int valid = 0, made_valid = 0, per_mode[INPUT_MODES] = {0};

	(void)state;
	for (int iter = 0; iter < 50000; iter++) {
		size_t len = random_input(&rng, buf, sizeof(buf)), n;
		int rc;

		if (iter % 5 == 0) { /* and pure noise of every length up to a few records */
			len = rng_below(&rng, 64);
			for (size_t i = 0; i < len; i++)
				buf[i] = (uint8_t)rng_next(&rng);
		}
		rc = decode(buf, len, &in);
		if (input_parse(buf, len, &parsed, NULL, 0) == 0) {
			valid++;
			assert_int_equal(rc, 0);
			assert_same_input(&in, &parsed, "valid input");
		} else {
			made_valid++;
			assert_int_equal(rc, 1);
			oracle_decode(buf, len, &want);
			assert_same_input(&in, &want, "decoded input");
		}
		per_mode[in.mode]++;
		/* valid: encodes, parses back to itself, decodes to itself */
		n = input_encode(&in, out);
		assert_int_equal(n, INPUT_HEADER_SIZE + INPUT_RECORD_SIZE * in.schedule.count);
		assert_int_equal(input_parse(out, n, &again, NULL, 0), 0);
		assert_same_input(&again, &in, "decoded, encoded, parsed");
		assert_int_equal(decode(out, n, &again), 0);
		assert_same_input(&again, &in, "decoded, encoded, decoded");
		if (iter % 16 == 0)
			check_json_round_trip(&in, out, n);
	}
	print_message("decoded: %u valid as they were, %u made valid (%u steps, %u counter, %u "
		      "pct)\n",
		      valid, made_valid, per_mode[INPUT_MODE_STEPS], per_mode[INPUT_MODE_COUNTER],
		      per_mode[INPUT_MODE_PCT]);
	assert_true(valid > 5000);
	assert_true(made_valid > 20000);
	for (uint8_t mode = 0; mode < INPUT_MODES; mode++)
		assert_true(per_mode[mode] > 5000);
}

/* Counter mode: `preempt` at a block, only there, with its JSON form. */
static void test_counter_mode(void **state)
{
	static const char json[] = "{\"format\":\"rewind-input\",\"version\":1,\"mode\":"
				   "\"counter\",\"seed\":\"0x0000000000000007\",\"injections\":"
				   "[{\"block\":1234,\"kind\":\"preempt\"},{\"step\":3,\"kind\":"
				   "\"resched\"}]}";
	struct exec_input in;
	uint8_t buf[INPUT_MAX_SIZE];
	char why[WHY_LEN], *text;
	cJSON *parsed = cJSON_Parse(json);
	size_t len;

	(void)state;
	assert_non_null(parsed);
	assert_int_equal(input_from_json(parsed, &in, why, sizeof(why)), 0);
	cJSON_Delete(parsed);
	assert_int_equal(in.mode, INPUT_MODE_COUNTER);
	assert_int_equal(in.schedule.at[0].kind, INJECT_PREEMPT);
	assert_int_equal(in.schedule.at[0].step, 1234);
	len = input_encode(&in, buf);
	assert_int_equal(input_parse(buf, len, &in, why, sizeof(why)), 0);
	parsed = input_to_json(&in);
	text = cJSON_PrintUnformatted(parsed);
	cJSON_Delete(parsed);
	assert_string_equal(text, json);
	cJSON_free(text);
	/* preempt needs counter mode, and takes no argument */
	buf[5] = INPUT_MODE_STEPS;
	expect_reject(buf, len, "record 0 (offset 20): preempt needs counter mode");
	buf[5] = INPUT_MODE_COUNTER;
	buf[22] = 1;
	expect_reject(buf, len, "record 0 (offset 22): preempt with arg 1, not 0");
}

/* preempt-insns (single-step offsets): 1..INJECT_INSNS_MAX instructions, in either mode. */
static void test_preempt_insns(void **state)
{
	static const char json[] = "{\"format\":\"rewind-input\",\"version\":1,\"mode\":"
				   "\"steps\",\"seed\":\"0x0000000000000000\",\"injections\":"
				   "[{\"step\":9,\"kind\":\"preempt-insns\",\"insns\":25}]}";
	struct exec_input in = {.mode = INPUT_MODE_STEPS}, back;
	uint8_t buf[INPUT_MAX_SIZE];
	char why[WHY_LEN];
	cJSON *parsed = cJSON_Parse(json);
	size_t len;

	(void)state;
	assert_int_equal(input_from_json(parsed, &in, why, sizeof(why)), 0);
	cJSON_Delete(parsed);
	assert_int_equal(in.schedule.count, 1);
	assert_int_equal(in.schedule.at[0].kind, INJECT_PREEMPT_INSNS);
	assert_int_equal(in.schedule.at[0].step, 9);
	assert_int_equal(in.schedule.at[0].arg, 25);
	len = input_encode(&in, buf);
	assert_int_equal(input_parse(buf, len, &back, why, sizeof(why)), 0);
	assert_int_equal(back.schedule.at[0].arg, 25);
	buf[INPUT_HEADER_SIZE + 6] = 0; /* arg 0: nothing to step */
	expect_reject(buf, len, "record 0 (offset 22): preempt-insns with arg 0, not 1..4096");
	buf[INPUT_HEADER_SIZE + 6] = 0x01; /* arg 4097: past the cap */
	buf[INPUT_HEADER_SIZE + 7] = 0x10;
	expect_reject(buf, len, "record 0 (offset 22): preempt-insns with arg 4097, not 1..4096");
	buf[5] = INPUT_MODE_COUNTER; /* counter mode steps too */
	buf[INPUT_HEADER_SIZE + 6] = 0x00;
	assert_int_equal(input_parse(buf, len, &back, why, sizeof(why)), 0);
	assert_int_equal(back.schedule.at[0].arg, 4096);
	expect_json_reject("\"1\"", "{\"step\":1,\"kind\":\"preempt-insns\",\"insns\":0}", "",
			   "injections[0]: \"insns\" must be an integer in 1..4096");
	expect_json_reject("\"1\"", "{\"step\":1,\"kind\":\"preempt-insns\",\"insns\":4097}", "",
			   "injections[0]: \"insns\" must be an integer in 1..4096");
	expect_json_reject("\"1\"", "{\"step\":1,\"kind\":\"preempt-insns\"}", "",
			   "injections[0]: missing \"insns\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_mode),
		cmocka_unit_test(test_preempt_insns),
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_sort_stable),
		cmocka_unit_test(test_sort_full),
		cmocka_unit_test(test_parse_all_kinds),
		cmocka_unit_test(test_parse_sizes),
		cmocka_unit_test(test_parse_rejections),
		cmocka_unit_test(test_reason_buffer),
		cmocka_unit_test(test_encode_round_trip),
		cmocka_unit_test(test_json_from_binary),
		cmocka_unit_test(test_json_to_binary),
		cmocka_unit_test(test_json_rejections),
		cmocka_unit_test(test_random_inputs),
		cmocka_unit_test(test_pct_mode_binary),
		cmocka_unit_test(test_pct_mode_json),
		cmocka_unit_test(test_decode_examples),
		cmocka_unit_test(test_decode_random),
		cmocka_unit_test(test_json_numbers_checked),
		cmocka_unit_test(test_json_nan_and_infinity),
	};

	return cmocka_run_group_tests_name("input", tests, NULL, NULL);
}

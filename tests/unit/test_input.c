/*
 * Unit tests of the execution-input format (harness/input.c) and the
 * schedule helpers (vmm/schedule.c): every rejection rule, both round trips,
 * and a deterministic random loop checked against an independent oracle.
 */
#include "harness/input.h"

#include <errno.h>
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
	assert_null(injection_kind_name(0));
	assert_null(injection_kind_name(INJECT_KIND_END));
	assert_null(injection_kind_name(255));
	assert_null(injection_kind_name(0x101)); /* not truncated to a byte */
	assert_int_equal(injection_kind_from_name("resched"), INJECT_RESCHED);
	assert_int_equal(injection_kind_from_name("stall"), INJECT_STALL);
	assert_int_equal(injection_kind_from_name("timer-late"), INJECT_TIMER_LATE);
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

	/* mode */
	header(buf, 1);
	buf[5] = 2;
	expect_reject(buf, len, "offset 5: unknown mode 2, expected 0 (steps) or 1 (counter)");

	/* reserved header bytes, each of the two */
	header(buf, 1);
	buf[6] = 1;
	expect_reject(buf, len, "offset 6: reserved header bytes are 0x0001, not 0");
	buf[6] = 0;
	buf[7] = 0x80;
	expect_reject(buf, len, "offset 6: reserved header bytes are 0x8000, not 0");

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
	expect_reject(buf, len, "record 2 (offset 36): unknown kind 6");
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
	in.mode = 2;
	assert_null(input_to_json(&in));
	in.mode = INPUT_MODE_STEPS;
	in.schedule.count = 1;
	in.schedule.at[0] = (struct injection){.step = 1, .arg = 0, .kind = 0};
	assert_null(input_to_json(&in));
	in.schedule.at[0] = (struct injection){.step = 1, .arg = 5, .kind = INJECT_RESCHED};
	assert_null(input_to_json(&in));
	in.schedule.count = SCHEDULE_MAX + 1;
	assert_null(input_to_json(&in));
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

/* A JSON input with these injections and this seed (a JSON value, quoted or not). */
static void expect_json_reject(const char *seed, const char *injections, const char *extra,
			       const char *want)
{
	static struct exec_input in, before;
	static char text[16384];
	char why[WHY_LEN] = "";
	int rc;

	snprintf(text, sizeof(text),
		 "{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"steps\",\"seed\":%s,"
		 "\"injections\":[%s]%s}",
		 seed, injections, extra);
	memset(&in, 0x5a, sizeof(in));
	before = in;
	rc = from_text(text, &in, why, sizeof(why));
	if (rc != -EINVAL || !strstr(why, want))
		fail_msg("%s: rc %d, reason \"%s\", wanted -EINVAL and \"%s\"", text, rc, why,
			 want);
	assert_memory_equal(&in, &before, sizeof(in));
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
		"\"preempt\" or \"preempt-insns\"");
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
			   "\"mode\" must be \"steps\"");
	expect_text_reject("{\"format\":\"rewind-input\",\"version\":1,\"mode\":0,"
			   "\"seed\":\"1\",\"injections\":[]}",
			   "\"mode\" must be \"steps\"");

	/* at most SCHEDULE_MAX injections */
	for (int i = 0; i < SCHEDULE_MAX + 1; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n, "%s%s", i ? "," : "", ok);
	expect_json_reject("\"1\"", many, "", "\"injections\": 257 entries, at most 256");
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

/* The rules of docs/input-format.md, written out a second time. */
static bool oracle_valid(const uint8_t *d, size_t len)
{
	if (len < 16 || (len - 16) / 8 > 256)
		return false;
	if (memcmp(d, "RWSI", 4) != 0 || d[4] != 1 || d[5] > 1 || d[6] != 0 || d[7] != 0)
		return false;
	for (size_t o = 16; o + 8 <= len; o += 8) {
		unsigned int arg = d[o + 6] | (unsigned int)d[o + 7] << 8;

		if (d[o + 4] < 1 || d[o + 4] > 5 || d[o + 5] != 0)
			return false;
		if ((d[o + 4] == 1 || d[o + 4] == 4) && arg != 0)
			return false;
		if (d[o + 4] == 5 && (arg < 1 || arg > 4096)) /* preempt-insns: 1..4096 */
			return false;
		if (d[o + 4] == 4 && d[5] != 1) /* preempt: counter mode only */
			return false;
	}
	return true;
}

/* An argument the kind accepts; now and then one out of range for preempt-insns. */
static uint16_t random_arg(uint64_t *rng, uint8_t kind)
{
	if (kind == INJECT_RESCHED || kind == INJECT_PREEMPT)
		return 0;
	if (kind == INJECT_PREEMPT_INSNS && rng_below(rng, 1024))
		return (uint16_t)(rng_below(rng, INJECT_INSNS_MAX) + 1);
	return (uint16_t)rng_next(rng);
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
	default: /* valid, then 0..3 bytes changed (a third of the time nothing) */
		n = rng_below(rng, rng_below(rng, 8) ? SCHEDULE_MAX + 1 : SCHEDULE_MAX + 4);
		len = header(buf, rng_next(rng));
		for (size_t i = 0; i < n; i++) {
			static const uint8_t steps_kinds[] = {INJECT_RESCHED, INJECT_STALL,
							      INJECT_TIMER_LATE,
							      INJECT_PREEMPT_INSNS};
			uint8_t kind = steps_kinds[rng_below(rng, sizeof(steps_kinds))];

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
	unsigned int accepted = 0, rejected = 0, json_checked = 0;

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
	print_message("random inputs: %u accepted (%u through JSON), %u rejected\n", accepted,
		      json_checked, rejected);
	assert_int_equal(accepted + rejected, 100000);
	assert_true(accepted > 20000); /* both sides well exercised */
	assert_true(rejected > 40000);
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
		cmocka_unit_test(test_counter_mode),	 cmocka_unit_test(test_preempt_insns),
		cmocka_unit_test(test_kind_names),	 cmocka_unit_test(test_sort_stable),
		cmocka_unit_test(test_sort_full),	 cmocka_unit_test(test_parse_all_kinds),
		cmocka_unit_test(test_parse_sizes),	 cmocka_unit_test(test_parse_rejections),
		cmocka_unit_test(test_reason_buffer),	 cmocka_unit_test(test_encode_round_trip),
		cmocka_unit_test(test_json_from_binary), cmocka_unit_test(test_json_to_binary),
		cmocka_unit_test(test_json_rejections),	 cmocka_unit_test(test_random_inputs),
	};

	return cmocka_run_group_tests_name("input", tests, NULL, NULL);
}

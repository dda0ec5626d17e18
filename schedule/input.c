/* SPDX-License-Identifier: MIT */
/* The execution input: its binary form (schedule/input.h, docs/input-format.md). */
#include "schedule/input.h"

#include "schedule/input_reason.h"

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Byte offsets inside the header and inside one record. */
#define HDR_MAGIC    0
#define HDR_VERSION  4
#define HDR_MODE     5
#define HDR_FLAGS    6 /* INPUT_FLAG_*; the other bits are reserved, 0 */
#define HDR_SEED     8
#define REC_STEP     0
#define REC_KIND     4
#define REC_RESERVED 5
#define REC_ARG	     6

static uint16_t get_le16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

static uint32_t get_le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static void put_le16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, sizeof(v));
}

static void put_le32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static void put_le64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

static int check_header(const uint8_t *data, size_t len, char *why, size_t why_len)
{
	uint16_t flags;

	if (len < INPUT_HEADER_SIZE)
		return input_reject(why, why_len,
				    "offset %zu: input ends inside the %d-byte header", len,
				    INPUT_HEADER_SIZE);
	if (memcmp(data + HDR_MAGIC, INPUT_MAGIC, 4) != 0)
		return input_reject(
			why, why_len,
			"offset 0: bad magic %02x %02x %02x %02x, expected \"" INPUT_MAGIC "\"",
			data[0], data[1], data[2], data[3]);
	if (data[HDR_VERSION] != INPUT_VERSION)
		return input_reject(why, why_len, "offset %d: version %u, expected %d", HDR_VERSION,
				    data[HDR_VERSION], INPUT_VERSION);
	if (data[HDR_MODE] >= INPUT_MODES)
		return input_reject(
			why, why_len,
			"offset %d: unknown mode %u, expected %d (steps), %d (counter) or %d "
			"(pct)",
			HDR_MODE, data[HDR_MODE], INPUT_MODE_STEPS, INPUT_MODE_COUNTER,
			INPUT_MODE_PCT);
	flags = get_le16(data + HDR_FLAGS);
	if (flags & ~INPUT_FLAGS_KNOWN)
		return input_reject(why, why_len,
				    "offset %d: reserved header bits are set (flags 0x%04x)",
				    HDR_FLAGS, flags);
	if ((flags & INPUT_FLAG_RACY) && data[HDR_MODE] != INPUT_MODE_PCT)
		return input_reject(why, why_len, "offset %d: racy-events needs pct mode",
				    HDR_FLAGS);
	if ((flags & INPUT_FLAG_WIDE) && data[HDR_MODE] != INPUT_MODE_PCT)
		return input_reject(why, why_len, "offset %d: wide priorities need pct mode",
				    HDR_FLAGS);
	if ((flags & INPUT_FLAG_WALK) && data[HDR_MODE] != INPUT_MODE_PCT)
		return input_reject(why, why_len, "offset %d: walk needs pct mode", HDR_FLAGS);
	/* A trailing partial record is ignored: afl-tmin shortens inputs from
	 * the end a few bytes at a time, and must be able to drop a record. */
	if ((len - INPUT_HEADER_SIZE) / INPUT_RECORD_SIZE > SCHEDULE_MAX)
		return input_reject(why, why_len, "offset %d: %zu records, at most %d allowed",
				    INPUT_MAX_SIZE, (len - INPUT_HEADER_SIZE) / INPUT_RECORD_SIZE,
				    SCHEDULE_MAX);
	return 0;
}

/* Checks record i, whose bytes start at rec, in an input of the given mode. */
static int check_record(const uint8_t *rec, size_t i, uint8_t mode, uint16_t flags, char *why,
			size_t why_len)
{
	size_t off = INPUT_HEADER_SIZE + i * INPUT_RECORD_SIZE;
	uint8_t kind = rec[REC_KIND];
	uint16_t arg = get_le16(rec + REC_ARG);

	if (!injection_kind_name(kind))
		return input_reject(why, why_len, "record %zu (offset %zu): unknown kind %u", i,
				    off + REC_KIND, kind);
	if (rec[REC_RESERVED] != 0)
		return input_reject(why, why_len,
				    "record %zu (offset %zu): reserved byte is %u, not 0", i,
				    off + REC_RESERVED, rec[REC_RESERVED]);
	if ((kind == INJECT_RESCHED || kind == INJECT_PREEMPT) && arg != 0)
		return input_reject(why, why_len, "record %zu (offset %zu): %s with arg %u, not 0",
				    i, off + REC_ARG, injection_kind_name(kind), arg);
	if (kind == INJECT_PREEMPT_INSNS && (arg == 0 || arg > INJECT_INSNS_MAX))
		return input_reject(why, why_len,
				    "record %zu (offset %zu): preempt-insns with arg %u, not 1..%u",
				    i, off + REC_ARG, arg, INJECT_INSNS_MAX);
	if (kind == INJECT_PREEMPT && mode != INPUT_MODE_COUNTER)
		return input_reject(why, why_len,
				    "record %zu (offset %zu): preempt needs counter mode", i,
				    off + REC_KIND);
	if ((kind == INJECT_PRIORITY || kind == INJECT_DEMOTE) && mode != INPUT_MODE_PCT)
		return input_reject(why, why_len, "record %zu (offset %zu): %s needs pct mode", i,
				    off + REC_KIND, injection_kind_name(kind));
	if (kind == INJECT_DEMOTE && (flags & INPUT_FLAG_WALK))
		return input_reject(why, why_len,
				    "record %zu (offset %zu): demote in a walk (the walk draws "
				    "its own switches)",
				    i, off + REC_KIND);
	if ((kind == INJECT_PRIORITY || kind == INJECT_DEMOTE) &&
	    (arg == 0 || arg > INJECT_PRIO_MAX))
		return input_reject(why, why_len,
				    "record %zu (offset %zu): %s with arg %u, not 1..%u", i,
				    off + REC_ARG, injection_kind_name(kind), arg, INJECT_PRIO_MAX);
	return 0;
}

/* Validates everything first, so *in is only written when the input is accepted. */
int input_parse(const uint8_t *data, size_t len, struct exec_input *in, char *why, size_t why_len)
{
	size_t count;
	int rc = check_header(data, len, why, why_len);

	if (rc)
		return rc;
	count = (len - INPUT_HEADER_SIZE) / INPUT_RECORD_SIZE;
	for (size_t i = 0; i < count; i++) {
		rc = check_record(data + INPUT_HEADER_SIZE + i * INPUT_RECORD_SIZE, i,
				  data[HDR_MODE], get_le16(data + HDR_FLAGS), why, why_len);
		if (rc)
			return rc;
	}

	in->seed = get_le64(data + HDR_SEED);
	in->mode = data[HDR_MODE];
	in->flags = (uint8_t)get_le16(data + HDR_FLAGS);
	in->schedule.count = (uint32_t)count;
	for (size_t i = 0; i < count; i++) {
		const uint8_t *rec = data + INPUT_HEADER_SIZE + i * INPUT_RECORD_SIZE;

		in->schedule.at[i] = (struct injection){
			.step = get_le32(rec + REC_STEP),
			.arg = get_le16(rec + REC_ARG),
			.kind = rec[REC_KIND],
		};
	}
	return 0;
}

/* The kinds a mode allows, in kind order. */
unsigned int input_kinds_of_mode(uint8_t mode, uint8_t kinds[INJECT_KIND_END])
{
	unsigned int n = 0;

	for (unsigned int k = 1; k < INJECT_KIND_END; k++) {
		if (k == INJECT_PREEMPT && mode != INPUT_MODE_COUNTER)
			continue;
		if ((k == INJECT_PRIORITY || k == INJECT_DEMOTE) && mode != INPUT_MODE_PCT)
			continue;
		kinds[n++] = (uint8_t)k;
	}
	return n;
}

/* arg brought into the range of kind. */
uint16_t input_valid_arg(uint8_t kind, uint16_t arg)
{
	switch (kind) {
	case INJECT_RESCHED:
	case INJECT_PREEMPT:
		return 0;
	case INJECT_PREEMPT_INSNS:
		return (uint16_t)(1 + arg % INJECT_INSNS_MAX);
	case INJECT_PRIORITY:
	case INJECT_DEMOTE:
		return (uint16_t)(1 + arg % INJECT_PRIO_MAX);
	default:
		return arg;
	}
}

int input_decode(const uint8_t *data, size_t len, struct exec_input *in)
{
	uint8_t header[INPUT_HEADER_SIZE] = {0}, kinds[INJECT_KIND_END];
	size_t count = len > INPUT_HEADER_SIZE ? (len - INPUT_HEADER_SIZE) / INPUT_RECORD_SIZE : 0;
	unsigned int nkinds;

	if (input_parse(data, len, in, NULL, 0) == 0)
		return 0;
	if (len)
		memcpy(header, data, len < sizeof(header) ? len : sizeof(header));
	in->mode = header[HDR_MODE] % INPUT_MODES;
	in->flags = in->mode == INPUT_MODE_PCT ? header[HDR_FLAGS] & INPUT_FLAGS_KNOWN : 0;
	in->seed = get_le64(header + HDR_SEED);
	nkinds = input_kinds_of_mode(in->mode, kinds);
	in->schedule.count = 0;
	for (size_t i = 0; i < count && i < SCHEDULE_MAX; i++) {
		const uint8_t *rec = data + INPUT_HEADER_SIZE + i * INPUT_RECORD_SIZE;
		uint8_t kind = rec[REC_KIND];

		if (!memchr(kinds, kind, nkinds)) /* a kind the mode allows stays what it is */
			kind = kinds[kind % nkinds];
		if (kind == INJECT_DEMOTE && (in->flags & INPUT_FLAG_WALK))
			continue; /* a walk draws its own switches: its demotes are dropped */
		in->schedule.at[in->schedule.count++] = (struct injection){
			.step = get_le32(rec + REC_STEP),
			.arg = input_valid_arg(kind, get_le16(rec + REC_ARG)),
			.kind = kind,
		};
	}
	return 1;
}

size_t input_encode(const struct exec_input *in, uint8_t *buf)
{
	uint32_t count = in->schedule.count;

	if (count > SCHEDULE_MAX) /* never for a parsed input; buf holds no more */
		count = SCHEDULE_MAX;
	memcpy(buf + HDR_MAGIC, INPUT_MAGIC, 4);
	buf[HDR_VERSION] = INPUT_VERSION;
	buf[HDR_MODE] = in->mode;
	put_le16(buf + HDR_FLAGS, in->flags);
	put_le64(buf + HDR_SEED, in->seed);
	for (uint32_t i = 0; i < count; i++) {
		const struct injection *inj = &in->schedule.at[i];
		uint8_t *rec = buf + INPUT_HEADER_SIZE + (size_t)i * INPUT_RECORD_SIZE;

		put_le32(rec + REC_STEP, inj->step);
		rec[REC_KIND] = inj->kind;
		rec[REC_RESERVED] = 0;
		put_le16(rec + REC_ARG, inj->arg);
	}
	return INPUT_HEADER_SIZE + (size_t)count * INPUT_RECORD_SIZE;
}

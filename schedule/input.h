/* SPDX-License-Identifier: MIT */
/*
 * The execution input afl-fuzz mutates: a seed plus an interrupt-injection
 * schedule, in a fixed-layout binary form (docs/input-format.md) and a JSON
 * form for humans, convertible both ways without loss.
 *
 * Binary form, version 1 (all integers little-endian):
 *   0  4  magic "RWSI"
 *   4  1  version, 1
 *   5  1  mode: 0 = injections at exit steps; 1 = counter mode (the job is
 *         built with guest/rewind-cc: a default time slice, and `preempt`
 *         injections at basic blocks)
 *   6  2  reserved, 0
 *   8  8  seed (u64)
 *   16 8n n injection records, 0 <= n <= SCHEDULE_MAX, each:
 *         0 4 step (u32, steps after READY; for `preempt`, a basic block)
 *         4 1 kind (enum injection_kind)
 *         5 1 reserved, 0
 *         6 2 arg (u16)
 * Records are fixed-size and positions absolute, so one mutated byte changes
 * one injection. A trailing partial record (1 to 7 bytes) is ignored, so
 * that afl-tmin, which deletes a few bytes at a time, can drop the last
 * record of an input. Any other byte string is rejected with a reason; parsing
 * never allocates and never reads outside the buffer.
 */
#ifndef REWIND_INPUT_H
#define REWIND_INPUT_H

#include "vmm/schedule.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#define INPUT_MAGIC	   "RWSI"
#define INPUT_VERSION	   1
#define INPUT_HEADER_SIZE  16
#define INPUT_RECORD_SIZE  8
#define INPUT_MAX_SIZE	   (INPUT_HEADER_SIZE + INPUT_RECORD_SIZE * SCHEDULE_MAX)
#define INPUT_MODE_STEPS   0 /* injections at exits only */
#define INPUT_MODE_COUNTER 1 /* counter mode: an instrumented job, `preempt` at events */
#define INPUT_MODE_PCT	   2 /* priority schedules: an instrumented job, `priority`, `demote` */
#define INPUT_MODES	   3
/*
 * Header flags (pct mode only). racy-events: the input's `demote` positions
 * count the job's racy events (docs/input-format.md): an event at a quiet
 * site (one that, in the job's profile runs, only touched data no other
 * thread wrote or synchronised on) counts as 1/64, any other as one.
 */
#define INPUT_FLAG_RACY 1u
/*
 * wide priorities: the priorities drawn from the seed are 50..95, not
 * 16..95, so that `demote` records may use 49..2 and a sample may make up
 * to 48 change points below every thread's first priority, where 16..95
 * leaves room for 14 (docs/input-format.md).
 */
#define INPUT_FLAG_WIDE 2u
/*
 * walk: the sampler is a random walk over the job's threads (URW), drawn in
 * the guest runtime from the seed, not PCT's change points: every thread
 * starts at one priority and at each schedule event the next thread is
 * drawn, weighted by its remaining events (docs/input-format.md "Walks").
 * A walk input has no `demote` records.
 */
#define INPUT_FLAG_WALK	  4u
#define INPUT_FLAGS_KNOWN (INPUT_FLAG_RACY | INPUT_FLAG_WIDE | INPUT_FLAG_WALK)

struct exec_input {
	uint64_t seed;
	uint8_t mode;
	uint8_t flags;		  /* INPUT_FLAG_* */
	struct schedule schedule; /* in file order (schedule_sort before running) */
};

/*
 * A racy-events input's key: the high 32 bits of its seed, where the
 * generator of the profile samples that learn its racy sites starts
 * (harness/executor.c). The racy samples of one search share it.
 */
static inline uint32_t input_racy_key(const struct exec_input *in)
{
	return (uint32_t)(in->seed >> 32);
}

/*
 * Parses len bytes. Returns 0, or -EINVAL with a one-line reason in why
 * (e.g. "record 3 (offset 44): unknown kind 7"), which names the offending
 * byte offset. *in is written only when the input is accepted; why may be
 * NULL. Never allocates, never reads outside data[0..len).
 */
int input_parse(const uint8_t *data, size_t len, struct exec_input *in, char *why, size_t why_len);

/*
 * Any byte string as an input, for afl-fuzz's own mutations (which rarely
 * keep an input valid): an input input_parse accepts means what it says;
 * any other is read field by field with every field made valid (missing
 * bytes are 0, the mode is taken modulo 3, a kind the mode does not allow
 * is taken modulo the kinds it allows, a walk's `demote` records are
 * dropped, arguments are brought into range, reserved bytes and the magic are ignored).
 * Returns 0 when data was valid as it is, 1 when it was made valid.
 */
int input_decode(const uint8_t *data, size_t len, struct exec_input *in);

/*
 * Encodes in into buf (at least INPUT_MAX_SIZE bytes); returns the length.
 * Fields are written as they are (at most SCHEDULE_MAX records); for an
 * input that input_parse or input_from_json accepted, input_parse of the
 * result gives the same input back, and encoding what input_parse accepted
 * gives the same bytes back.
 */
size_t input_encode(const struct exec_input *in, uint8_t *buf);

/* The kinds a mode allows, in kind order; returns how many. */
unsigned int input_kinds_of_mode(uint8_t mode, uint8_t kinds[INJECT_KIND_END]);

/* arg brought into the range of kind. */
uint16_t input_valid_arg(uint8_t kind, uint16_t arg);

/*
 * The JSON form:
 *   {"format": "rewind-input", "version": 1, "mode": "steps",
 *    "seed": "0x0123456789abcdef",
 *    "injections": [{"step": 12, "kind": "stall", "us": 25000},
 *                   {"step": 3, "kind": "resched"},
 *                   {"step": 7, "kind": "timer-late", "us": 40}]}
 * "seed" is a string (a u64 does not fit a JSON number exactly); decimal
 * or 0x-hex are accepted on input. Injections stay in file order. "us" is
 * present exactly for stall and timer-late (an integer, 0..65535).
 * Returns NULL when out of memory or when in has no JSON form (a mode other
 * than steps, an unknown kind, a resched with an argument, more than
 * SCHEDULE_MAX injections); the caller frees the result with cJSON_Delete.
 */
cJSON *input_to_json(const struct exec_input *in);

/*
 * Returns 0, or -EINVAL with a reason naming the bad field (e.g.
 * "injections[2]: missing \"us\""). Every field is required ("us" only where
 * it is allowed); unknown and repeated keys are rejected. *in is written only
 * on success; why may be NULL.
 */
int input_from_json(const cJSON *json, struct exec_input *in, char *why, size_t why_len);

#endif

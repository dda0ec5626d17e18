/* SPDX-License-Identifier: MIT */
/*
 * AFL++ target for the execution-input parser alone (schedule/input.c).
 *
 *   fuzz_input FILE             checks FILE (stdin without FILE)
 *   fuzz_input --write-seeds DIR writes a few valid inputs into DIR
 *
 * Every input the parser accepts must encode back to the same bytes and
 * survive the JSON form (to text, parsed again, back to binary) unchanged;
 * anything else aborts, which afl-fuzz records as a crash. Built with
 * afl-clang-fast it runs in persistent mode, rereading FILE each round
 * (tests/fuzz/fuzz.h). Planted bug (-DFUZZ_PLANTED_BUG): an accepted input
 * whose seed has a byte of 0xf0 or more (no seed's has).
 */
#define FUZZ_NAME "fuzz_input"

#include "schedule/input.h"
#include "tests/fuzz/fuzz.h"

#include <stdbool.h>

/* The JSON form of in, as text, parsed again and encoded: must give bytes back. */
static void check_json(const struct exec_input *in, const uint8_t *bytes, size_t len)
{
	static struct exec_input back;
	static uint8_t out[INPUT_MAX_SIZE];
	char why[160] = "";
	cJSON *json = input_to_json(in), *again;
	char *text;

	if (!json)
		fuzz_die("input_to_json", "refused an accepted input");
	text = cJSON_PrintUnformatted(json);
	cJSON_Delete(json);
	if (!text)
		fuzz_die("cJSON_PrintUnformatted", "failed");
	again = cJSON_Parse(text);
	if (!again)
		fuzz_die("cJSON_Parse of own output", text);
	if (input_from_json(again, &back, why, sizeof(why)) != 0)
		fuzz_die(text, why);
	cJSON_Delete(again);
	cJSON_free(text);
	if (input_encode(&back, out) != len || memcmp(out, bytes, len) != 0)
		fuzz_die("JSON round trip", "bytes differ");
}

#ifdef FUZZ_PLANTED_BUG
static bool has_byte_from(uint64_t v, uint8_t min)
{
	for (; v; v >>= 8) {
		if ((uint8_t)v >= min)
			return true;
	}
	return false;
}
#endif

static void check(const uint8_t *bytes, size_t len, const char *path)
{
	static struct exec_input in;
	char why[160] = "";
	/* an exact-size copy, so ASan catches a read past the end */
	uint8_t *data = fuzz_copy(bytes, len);

	(void)path;
	if (input_parse(data, len, &in, why, sizeof(why)) == 0) {
		static uint8_t out[INPUT_MAX_SIZE];

		len -= (len - INPUT_HEADER_SIZE) % INPUT_RECORD_SIZE; /* partial last record */

		if (input_encode(&in, out) != len || memcmp(out, data, len) != 0)
			fuzz_die("binary round trip", "bytes differ");
		check_json(&in, data, len);
		FUZZ_PLANTED(has_byte_from(in.seed, 0xf0),
			     "an accepted input whose seed has a byte of 0xf0 or more");
	} else if (why[0] == '\0') {
		fuzz_die("input_parse", "rejected without a reason");
	}
	free(data);
}

/* Writes one seed as DIR/NAME; returns 0 or -1. */
static int write_seed(const char *dir, const char *name, const struct exec_input *in)
{
	static uint8_t buf[INPUT_MAX_SIZE];

	return fuzz_write_seed(dir, name, buf, input_encode(in, buf));
}

/* A few valid inputs: empty, one of each kind, a pct sample, a mixed schedule, a full one. */
static int write_seeds(const char *dir)
{
	static struct exec_input in;
	int rc = 0;

	in = (struct exec_input){.seed = 1, .mode = INPUT_MODE_STEPS};
	rc |= write_seed(dir, "empty", &in);
	in.seed = 0x0123456789abcdefULL;
	in.schedule.count = 1;
	in.schedule.at[0] = (struct injection){.step = 3, .kind = INJECT_RESCHED};
	rc |= write_seed(dir, "resched", &in);
	in.schedule.at[0] = (struct injection){.step = 12, .arg = 25000, .kind = INJECT_STALL};
	rc |= write_seed(dir, "stall", &in);
	in.schedule.at[0] = (struct injection){.step = 7, .arg = 40, .kind = INJECT_TIMER_LATE};
	rc |= write_seed(dir, "timer-late", &in);
	in.schedule.at[0] = (struct injection){.step = 9, .arg = 25, .kind = INJECT_PREEMPT_INSNS};
	rc |= write_seed(dir, "preempt-insns", &in);
	in.mode = INPUT_MODE_COUNTER;
	in.schedule.at[0] = (struct injection){.step = 1200, .kind = INJECT_PREEMPT};
	rc |= write_seed(dir, "preempt", &in);
	in.mode = INPUT_MODE_PCT; /* a PCT sample: a thread first, two change points */
	in.schedule.count = 3;
	in.schedule.at[0] = (struct injection){.step = 1, .arg = 99, .kind = INJECT_PRIORITY};
	in.schedule.at[1] =
		(struct injection){.step = 0x80000000u, .arg = 3, .kind = INJECT_DEMOTE};
	in.schedule.at[2] =
		(struct injection){.step = 0xc0000000u, .arg = 2, .kind = INJECT_DEMOTE};
	rc |= write_seed(dir, "pct", &in);
	in.mode = INPUT_MODE_STEPS;
	in.schedule.count = 6;
	for (uint32_t i = 0; i < in.schedule.count; i++) {
		uint8_t kind = (uint8_t)(i % 3 + 1);

		in.schedule.at[i] = (struct injection){
			.step = 100 - 10 * i,
			.arg = kind == INJECT_RESCHED ? 0 : (uint16_t)(1000 * i),
			.kind = kind,
		};
	}
	rc |= write_seed(dir, "mixed", &in);
	in.schedule.count = SCHEDULE_MAX;
	for (uint32_t i = 0; i < SCHEDULE_MAX; i++)
		in.schedule.at[i] = (struct injection){.step = i, .kind = INJECT_RESCHED};
	rc |= write_seed(dir, "full", &in);
	return rc ? -1 : 0;
}

int main(int argc, char **argv)
{
	return fuzz_main(argc, argv, check, write_seeds, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/* The racy-site profile's PCT samples (schedule/profile_sample.h). */
#include "schedule/profile_sample.h"

#define PROFILE_SAMPLE_RNG 0x5f3759df2545f491ull /* the generators' common start */

const uint8_t profile_sample_depths[PROFILE_SAMPLE_DEPTHS] = {
	2, 3, 4, 8, 12, PCT_PRIO_DRAWN_MIN - 1, PCT_PRIO_DRAWN_MIN - 1, PCT_PRIO_DRAWN_MIN - 1};

/* xorshift64*, the schedule mutator's generator (schedule/draw.c draw_next) */
static uint64_t next_random(uint64_t *rng)
{
	*rng ^= *rng >> 12;
	*rng ^= *rng << 25;
	*rng ^= *rng >> 27;
	return *rng * 0x2545f4914f6cdd1dull;
}

/*
 * No benchmark variable (REWIND_PCT_DEPTH, REWIND_PCT_RACY) applies, so a
 * replay learns the same sites; and the narrow mixture, the one version-3
 * artifacts' profiles were drawn from: the same draws, in the same order,
 * as the schedule mutator's pct_sample with a generator of its own.
 */
void profile_sample(uint32_t key, uint32_t i, struct exec_input *in)
{
	uint64_t rng = PROFILE_SAMPLE_RNG ^ key ^ (uint64_t)i * 0x9e3779b97f4a7c15ull;
	uint32_t d;

	if (!rng) /* xorshift's one fixed point */
		rng = PROFILE_SAMPLE_RNG;
	d = profile_sample_depths[(next_random(&rng) >> 32) % PROFILE_SAMPLE_DEPTHS];
	*in = (struct exec_input){.seed = next_random(&rng), .mode = INPUT_MODE_PCT};
	for (uint32_t j = 1; j < d && in->schedule.count < SCHEDULE_MAX; j++)
		in->schedule.at[in->schedule.count++] =
			(struct injection){.step = (uint32_t)(next_random(&rng) >> 32),
					   .kind = INJECT_DEMOTE,
					   .arg = (uint16_t)(d - j + 1)};
}

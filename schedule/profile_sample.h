/* SPDX-License-Identifier: MIT */
/*
 * The PCT samples a racy-site profile runs (harness/executor.c): plain
 * samples of the search's base distribution, each from a generator of its
 * own, so that a replay of a racy input runs the same ones whatever the
 * environment says. The search's fresh samples (schedule/draw.c, drawn by
 * the schedule mutator and --random) come from the same mixture of depths.
 */
#ifndef REWIND_PROFILE_SAMPLE_H
#define REWIND_PROFILE_SAMPLE_H

#include "schedule/input.h"

#include <stdint.h>

/*
 * The change points of a PCT sample, d - 1 for a depth d drawn from these
 * 8 (1 sample in 8 each for depths 2 and 3, most with many change points:
 * schedule/draw.c draw_pct_sample says why). The deepest, PCT_PRIO_DRAWN_MIN
 * - 1, keeps every demotion below the drawn priorities.
 */
#define PROFILE_SAMPLE_DEPTHS 8
extern const uint8_t profile_sample_depths[PROFILE_SAMPLE_DEPTHS];

/*
 * The i-th (1, 2, ...) PCT sample of a racy-site profile whose generator
 * starts from key (input_racy_key): a random priority order (the seed) and
 * d - 1 demotions at uniform positions of the run, as fractions of k.
 */
void profile_sample(uint32_t key, uint32_t i, struct exec_input *in);

#endif

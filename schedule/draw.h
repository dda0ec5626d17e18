/* SPDX-License-Identifier: MIT */
/*
 * The search's base distribution: random inputs and random changes to an
 * input's schedule, all drawn from one generator (xorshift64*), so that the
 * same seed gives the same draws. rewind-harness --random draws its inputs
 * from it (draw_random_input); the schedule mutator (mutators/schedule.c)
 * its fresh PCT samples and the changes it makes in every mode.
 */
#ifndef REWIND_SCHEDULE_DRAW_H
#define REWIND_SCHEDULE_DRAW_H

#include "schedule/input.h"

#include <stdbool.h>
#include <stdint.h>

/* the deepest PCT sample: its d - 1 demotions to priorities d..2 stay below the drawn ones */
#define PCT_DEPTH_MAX (PCT_PRIO_DRAWN_MIN - 1)
/* ... and the deepest with wide priorities (INPUT_FLAG_WIDE: drawn 50..95), 48 change points */
#define PCT_WIDE_DEPTH_MAX (PCT_PRIO_WIDE_MIN - 1)

/* PCT samples that count racy events, in 8ths, unless REWIND_PCT_RACY says (the guided search) */
#define PCT_RACY_EIGHTHS 4
/*
 * ... once this many plain samples have been made (REWIND_PCT_RACY_AFTER),
 * unless the harness's estimate decides (draw.c racy_sample_due): the
 * first racy sample costs 3 or 4 logged profile runs, more than the whole
 * search for a bug plain samples hit within a few (docs/performance.md,
 * "Samples that count racy events").
 */
#define PCT_RACY_AFTER 16

#define STEP_HORIZON 32 /* new injections land up to this far past the last one */

/* The generator and what shapes the PCT samples drawn from it. */
struct draw_state {
	uint64_t rng;
	uint8_t fixed_depth;   /* REWIND_PCT_DEPTH, or 0: PCT samples of mixed depths */
	bool wide_mixture;     /* REWIND_PCT_MIXTURE=wide: samples of up to 48 change points */
	uint8_t racy_eighths;  /* PCT samples that count racy events, in 8ths (REWIND_PCT_RACY) */
	uint32_t racy_after;   /* ... from the sample after this many (REWIND_PCT_RACY_AFTER) */
	bool racy_by_estimate; /* ... or as the harness's estimate says (draw.c racy_sample_due) */
	uint32_t samples;      /* fresh PCT samples drawn so far */
	/* the high half of every racy input's seed (input_racy_key): the racy
	 * queue entry's first seen, or drawn at the first racy sample */
	uint32_t racy_key;
	bool racy_key_set;
};

/*
 * What the harness has said about the job's PCT runs (0: not known): its
 * profiled events, and those the seed-0 profile guesses are racy.
 */
struct draw_counts {
	uint64_t pct_events, pct_racy_estimate;
};

/*
 * A generator from seed, shaped by the benchmark variables REWIND_PCT_DEPTH,
 * REWIND_PCT_MIXTURE, REWIND_PCT_RACY and REWIND_PCT_RACY_AFTER (a bad
 * value is said on stderr, and the default used).
 */
void draw_init(struct draw_state *d, unsigned int seed);

/*
 * The number in environment variable name, min..max, or unset: when the
 * variable is not set, and (said, with what is used instead) when it is
 * not such a number.
 */
long draw_env_number(const char *name, long min, long max, long unset, const char *instead);

uint64_t draw_next(struct draw_state *d);
/* 0..n-1 (0 for n = 0). */
uint32_t draw_below(struct draw_state *d, uint32_t n);

/* Adds inj at the end of s, if there is room. */
void draw_add_injection(struct schedule *s, struct injection inj);
/* Removes one of s's injections (s not empty). */
void draw_remove_injection(struct draw_state *d, struct schedule *s);

/* The key of the racy inputs from here on (input_racy_key). */
void draw_take_racy_key(struct draw_state *d, uint32_t key);

/* A new seed for in (a new priority order); a racy input keeps its key. */
uint64_t draw_new_seed(struct draw_state *d, const struct exec_input *in);

/* A fresh PCT sample into in: a new seed and d - 1 change points (draw.c pct_sample). */
void draw_pct_sample(struct draw_state *d, struct exec_input *in, const struct draw_counts *c);

/*
 * Walks' share of an instrumented job's fresh samples, of 1024, where the
 * search starts it and where it stays while neither sampler has paid
 * (mutators/arms.c); --random --mix draws walks at this share.
 */
#define WALK_SHARE_START 256

/*
 * A fresh walk into in (pct mode, INPUT_FLAG_WALK): a new seed and no
 * records; the runtime draws the walk from the seed (guest/runtime/walk.c).
 */
void draw_walk_sample(struct draw_state *d, struct exec_input *in);

/*
 * One random change to in's schedule, as any mode but pct's own changes
 * make them: an injection moved, changed, added, removed or spliced from add
 * (another input, or NULL), or a new seed.
 */
void draw_change(struct draw_state *d, struct exec_input *in, const struct exec_input *add);

/*
 * A fresh random input of mode into in: a PCT sample in pct mode (a random
 * priority order and 1-14 change points), 1-4 random injections otherwise.
 */
void draw_random_input(struct draw_state *d, uint8_t mode, struct exec_input *in,
		       const struct draw_counts *c);

#endif

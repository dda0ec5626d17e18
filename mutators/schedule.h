/* SPDX-License-Identifier: MIT */
/* The schedule-aware AFL++ custom mutator (mutators/schedule.c). */
#ifndef REWIND_MUTATOR_SCHEDULE_H
#define REWIND_MUTATOR_SCHEDULE_H

#include "schedule/draw.h"
#include "schedule/input.h"

#include <stddef.h>
#include <stdint.h>

/*
 * The two ways a pct-mode mutant is made: a fresh PCT sample (the search's
 * base distribution) or a change to the queue entry it comes from. A
 * mutant pays when afl-fuzz keeps it as a new queue entry (it reached new
 * reads-from or lock-order coverage); the mutator shares the mutants out
 * by what each way has paid (schedule_mutate).
 */
enum pct_arm { PCT_ARM_FRESH, PCT_ARM_LOCAL, PCT_ARMS, PCT_ARM_NONE = PCT_ARMS };

struct arm_tally {
	uint32_t tried, paid;
};

/*
 * The samplers a fresh sample is drawn from: PCT (priorities and change
 * points), stalls at exits, and walks (URW: the next thread drawn at every
 * schedule event by the guest runtime, an instrumented job only). A job
 * the guest kernel makes the events for (not instrumented: the harness's
 * progress file says so after its first pct run) gets PCT and stalls, in
 * pct mode, shared out by what each has paid: a race across a system call
 * falls to a stall in a few executions and to priorities seldom, a race in
 * memory the other way round. An instrumented job gets PCT and walks,
 * shared out the same way from a prior that favours PCT (arms.c): a torn
 * publish among many threads falls to a walk at once, a thread held back
 * for a whole round only to PCT. A job whose queue holds steps-mode
 * entries only (the bundled ledger) gets steps-mode stalls.
 */
enum sampler { SAMPLER_PCT, SAMPLER_STALL, SAMPLER_WALK, SAMPLERS, SAMPLER_NONE = SAMPLERS };
/* Not pinned: shared out by what paid (PCT and stalls, or PCT and walks). */
#define SAMPLERS_AUTO (-1)

struct schedule_mutator {
	struct draw_state draw; /* the generator, and what shapes its PCT samples */
	struct exec_input in, add;
	struct arm_tally arms[PCT_ARMS];
	struct arm_tally samplers[SAMPLERS];
	uint8_t last_arm;	    /* the way the last mutant was made, or PCT_ARM_NONE */
	uint8_t last_sampler;	    /* the sampler of the last fresh sample, or SAMPLER_NONE */
	int8_t fixed_sampler;	    /* REWIND_MUTATOR_SAMPLER, or SAMPLERS_AUTO */
	bool kernel_events_known;   /* the progress file has said whether ... */
	bool kernel_events;	    /* ... the guest kernel makes the job's events */
	int32_t fixed_local_share;  /* REWIND_MUTATOR_LOCAL_SHARE, or -1: adaptive */
	uint64_t pct_events;	    /* the job's profiled events (0: not known yet) */
	uint64_t pct_racy_events;   /* the same, counted as racy-events inputs count them */
	uint64_t pct_racy_estimate; /* ... guessed from the seed-0 profile alone (0: not known) */
	uint64_t steps_profiled;    /* the exits of a passing steps-mode run (0: not known) */
	const char *progress_path;  /* REWIND_PROGRESS_FILE: where the harness says them */
	uint32_t progress_tries;
	uint8_t out[INPUT_MAX_SIZE];
};

/*
 * Writes a mutant of buf (any bytes: an invalid input starts from an empty
 * schedule) to m->out and points *out at it; returns its length, at most
 * max_size (and at least the 16-byte header). The mutant is always valid.
 */
size_t schedule_mutate(struct schedule_mutator *m, const uint8_t *buf, size_t len,
		       const uint8_t *add_buf, size_t add_len, uint8_t **out, size_t max_size);

/*
 * A fresh random input of mode, from the search's base distribution
 * (draw_random_input): a PCT sample in pct mode (a random priority order and
 * 1-14 change points), 1-4 random injections otherwise. In m->out, like
 * schedule_mutate.
 */
size_t schedule_random(struct schedule_mutator *m, uint8_t mode, uint8_t **out);

/*
 * Tells the mutator that its last mutant became a new queue entry: the way
 * it was made is credited (afl_custom_queue_new_entry calls it).
 */
void schedule_mutant_paid(struct schedule_mutator *m);

/* The share of pct mutants, in 1/1024, the next one is made locally with. */
uint32_t schedule_local_share(const struct schedule_mutator *m);

/* The share of steps-mode mutants, in 1/1024, made locally; the rest are fresh samples. */
uint32_t schedule_steps_local_share(const struct schedule_mutator *m);

/* The share of a plain job's fresh samples, in 1/1024, that are stalls (the rest PCT's). */
uint32_t schedule_stall_share(const struct schedule_mutator *m);

/* The share of an instrumented job's fresh samples, in 1/1024, that are walks (the rest PCT's). */
uint32_t schedule_walk_share(const struct schedule_mutator *m);

/* The sampler a fresh sample for an entry of mode is drawn from (mutators/arms.c). */
enum sampler schedule_pick_sampler(struct schedule_mutator *m, uint8_t mode);

#define SCHEDULE_MUTANTS_PER_ENTRY 16 /* afl_custom_fuzz_count: mutants per entry and cycle */

/* AFL++ 4.04c's custom mutator API (mutators/afl_custom.c). */
void *afl_custom_init(void *afl, unsigned int seed);
size_t afl_custom_fuzz(void *data, unsigned char *buf, size_t buf_size, unsigned char **out_buf,
		       unsigned char *add_buf, size_t add_buf_size, size_t max_size);
uint32_t afl_custom_fuzz_count(void *data, const unsigned char *buf, size_t buf_size);
uint8_t afl_custom_queue_new_entry(void *data, const unsigned char *filename_new_queue,
				   const unsigned char *filename_orig_queue);
const char *afl_custom_describe(void *data, size_t max_description_len);
void afl_custom_deinit(void *data);

#endif

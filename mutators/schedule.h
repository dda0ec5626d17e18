/* The schedule-aware AFL++ custom mutator (mutators/schedule.c). */
#ifndef REWIND_MUTATOR_SCHEDULE_H
#define REWIND_MUTATOR_SCHEDULE_H

#include "harness/input.h"

#include <stddef.h>
#include <stdint.h>

struct schedule_mutator {
	uint64_t rng;
	struct exec_input in, add;
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
 * A fresh random input of mode, from the search's base distribution: a PCT
 * sample in pct mode (a random priority order and 0-3 change points), 1-4
 * random injections otherwise. In m->out, like schedule_mutate.
 */
size_t schedule_random(struct schedule_mutator *m, uint8_t mode, uint8_t **out);

#define SCHEDULE_MUTANTS_PER_ENTRY 16 /* afl_custom_fuzz_count: mutants per entry and cycle */

/* AFL++ 4.04c's custom mutator API. */
void *afl_custom_init(void *afl, unsigned int seed);
size_t afl_custom_fuzz(void *data, unsigned char *buf, size_t buf_size, unsigned char **out_buf,
		       unsigned char *add_buf, size_t add_buf_size, size_t max_size);
uint32_t afl_custom_fuzz_count(void *data, const unsigned char *buf, size_t buf_size);
const char *afl_custom_describe(void *data, size_t max_description_len);
void afl_custom_deinit(void *data);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The outcomes of the last few inputs the forkserver ran, to answer afl-fuzz
 * when it runs one of them again. afl-fuzz calibrates every new queue entry
 * by running it 3 more times (and re-runs inputs elsewhere) to find unstable
 * coverage; a Rewind execution is a pure function of its input, so a re-run
 * can only give the same map and status, and costs a whole guest run in
 * the box. Only outcomes that do not depend on the host are kept: passes,
 * skips and other non-failures; never a failure (its artifact and count
 * belong to one run), a wall-clock timeout or a host error.
 */
#ifndef REWIND_OUTCOME_CACHE_H
#define REWIND_OUTCOME_CACHE_H

#include "harness/exec_class.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <xxhash.h>

/* Enough for afl's calibration, which re-runs the entry it just kept. */
#define OUTCOME_CACHE_SLOTS 8
/* The slots' maps together stay under this (fewer slots for a big map) */
#define OUTCOME_CACHE_BYTES (4u << 20)

struct outcome_slot {
	XXH128_hash_t key; /* of the input's bytes */
	size_t len;
	uint32_t wait_status;
	bool used;
};

struct outcome_cache {
	uint8_t *maps; /* slots x map_size, allocated once */
	size_t map_size;
	unsigned int slots, next;
	struct outcome_slot slot[OUTCOME_CACHE_SLOTS];
};

/* Sets up the cache for maps of map_size bytes; -ENOMEM (reported) on failure. */
int outcome_cache_init(struct outcome_cache *c, size_t map_size);
void outcome_cache_free(struct outcome_cache *c);

/* The key of an input's bytes. */
XXH128_hash_t outcome_cache_key(const uint8_t *data, size_t len);

/*
 * If the input with this key and length ran recently, copies its map into
 * map (map_size bytes), sets *wait_status and returns true.
 */
bool outcome_cache_answer(const struct outcome_cache *c, XXH128_hash_t key, size_t len,
			  uint8_t *map, uint32_t *wait_status);

/* Can an outcome of this class be answered again without running? */
bool outcome_cache_can_keep(enum exec_class cls);

/* Keeps an input's outcome (its map and status), replacing the oldest. */
void outcome_cache_keep(struct outcome_cache *c, XXH128_hash_t key, size_t len, const uint8_t *map,
			uint32_t wait_status);

#endif

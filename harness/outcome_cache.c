/* SPDX-License-Identifier: MIT */
/* Recent outcomes, answered again without a run; see outcome_cache.h. */
#include "harness/outcome_cache.h"

#include "lib/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int outcome_cache_init(struct outcome_cache *c, size_t map_size)
{
	size_t fit = map_size ? OUTCOME_CACHE_BYTES / map_size : 0;

	memset(c, 0, sizeof(*c));
	if (!map_size)
		return -EINVAL;
	c->slots = fit >= OUTCOME_CACHE_SLOTS ? OUTCOME_CACHE_SLOTS : fit ? (unsigned int)fit : 1;
	c->map_size = map_size;
	c->maps = malloc(c->slots * map_size);
	if (!c->maps) {
		rw_err("no memory for the outcome cache (%u maps of %zu bytes)", c->slots,
		       map_size);
		return -ENOMEM;
	}
	return 0;
}

void outcome_cache_free(struct outcome_cache *c)
{
	free(c->maps);
	c->maps = NULL;
}

XXH128_hash_t outcome_cache_key(const uint8_t *data, size_t len)
{
	return XXH3_128bits(data, len);
}

bool outcome_cache_answer(const struct outcome_cache *c, XXH128_hash_t key, size_t len,
			  uint8_t *map, uint32_t *wait_status)
{
	for (unsigned int i = 0; i < c->slots; i++) {
		const struct outcome_slot *s = &c->slot[i];

		if (s->used && s->len == len && XXH128_isEqual(s->key, key)) {
			memcpy(map, c->maps + (size_t)i * c->map_size, c->map_size);
			*wait_status = s->wait_status;
			return true;
		}
	}
	return false;
}

bool outcome_cache_can_keep(enum exec_class cls)
{
	/* a timeout is host-timed; a failure is counted and saved once per run */
	return !exec_class_is_failure(cls) && cls != CLASS_TIMEOUT && cls != CLASS_HOST_ERROR;
}

void outcome_cache_keep(struct outcome_cache *c, XXH128_hash_t key, size_t len, const uint8_t *map,
			uint32_t wait_status)
{
	struct outcome_slot *s = &c->slot[c->next];

	memcpy(c->maps + (size_t)c->next * c->map_size, map, c->map_size);
	*s = (struct outcome_slot){
		.key = key, .len = len, .wait_status = wait_status, .used = true};
	c->next = (c->next + 1) % c->slots;
}

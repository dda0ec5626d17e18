/* SPDX-License-Identifier: MIT */
/*
 * The forkserver's outcome cache (harness/outcome_cache.c): a recent input
 * is answered with its own map and status, the oldest is replaced first, a
 * big map gets fewer slots, and only outcomes that do not depend on the
 * host are kept.
 */
#include "harness/outcome_cache.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#define MAP 4096

static void fill(uint8_t *map, uint8_t v)
{
	memset(map, 0, MAP);
	map[v] = v;
	map[MAP - 1] = 1;
}

static void test_answers_what_it_kept(void **state)
{
	static struct outcome_cache c;
	static uint8_t map[MAP], want[MAP];
	const uint8_t a[] = "input a", b[] = "input b";
	uint32_t status = 0;

	(void)state;
	assert_int_equal(outcome_cache_init(&c, MAP), 0);
	assert_int_equal(c.slots, OUTCOME_CACHE_SLOTS);
	assert_false(
		outcome_cache_answer(&c, outcome_cache_key(a, sizeof(a)), sizeof(a), map, &status));
	fill(want, 7);
	outcome_cache_keep(&c, outcome_cache_key(a, sizeof(a)), sizeof(a), want, 0);
	memset(map, 0xaa, MAP);
	assert_true(
		outcome_cache_answer(&c, outcome_cache_key(a, sizeof(a)), sizeof(a), map, &status));
	assert_memory_equal(map, want, MAP);
	assert_int_equal(status, 0);
	/* another input, or the same bytes cut short, is not answered */
	assert_false(
		outcome_cache_answer(&c, outcome_cache_key(b, sizeof(b)), sizeof(b), map, &status));
	assert_false(outcome_cache_answer(&c, outcome_cache_key(a, sizeof(a) - 1), sizeof(a) - 1,
					  map, &status));
	outcome_cache_free(&c);
}

static void test_replaces_the_oldest(void **state)
{
	static struct outcome_cache c;
	static uint8_t map[MAP], want[MAP];
	uint32_t status;

	(void)state;
	assert_int_equal(outcome_cache_init(&c, MAP), 0);
	for (uint8_t i = 0; i <= OUTCOME_CACHE_SLOTS; i++) {
		fill(want, i);
		outcome_cache_keep(&c, outcome_cache_key(&i, 1), 1, want, i);
	}
	/* input 0 was the oldest of OUTCOME_CACHE_SLOTS + 1: gone; the others answer */
	{
		uint8_t zero = 0;

		assert_false(
			outcome_cache_answer(&c, outcome_cache_key(&zero, 1), 1, map, &status));
	}
	for (uint8_t i = 1; i <= OUTCOME_CACHE_SLOTS; i++) {
		assert_true(outcome_cache_answer(&c, outcome_cache_key(&i, 1), 1, map, &status));
		fill(want, i);
		assert_memory_equal(map, want, MAP);
		assert_int_equal(status, i);
	}
	outcome_cache_free(&c);
}

static void test_big_maps_and_what_is_kept(void **state)
{
	static struct outcome_cache c;

	(void)state;
	assert_int_equal(outcome_cache_init(&c, 8u << 20), 0);
	assert_int_equal(c.slots, 1);
	outcome_cache_free(&c);
	assert_int_equal(outcome_cache_init(&c, 1u << 20), 0);
	assert_int_equal(c.slots, 4);
	outcome_cache_free(&c);
	assert_true(outcome_cache_can_keep(CLASS_PASS));
	assert_true(outcome_cache_can_keep(CLASS_SKIP));
	assert_true(outcome_cache_can_keep(CLASS_REJECTED));
	assert_false(outcome_cache_can_keep(CLASS_EXIT));
	assert_false(outcome_cache_can_keep(CLASS_STUCK));
	assert_false(outcome_cache_can_keep(CLASS_LIVELOCK));
	assert_false(outcome_cache_can_keep(CLASS_TIMEOUT));
	assert_false(outcome_cache_can_keep(CLASS_HOST_ERROR));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_answers_what_it_kept),
		cmocka_unit_test(test_replaces_the_oldest),
		cmocka_unit_test(test_big_maps_and_what_is_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

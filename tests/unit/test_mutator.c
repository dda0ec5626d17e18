/*
 * The schedule mutator: whatever it is given (valid inputs, noise, a
 * size limit), every input it makes parses, stays within the limit, and
 * mutation actually changes inputs; its AFL++ entry points behave.
 */
#include "mutators/schedule.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static size_t empty_input(uint8_t *buf)
{
	struct exec_input in = {.seed = 0, .mode = INPUT_MODE_STEPS};

	return input_encode(&in, buf);
}

static void test_mutants_are_always_valid(void **state)
{
	void *m = afl_custom_init(NULL, 1);
	static uint8_t buf[INPUT_MAX_SIZE + 64], add[INPUT_MAX_SIZE];
	size_t len = empty_input(buf), add_len = empty_input(add);
	unsigned int changed = 0, max_count = 0;

	(void)state;
	assert_non_null(m);
	for (int i = 0; i < 200000; i++) {
		struct exec_input in;
		uint8_t *out = NULL;
		size_t max = i % 7 == 0 ? 16 + 8 * (size_t)(i % 5) : INPUT_MAX_SIZE;
		size_t n = afl_custom_fuzz(m, buf, len, &out, add, add_len, max);
		char why[160];

		assert_non_null(out);
		assert_true(n >= INPUT_HEADER_SIZE && n <= max);
		if (input_parse(out, n, &in, why, sizeof(why)) < 0)
			fail_msg("mutant %d rejected: %s", i, why);
		changed += n != len || memcmp(out, buf, n) != 0;
		if (in.schedule.count > max_count)
			max_count = in.schedule.count;
		if (i % 3 == 0) { /* walk on: the next input is this mutant */
			memcpy(add, buf, len);
			add_len = len;
			memcpy(buf, out, n);
			len = n;
		}
		if (i % 10007 == 0) { /* now and then, noise in */
			for (size_t j = 0; j < 40; j++)
				buf[j] = (uint8_t)(j * 37 + (size_t)i);
			len = 40;
		}
	}
	print_message("200000 mutants valid, %u changed, up to %u injections\n", changed,
		      max_count);
	assert_true(changed > 190000);
	assert_true(max_count >= 10);
	afl_custom_deinit(m);
}

static void test_same_seed_same_mutants(void **state)
{
	void *a = afl_custom_init(NULL, 42), *b = afl_custom_init(NULL, 42);
	uint8_t buf[INPUT_MAX_SIZE];
	size_t len = empty_input(buf);

	(void)state;
	for (int i = 0; i < 1000; i++) {
		uint8_t *oa, *ob;
		size_t na = afl_custom_fuzz(a, buf, len, &oa, NULL, 0, INPUT_MAX_SIZE);
		size_t nb = afl_custom_fuzz(b, buf, len, &ob, NULL, 0, INPUT_MAX_SIZE);

		assert_int_equal(na, nb);
		assert_memory_equal(oa, ob, na);
	}
	assert_string_equal(afl_custom_describe(a, 64), "schedule");
	afl_custom_deinit(a);
	afl_custom_deinit(b);
}

/* Counter mode: preemptions at blocks appear, and every mutant stays valid. */
static void test_counter_mode_mutants(void **state)
{
	void *m = afl_custom_init(NULL, 9);
	struct exec_input in = {.seed = 0, .mode = INPUT_MODE_COUNTER};
	static uint8_t buf[INPUT_MAX_SIZE];
	size_t len = input_encode(&in, buf);
	unsigned int preempts = 0;

	(void)state;
	for (int i = 0; i < 20000; i++) {
		uint8_t *out;
		size_t n = afl_custom_fuzz(m, buf, len, &out, NULL, 0, INPUT_MAX_SIZE);
		char why[160];

		if (input_parse(out, n, &in, why, sizeof(why)) < 0)
			fail_msg("mutant %d rejected: %s", i, why);
		assert_int_equal(in.mode, INPUT_MODE_COUNTER);
		for (uint32_t k = 0; k < in.schedule.count; k++)
			preempts += in.schedule.at[k].kind == INJECT_PREEMPT;
		if (i % 2 == 0 && n < 400) {
			memcpy(buf, out, n);
			len = n;
		}
	}
	assert_true(preempts > 1000);
	afl_custom_deinit(m);
}

/* Steps mode: some new injections are single-step offsets, each a few instructions. */
static void test_steps_mode_single_step_offsets(void **state)
{
	void *m = afl_custom_init(NULL, 11);
	static uint8_t buf[INPUT_MAX_SIZE];
	size_t len = empty_input(buf);
	unsigned int insns = 0, others = 0;

	(void)state;
	for (int i = 0; i < 20000; i++) {
		struct exec_input in;
		uint8_t *out;
		size_t n = afl_custom_fuzz(m, buf, len, &out, NULL, 0, INPUT_MAX_SIZE);
		char why[160];

		if (input_parse(out, n, &in, why, sizeof(why)) < 0)
			fail_msg("mutant %d rejected: %s", i, why);
		for (uint32_t k = 0; k < in.schedule.count; k++) {
			const struct injection *inj = &in.schedule.at[k];

			assert_int_not_equal(inj->kind, INJECT_PREEMPT);
			if (inj->kind != INJECT_PREEMPT_INSNS) {
				others++;
				continue;
			}
			insns++;
			assert_in_range(inj->arg, 1, 256);
		}
		if (i % 2 == 0 && n < 400) {
			memcpy(buf, out, n);
			len = n;
		}
	}
	print_message("steps mode: %u single-step offsets, %u other injections\n", insns, others);
	assert_true(insns > 1000);
	assert_true(others > 4 * insns);
	afl_custom_deinit(m);
}

/*
 * A schedule search needs to keep a second preemption where it is relative
 * to the first: some mutants move both by the same distance, and new
 * preemptions often land a few blocks after an existing one.
 */
static void test_preemptions_move_together_and_land_near(void **state)
{
	void *m = afl_custom_init(NULL, 5);
	struct exec_input in = {.seed = 0, .mode = INPUT_MODE_COUNTER};
	static uint8_t buf[INPUT_MAX_SIZE];
	unsigned int together = 0, near = 0;
	size_t len;

	(void)state;
	in.schedule.at[0] = (struct injection){.step = 1000, .kind = INJECT_PREEMPT};
	in.schedule.at[1] = (struct injection){.step = 2300, .kind = INJECT_PREEMPT};
	in.schedule.count = 2;
	len = input_encode(&in, buf);
	for (int i = 0; i < 20000; i++) {
		uint8_t *out;
		size_t n = afl_custom_fuzz(m, buf, len, &out, NULL, 0, INPUT_MAX_SIZE);
		struct exec_input got;

		assert_int_equal(input_parse(out, n, &got, NULL, 0), 0);
		if (got.schedule.count == 2 && got.schedule.at[0].step != 1000 &&
		    got.schedule.at[1].step - got.schedule.at[0].step == 1300)
			together++;
		for (uint32_t k = 2; k < got.schedule.count; k++) {
			uint32_t b = got.schedule.at[k].step;

			near += got.schedule.at[k].kind == INJECT_PREEMPT &&
				((b > 1000 && b <= 1000 + 4096) || (b > 2300 && b <= 2300 + 4096));
		}
	}
	print_message("%u of 20000 mutants moved both preemptions together, %u new ones landed "
		      "within 4096 blocks after one\n",
		      together, near);
	assert_true(together > 200);
	assert_true(near > 2000);
	assert_int_equal(afl_custom_fuzz_count(m, buf, len), SCHEDULE_MUTANTS_PER_ENTRY);
	afl_custom_deinit(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mutants_are_always_valid),
		cmocka_unit_test(test_same_seed_same_mutants),
		cmocka_unit_test(test_preemptions_move_together_and_land_near),
		cmocka_unit_test(test_counter_mode_mutants),
		cmocka_unit_test(test_steps_mode_single_step_offsets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * The schedule mutator: whatever it is given (valid inputs, noise, a
 * size limit), every input it makes parses, stays within the limit, keeps
 * the input's mode, and mutation actually changes inputs; pct mode's
 * samples have PCT's shape; its AFL++ entry points behave.
 */
#include "mutators/schedule.h"
#include "schedule/profile_sample.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

/* Every mutator a test makes: the teardown frees them, also when the test fails. */
static void *mutators[6];

static void *new_mutator(unsigned int seed)
{
	void *m = afl_custom_init(NULL, seed);

	assert_non_null(m);
	for (size_t i = 0; i < sizeof(mutators) / sizeof(mutators[0]); i++) {
		if (!mutators[i]) {
			mutators[i] = m;
			return m;
		}
	}
	afl_custom_deinit(m);
	fail_msg("more than %zu mutators in one test", sizeof(mutators) / sizeof(mutators[0]));
	return NULL;
}

static int free_mutators(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(mutators) / sizeof(mutators[0]); i++) {
		afl_custom_deinit(mutators[i]);
		mutators[i] = NULL;
	}
	return 0;
}

static size_t empty_input(uint8_t *buf)
{
	struct exec_input in = {.seed = 0, .mode = INPUT_MODE_STEPS};

	return input_encode(&in, buf);
}

static bool is_pct_kind(uint8_t kind)
{
	return kind == INJECT_PRIORITY || kind == INJECT_DEMOTE;
}

static void test_mutants_are_always_valid(void **state)
{
	void *m = new_mutator(1);
	static uint8_t buf[INPUT_MAX_SIZE + 64], add[INPUT_MAX_SIZE];
	size_t len = empty_input(buf), add_len = empty_input(add);
	unsigned int changed = 0, max_count = 0;

	(void)state;
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
}

static void test_same_seed_same_mutants(void **state)
{
	void *a = new_mutator(42), *b = new_mutator(42);
	uint8_t buf[INPUT_MAX_SIZE];
	size_t len = empty_input(buf);

	(void)state;
	for (int i = 0; i < 1000; i++) {
		uint8_t *oa, *ob;
		size_t na = afl_custom_fuzz(a, buf, len, &oa, NULL, 0, INPUT_MAX_SIZE);
		size_t nb = afl_custom_fuzz(b, buf, len, &ob, NULL, 0, INPUT_MAX_SIZE);

		assert_int_equal(na, nb);
		assert_memory_equal(oa, ob, na);
		na = schedule_random(a, (uint8_t)(i % INPUT_MODES), &oa);
		nb = schedule_random(b, (uint8_t)(i % INPUT_MODES), &ob);
		assert_int_equal(na, nb);
		assert_memory_equal(oa, ob, na);
	}
	assert_string_equal(afl_custom_describe(a, 64), "schedule");
	assert_string_equal(afl_custom_describe(a, 7), "");
}

/* Counter mode: preemptions at blocks appear, never pct's kinds, and every mutant stays valid. */
static void test_counter_mode_mutants(void **state)
{
	void *m = new_mutator(9);
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
		for (uint32_t k = 0; k < in.schedule.count; k++) {
			assert_false(is_pct_kind(in.schedule.at[k].kind));
			preempts += in.schedule.at[k].kind == INJECT_PREEMPT;
		}
		if (i % 2 == 0 && n < 400) {
			memcpy(buf, out, n);
			len = n;
		}
	}
	assert_true(preempts > 1000);
}

/*
 * Steps mode: some new injections are single-step offsets, of 1..4096
 * instructions, log-uniform (small ones and large ones both occur); never
 * pct's kinds.
 */
static void test_steps_mode_single_step_offsets(void **state)
{
	struct schedule_mutator *m = new_mutator(11);
	static uint8_t buf[INPUT_MAX_SIZE];
	size_t len = empty_input(buf);
	unsigned int insns = 0, others = 0, small = 0, large = 0;

	(void)state;
	m->fixed_local_share = 1024; /* local changes only: stall samples have no offsets */
	for (int i = 0; i < 20000; i++) {
		struct exec_input in;
		uint8_t *out;
		size_t n = afl_custom_fuzz(m, buf, len, &out, NULL, 0, INPUT_MAX_SIZE);
		char why[160];

		if (input_parse(out, n, &in, why, sizeof(why)) < 0)
			fail_msg("mutant %d rejected: %s", i, why);
		assert_int_equal(in.mode, INPUT_MODE_STEPS);
		for (uint32_t k = 0; k < in.schedule.count; k++) {
			const struct injection *inj = &in.schedule.at[k];

			assert_int_not_equal(inj->kind, INJECT_PREEMPT);
			assert_false(is_pct_kind(inj->kind));
			if (inj->kind != INJECT_PREEMPT_INSNS) {
				others++;
				continue;
			}
			insns++;
			assert_in_range(inj->arg, 1, INJECT_INSNS_MAX);
			small += inj->arg <= 16;
			large += inj->arg > 256;
		}
		if (i % 2 == 0 && n < 400) {
			memcpy(buf, out, n);
			len = n;
		}
	}
	print_message("steps mode: %u single-step offsets (%u of at most 16 instructions, %u of "
		      "more than 256), %u other injections\n",
		      insns, small, large, others);
	assert_true(insns > 1000);
	assert_true(others > 4 * insns);
	assert_true(small > insns / 4);	 /* log-uniform: most are small... */
	assert_true(large > insns / 20); /* ...and the large ones are not rare */
}

/* Is in a stall sample: one or two long stalls, at steps below k? */
static bool is_stall_sample(const struct exec_input *in, uint32_t k)
{
	if (in->schedule.count < 1 || in->schedule.count > 2)
		return false;
	for (uint32_t i = 0; i < in->schedule.count; i++) {
		const struct injection *inj = &in->schedule.at[i];

		if (inj->kind != INJECT_STALL || inj->arg < 20000 || inj->step >= k)
			return false;
	}
	return true;
}

/*
 * Steps mode's fresh samples: three mutants in four are one or two stalls
 * of 20-65 ms, each at an exit drawn uniformly from the k exits the
 * harness says a passing run has (32 until it has said them), so a race
 * across any one of the k exits is hit about once in k samples.
 */
static void test_steps_mode_stall_samples(void **state)
{
	struct schedule_mutator *m = new_mutator(17);
	static uint8_t buf[INPUT_MAX_SIZE];
	size_t len = empty_input(buf);
	unsigned int samples = 0, at_step[32] = {0};

	(void)state;
	m->steps_profiled = 20;
	for (int i = 0; i < 4000; i++) {
		struct exec_input in;
		uint8_t *out;
		size_t n = afl_custom_fuzz(m, buf, len, &out, NULL, 0, INPUT_MAX_SIZE);

		assert_int_equal(input_parse(out, n, &in, NULL, 0), 0);
		if (!is_stall_sample(&in, 20))
			continue;
		samples++;
		for (uint32_t k = 0; k < in.schedule.count; k++)
			at_step[in.schedule.at[k].step]++;
	}
	print_message("steps mode, k = 20: %u of 4000 mutants are stall samples\n", samples);
	assert_in_range(samples, 2800, 3200);
	for (uint32_t step = 0; step < 20; step++) /* uniform: about 225 each */
		assert_in_range(at_step[step], 150, 300);
	m->steps_profiled = 0; /* not said yet: the first 32 exits */
	for (int i = 0; i < 400; i++) {
		struct exec_input in;
		uint8_t *out;
		size_t n = afl_custom_fuzz(m, buf, len, &out, NULL, 0, INPUT_MAX_SIZE);

		assert_int_equal(input_parse(out, n, &in, NULL, 0), 0);
		for (uint32_t k = 0; k < in.schedule.count && is_stall_sample(&in, 1000); k++)
			assert_true(in.schedule.at[k].step < 32);
	}
}

/*
 * A schedule search needs to keep a second preemption where it is relative
 * to the first: some mutants move both by the same distance, and new
 * preemptions often land a few blocks after an existing one.
 */
static void test_preemptions_move_together_and_land_near(void **state)
{
	void *m = new_mutator(5);
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
}

/* A pct input with every kind pct mode allows, priorities at both ends of 1..99. */
static size_t pct_input(uint8_t *buf)
{
	static const struct injection at[] = {
		{.step = 0, .kind = INJECT_PRIORITY, .arg = 99},
		{.step = 2, .kind = INJECT_PRIORITY, .arg = 1},
		{.step = 0x40000000u, .kind = INJECT_DEMOTE, .arg = 98},
		{.step = 0xc0000000u, .kind = INJECT_DEMOTE, .arg = 1},
		{.step = 3, .kind = INJECT_STALL, .arg = 100},
		{.step = 4, .kind = INJECT_PREEMPT_INSNS, .arg = 4096},
	};
	static struct exec_input in = {.seed = 77, .mode = INPUT_MODE_PCT};

	in.schedule.count = sizeof(at) / sizeof(at[0]);
	memcpy(in.schedule.at, at, sizeof(at));
	return input_encode(&in, buf);
}

/*
 * Pct mode: every mutant is valid and stays in pct mode, never holds a
 * `preempt`, and the changes are mostly pct's own (priority and demote
 * records); now and then one adds a steps-mode kind.
 */
static void test_pct_mode_mutants(void **state)
{
	struct schedule_mutator *m = new_mutator(23);
	static uint8_t buf[INPUT_MAX_SIZE], parent[INPUT_MAX_SIZE];
	static struct exec_input in, from;
	size_t len = pct_input(buf), parent_len = pct_input(parent);
	unsigned int invalid = 0, demotes = 0, priorities = 0, others = 0, more_steps_kinds = 0;
	char why[160], first_why[200] = "";

	(void)state;
	m->fixed_local_share = 512; /* half local: this test is about the changes */
	assert_int_equal(input_parse(parent, parent_len, &from, NULL, 0), 0);
	for (int i = 0; i < 40000; i++) {
		uint8_t *out;
		/* even: a walk from mutant to mutant; odd: always the same parent */
		bool walk = i % 2 == 0;
		size_t n = walk ? afl_custom_fuzz(m, buf, len, &out, parent, parent_len,
						  INPUT_MAX_SIZE)
				: afl_custom_fuzz(m, parent, parent_len, &out, NULL, 0,
						  INPUT_MAX_SIZE);
		uint32_t steps_kinds = 0;

		assert_true(n >= INPUT_HEADER_SIZE && n <= INPUT_MAX_SIZE);
		if (input_parse(out, n, &in, why, sizeof(why)) < 0) {
			if (!invalid++)
				snprintf(first_why, sizeof(first_why), "mutant %d: %s", i, why);
			continue;
		}
		assert_int_equal(in.mode, INPUT_MODE_PCT);
		for (uint32_t k = 0; k < in.schedule.count; k++) {
			uint8_t kind = in.schedule.at[k].kind;

			assert_int_not_equal(kind, INJECT_PREEMPT);
			demotes += kind == INJECT_DEMOTE;
			priorities += kind == INJECT_PRIORITY;
			others += !is_pct_kind(kind);
			steps_kinds += !is_pct_kind(kind);
		}
		if (!walk) {
			more_steps_kinds += steps_kinds > 2; /* the parent has 2 */
		} else if (n < 400) {
			memcpy(buf, out, n);
			len = n;
		}
	}
	print_message("pct mode: %u demotes, %u priorities, %u other injections; %u of 20000 "
		      "mutants of one parent added a steps-mode kind; %u invalid%s%s\n",
		      demotes, priorities, others, more_steps_kinds, invalid,
		      invalid ? ", the first: " : "", first_why);
	assert_true(demotes > 20000);
	assert_true(priorities > 5000);
	assert_true(more_steps_kinds > 200);  /* 1 in 8 changes may add one... */
	assert_true(more_steps_kinds < 5000); /* ...most do not */
	if (invalid)
		fail_msg("%u of 40000 pct mutants invalid; the first: %s", invalid, first_why);
}

/*
 * The local share: a search starts on fresh samples (1 in 16 mutants
 * local), moves mutants to local changes when they pay more often than
 * fresh samples (two payoffs can be luck), and back; both ways keep 1/16
 * at least. afl-fuzz's seeds at startup (no parent) credit nothing.
 */
static void test_local_share_follows_what_paid(void **state)
{
	struct schedule_mutator *m = new_mutator(5);
	static uint8_t buf[INPUT_MAX_SIZE];
	size_t len = pct_input(buf);
	uint32_t local = 0;

	(void)state;
	assert_int_equal(schedule_local_share(m), 64);
	for (int i = 0; i < 10000; i++) {
		uint8_t *out;

		afl_custom_fuzz(m, buf, len, &out, NULL, 0, INPUT_MAX_SIZE);
		local += m->last_arm == PCT_ARM_LOCAL;
		m->arms[m->last_arm].tried--; /* keep the share where it starts */
	}
	print_message("%u of 10000 mutants local at a share of 64/1024\n", local);
	assert_true(local > 450 && local < 800);
	for (int i = 0; i < 800; i++) { /* local changes pay 1 in 4, fresh samples 1 in 40 */
		uint8_t *out;
		bool was_local;

		afl_custom_fuzz(m, buf, len, &out, NULL, 0, INPUT_MAX_SIZE);
		was_local = m->last_arm == PCT_ARM_LOCAL;
		if (m->arms[m->last_arm].tried % (was_local ? 4 : 40) == 0)
			afl_custom_queue_new_entry(m, (const unsigned char *)"new",
						   (const unsigned char *)"parent");
	}
	print_message("after 800 mutants: share %u/1024 (fresh %u/%u, local %u/%u)\n",
		      schedule_local_share(m), m->arms[PCT_ARM_FRESH].paid,
		      m->arms[PCT_ARM_FRESH].tried, m->arms[PCT_ARM_LOCAL].paid,
		      m->arms[PCT_ARM_LOCAL].tried);
	assert_true(schedule_local_share(m) > 700);
	m->arms[PCT_ARM_LOCAL] = (struct arm_tally){.tried = 1000, .paid = 0};
	m->arms[PCT_ARM_FRESH] = (struct arm_tally){.tried = 1000, .paid = 500};
	assert_int_equal(schedule_local_share(m), 64);
	/* one local change paid early, nothing since (reorder_many's search) */
	m->arms[PCT_ARM_LOCAL] = (struct arm_tally){.tried = 1463, .paid = 1};
	m->arms[PCT_ARM_FRESH] = (struct arm_tally){.tried = 3113, .paid = 1};
	assert_int_equal(schedule_local_share(m), 64);
	m->arms[PCT_ARM_LOCAL] = (struct arm_tally){.tried = 2, .paid = 1};
	m->arms[PCT_ARM_FRESH] = (struct arm_tally){.tried = 30, .paid = 0};
	assert_int_equal(schedule_local_share(m), 64);
	m->arms[PCT_ARM_LOCAL] = (struct arm_tally){.tried = 4, .paid = 2};
	assert_int_equal(schedule_local_share(m), 64);
	/* two local changes paid early, against one fresh sample (lost_update's search) */
	m->arms[PCT_ARM_LOCAL] = (struct arm_tally){.tried = 1355, .paid = 2};
	m->arms[PCT_ARM_FRESH] = (struct arm_tally){.tried = 2901, .paid = 1};
	assert_int_equal(schedule_local_share(m), 64);
	m->arms[PCT_ARM_LOCAL] = (struct arm_tally){.tried = 4, .paid = 4};
	m->arms[PCT_ARM_FRESH] = (struct arm_tally){.tried = 30, .paid = 0};
	assert_true(schedule_local_share(m) > 64);
	m->arms[PCT_ARM_LOCAL] = (struct arm_tally){.tried = 1000, .paid = 1000};
	m->arms[PCT_ARM_FRESH] = (struct arm_tally){.tried = 1000, .paid = 0};
	assert_true(schedule_local_share(m) >= 950);
	m->last_arm = PCT_ARM_NONE; /* a seed at startup */
	afl_custom_queue_new_entry(m, (const unsigned char *)"seed", NULL);
	assert_int_equal(m->arms[PCT_ARM_LOCAL].paid + m->arms[PCT_ARM_FRESH].paid, 1000);
}

/* A progress file that says what the harness says after a job's first pct run. */
static void write_progress(char *path, bool kernel_events)
{
	char text[256];
	int fd = mkstemp(path), n;

	assert_true(fd >= 0);
	n = snprintf(text, sizeof(text),
		     "{\"execs\": 3, \"pct_events\": 300, \"steps_profiled\": 40, "
		     "\"kernel_events\": %s}\n",
		     kernel_events ? "true" : "false");
	assert_int_equal(write(fd, text, (size_t)n), n);
	close(fd);
}

/* Fresh samples of a pct entry, n of them: how many were stalls at exits. */
static uint32_t stalls_among_fresh(struct schedule_mutator *m, const uint8_t *buf, size_t len,
				   int n, int stall_pays_every, int pct_pays_every)
{
	static struct exec_input got;
	uint32_t stalls = 0;

	for (int i = 0; i < n; i++) {
		uint8_t *out;
		size_t o = afl_custom_fuzz(m, (uint8_t *)buf, len, &out, NULL, 0, INPUT_MAX_SIZE);
		bool stall;

		assert_int_equal(input_parse(out, o, &got, NULL, 0), 0);
		assert_int_equal(got.mode, INPUT_MODE_PCT); /* a plain job's stalls keep pct mode */
		stall = m->last_sampler == SAMPLER_STALL;
		assert_true(stall || m->last_sampler == SAMPLER_PCT);
		if (stall) /* one or two stalls, a priority order of its own */
			assert_true(got.schedule.count >= 1 && got.schedule.count <= 2 &&
				    !got.flags);
		for (uint32_t r = 0; r < got.schedule.count; r++)
			assert_int_equal(got.schedule.at[r].kind,
					 stall ? INJECT_STALL : INJECT_DEMOTE);
		stalls += stall;
		if ((stall ? stall_pays_every : pct_pays_every) &&
		    m->samplers[m->last_sampler].tried %
				    (uint32_t)(stall ? stall_pays_every : pct_pays_every) ==
			    0)
			afl_custom_queue_new_entry(m, (const unsigned char *)"new",
						   (const unsigned char *)"parent");
	}
	return stalls;
}

/*
 * A job the guest kernel makes the events for (not instrumented: the
 * harness says so) gets fresh samples from both samplers, PCT and stalls at
 * exits (in pct mode, as the job runs), half and half until one pays more; the share follows what
 * paid, within 1/8 and 7/8. REWIND_MUTATOR_SAMPLER pins one sampler.
 */
static void test_a_plain_jobs_fresh_samples_are_shared(void **state)
{
	struct schedule_mutator *plain = new_mutator(21), *instrumented = new_mutator(21), *pinned;
	static uint8_t buf[INPUT_MAX_SIZE];
	size_t len = pct_input(buf);
	char plain_path[] = "/tmp/rewind-test-progress-XXXXXX";
	char instrumented_path[] = "/tmp/rewind-test-progress-XXXXXX";
	uint32_t stalls;

	(void)state;
	write_progress(plain_path, true);
	write_progress(instrumented_path, false);
	plain->progress_path = plain_path;
	instrumented->progress_path = instrumented_path;
	plain->fixed_local_share = instrumented->fixed_local_share = 0; /* fresh samples only */

	stalls = stalls_among_fresh(plain, buf, len, 4000, 0, 0);
	print_message("plain job, nothing paid: %u stalls of 4000 fresh samples\n", stalls);
	assert_true(plain->kernel_events_known && plain->kernel_events);
	assert_true(stalls > 1800 && stalls < 2200);
	/* stalls pay 1 in 4, priorities never (the bundled ledger's race across a write()) */
	stalls = stalls_among_fresh(plain, buf, len, 2000, 4, 0);
	print_message("stalls paying: %u stalls of 2000, share %u/1024\n", stalls,
		      schedule_stall_share(plain));
	assert_int_equal(schedule_stall_share(plain), 1024 - 128);
	/* and the other way round: priorities pay, stalls no more */
	plain->samplers[SAMPLER_STALL] = (struct arm_tally){.tried = 1000, .paid = 0};
	plain->samplers[SAMPLER_PCT] = (struct arm_tally){.tried = 1000, .paid = 250};
	assert_int_equal(schedule_stall_share(plain), 128);
	plain->samplers[SAMPLER_PCT] = (struct arm_tally){.tried = 1000, .paid = 0};
	assert_int_equal(schedule_stall_share(plain), 512);

	(void)instrumented; /* an instrumented job's: test_an_instrumented_jobs_walks */

	setenv("REWIND_MUTATOR_SAMPLER", "stall", 1);
	pinned = new_mutator(21);
	unsetenv("REWIND_MUTATOR_SAMPLER");
	pinned->fixed_local_share = 0;
	assert_int_equal(stalls_among_fresh(pinned, buf, len, 500, 0, 0), 500);
	unlink(plain_path);
	unlink(instrumented_path);
}

/*
 * Fresh samples of an instrumented job's pct entry, n of them: how many were
 * walks; walks pay every walk_pays_every-th, PCT samples every
 * pct_pays_every-th (0: never). Every one parses; a walk is a pct input with
 * the walk flag, no records and a new seed.
 */
static uint32_t walks_among_fresh(struct schedule_mutator *m, const uint8_t *buf, size_t len, int n,
				  int walk_pays_every, int pct_pays_every)
{
	static struct exec_input got;
	uint32_t walks = 0;

	for (int i = 0; i < n; i++) {
		uint8_t *out;
		size_t o = afl_custom_fuzz(m, (uint8_t *)buf, len, &out, NULL, 0, INPUT_MAX_SIZE);
		bool walk = m->last_sampler == SAMPLER_WALK;
		int every = walk ? walk_pays_every : pct_pays_every;

		assert_int_equal(input_parse(out, o, &got, NULL, 0), 0);
		assert_int_equal(got.mode, INPUT_MODE_PCT);
		assert_true(walk || m->last_sampler == SAMPLER_PCT);
		assert_int_equal(!!(got.flags & INPUT_FLAG_WALK), walk);
		if (walk)
			assert_int_equal(got.schedule.count, 0);
		walks += walk;
		if (every && m->samplers[m->last_sampler].tried % (uint32_t)every == 0)
			afl_custom_queue_new_entry(m, (const unsigned char *)"new",
						   (const unsigned char *)"parent");
	}
	return walks;
}

/* A mutator for walks_among_fresh: fresh samples only, the job as progress_path says. */
static struct schedule_mutator *fresh_only_mutator(unsigned int seed, const char *progress_path)
{
	struct schedule_mutator *m = new_mutator(seed);

	m->progress_path = progress_path;
	m->fixed_local_share = 0;
	return m;
}

/*
 * By default an instrumented job (the harness says the guest kernel does
 * not make its events) gets fresh samples from PCT and walks: a walk first,
 * then walks a quarter of them while neither has paid, the share following
 * what paid within 1/8 and 5/16 (REWIND_MUTATOR_SAMPLER=mix, the name it
 * had when it was not the default, is the same). REWIND_MUTATOR_SAMPLER=pct
 * pins PCT. Before the harness has said which kind of job it is, and on a
 * plain job, no walk is drawn; REWIND_MUTATOR_SAMPLER=walk pins walks where
 * they serve (an instrumented job), and a plain job's fresh samples stay
 * PCT's and stalls'.
 */
static void test_an_instrumented_jobs_walks(void **state)
{
	static uint8_t buf[INPUT_MAX_SIZE];
	size_t len = pct_input(buf);
	char instrumented_path[] = "/tmp/rewind-test-progress-XXXXXX";
	char plain_path[] = "/tmp/rewind-test-progress-XXXXXX";
	struct schedule_mutator *m, *unknown, *pinned, *pinned_plain, *pct_only, *mix;
	uint32_t walks;

	(void)state;
	write_progress(instrumented_path, false);
	write_progress(plain_path, true);
	setenv("REWIND_MUTATOR_SAMPLER", "pct", 1);
	pct_only = fresh_only_mutator(31, instrumented_path);
	setenv("REWIND_MUTATOR_SAMPLER", "mix", 1);
	mix = fresh_only_mutator(31, instrumented_path);
	unsetenv("REWIND_MUTATOR_SAMPLER");
	assert_int_equal(walks_among_fresh(pct_only, buf, len, 500, 0, 0), 0);
	assert_true(pct_only->kernel_events_known && !pct_only->kernel_events);
	assert_int_equal(mix->fixed_sampler, SAMPLERS_AUTO);
	unknown = fresh_only_mutator(31, NULL); /* no progress file: the job's kind never known */
	assert_int_equal(walks_among_fresh(unknown, buf, len, 500, 0, 0), 0);

	m = fresh_only_mutator(31, instrumented_path);
	assert_int_equal(schedule_walk_share(m), WALK_SHARE_START);   /* the prior */
	assert_int_equal(walks_among_fresh(m, buf, len, 1, 0, 0), 1); /* the first is a walk */
	walks = walks_among_fresh(m, buf, len, 4000, 0, 0);
	assert_true(m->kernel_events_known && !m->kernel_events);
	print_message("instrumented job, nothing paid: %u walks of 4000 fresh samples\n", walks);
	assert_true(walks > 900 && walks < 1100);
	/* walks pay 1 in 4, PCT samples never (a torn publish among many threads) */
	walks = walks_among_fresh(m, buf, len, 2000, 4, 0);
	print_message("walks paying: %u walks of 2000, share %u/1024\n", walks,
		      schedule_walk_share(m));
	assert_int_equal(schedule_walk_share(m), 320);
	assert_true(walks > 500 && walks < 760);
	/* and the other way round, from a new start: PCT pays, walks never (turn_game) */
	m->samplers[SAMPLER_WALK] = m->samplers[SAMPLER_PCT] = (struct arm_tally){0};
	walks = walks_among_fresh(m, buf, len, 4000, 0, 4);
	print_message("PCT paying: %u walks of 4000, share %u/1024\n", walks,
		      schedule_walk_share(m));
	assert_int_equal(schedule_walk_share(m), 128);
	/* at even rates walks weigh a third of PCT; three times the rate would be half: capped */
	m->samplers[SAMPLER_WALK] = (struct arm_tally){.tried = 1000, .paid = 99};
	m->samplers[SAMPLER_PCT] = (struct arm_tally){.tried = 1000, .paid = 99};
	assert_int_equal(schedule_walk_share(m), 256);
	m->samplers[SAMPLER_WALK] = (struct arm_tally){.tried = 998, .paid = 299};
	assert_int_equal(schedule_walk_share(m), 320);
	m->samplers[SAMPLER_WALK] = (struct arm_tally){.tried = 998, .paid = 119}; /* 1.2 times */
	assert_int_equal(schedule_walk_share(m), 293);
	m->samplers[SAMPLER_WALK] = (struct arm_tally){.tried = 1000, .paid = 0};
	assert_int_equal(schedule_walk_share(m), 128);
	m->samplers[SAMPLER_PCT] = (struct arm_tally){.tried = 1000, .paid = 0};
	assert_int_equal(schedule_walk_share(m), 256);

	setenv("REWIND_MUTATOR_SAMPLER", "walk", 1);
	pinned = fresh_only_mutator(31, instrumented_path);
	pinned_plain = fresh_only_mutator(31, plain_path);
	unsetenv("REWIND_MUTATOR_SAMPLER");
	assert_int_equal(walks_among_fresh(pinned, buf, len, 500, 0, 0), 500);
	assert_int_equal(stalls_among_fresh(pinned_plain, buf, len, 500, 0, 0), 0);
	assert_int_equal(pinned_plain->samplers[SAMPLER_PCT].tried, 500);
	unlink(instrumented_path);
	unlink(plain_path);
}

/*
 * A walk entry's local changes keep it a walk: a new seed, a priority
 * record, or a step-kind change; never a `demote` (the walk draws its own
 * switches), also where the input spliced from has one.
 */
static void test_walk_entries_change_as_walks(void **state)
{
	struct schedule_mutator *m = new_mutator(37);
	static uint8_t buf[INPUT_MAX_SIZE], parent[INPUT_MAX_SIZE];
	static struct exec_input in = {.seed = 5, .mode = INPUT_MODE_PCT, .flags = INPUT_FLAG_WALK},
				 got;
	size_t len = input_encode(&in, buf), parent_len = pct_input(parent);
	uint32_t new_seeds = 0, priorities = 0;

	(void)state;
	m->fixed_local_share = 1024; /* local changes only */
	for (int i = 0; i < 4000; i++) {
		uint8_t *out;
		size_t o = afl_custom_fuzz(m, buf, len, &out, parent, parent_len, INPUT_MAX_SIZE);

		assert_int_equal(input_parse(out, o, &got, NULL, 0), 0);
		assert_int_equal(got.mode, INPUT_MODE_PCT);
		assert_true(got.flags & INPUT_FLAG_WALK);
		new_seeds += got.seed != in.seed;
		for (uint32_t r = 0; r < got.schedule.count; r++) {
			assert_int_not_equal(got.schedule.at[r].kind, INJECT_DEMOTE);
			priorities += got.schedule.at[r].kind == INJECT_PRIORITY;
		}
	}
	print_message("4000 changes of a walk: %u new seeds, %u priority records\n", new_seeds,
		      priorities);
	assert_true(new_seeds > 1500);
	assert_true(priorities > 1500);
}

/*
 * With the job's event count known (read from the harness's progress file,
 * REWIND_PROGRESS_FILE), most moves of a change point go by whole events,
 * to a neighbouring one; without it, most moves of a few events' worth of
 * position keep it on the same event (the position is a fraction of the
 * job's events: event = position * events / 2^32).
 */
static void test_change_points_move_by_events(void **state)
{
	static const uint64_t events = 300;
	struct schedule_mutator *m = new_mutator(11), *blind = new_mutator(11);
	static uint8_t buf[INPUT_MAX_SIZE];
	static struct exec_input in = {.seed = 5, .mode = INPUT_MODE_PCT}, got;
	char path[] = "/tmp/rewind-test-progress-XXXXXX";
	int fd = mkstemp(path);
	const char *text = "{\"execs\": 3, \"seconds\": 1.5, \"pct_events\": 300, "
			   "\"pct_racy_events\": 30, \"pct_racy_estimate\": 40}\n";
	uint32_t near[2] = {0, 0}, same[2] = {0, 0};
	size_t len;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	in.schedule.count = 1;
	/* the middle of event 150 of 300: a move of less than half an event keeps it there */
	in.schedule.at[0] = (struct injection){
		.step = 0x80000000u + 0x100000000ull / 600, .kind = INJECT_DEMOTE, .arg = 2};
	len = input_encode(&in, buf);
	m->progress_path = path;
	m->fixed_local_share = blind->fixed_local_share = 1024; /* local changes only */
	for (int k = 0; k < 2; k++) {
		struct schedule_mutator *who = k ? blind : m;

		for (int i = 0; i < 20000; i++) {
			uint8_t *out;
			size_t n = afl_custom_fuzz(who, buf, len, &out, NULL, 0, INPUT_MAX_SIZE);
			uint64_t from = 150, to;

			assert_int_equal(input_parse(out, n, &got, NULL, 0), 0);
			if (got.seed != in.seed || got.schedule.count != 1 ||
			    got.schedule.at[0].kind != INJECT_DEMOTE)
				continue; /* not a move of the one change point */
			to = (uint64_t)got.schedule.at[0].step * events >> 32;
			same[k] += to == from;
			near[k] += to != from && (to > from ? to - from : from - to) <= 128;
		}
	}
	unlink(path);
	print_message(
		"moves of one change point, %" PRIu64 " events: knowing them, %u to a "
		"neighbouring event (up to 128 away), %u on the same; not knowing, %u and %u\n",
		events, near[0], same[0], near[1], same[1]);
	assert_int_equal(m->pct_events, events);
	assert_int_equal(m->pct_racy_events, 30);
	assert_int_equal(m->pct_racy_estimate, 40);
	assert_int_equal(blind->pct_events, 0);
	assert_true(near[0] > 2 * near[1]);
	assert_true(same[0] * 2 < same[1]);

	/* an input that counts racy events moves by those: 30 of them, event 15's middle
	 * (and, not knowing them, by the 300 of a plain input: mostly on the same) */
	in.flags = INPUT_FLAG_RACY;
	in.schedule.at[0].step = 0x80000000u + 0x100000000ull / 60;
	len = input_encode(&in, buf);
	for (int k = 0; k < 2; k++) {
		near[k] = same[k] = 0;
		if (k) {
			m->progress_path = NULL;
			m->pct_racy_events = 0;
		}
		for (int i = 0; i < 20000; i++) {
			uint8_t *out;
			size_t n = afl_custom_fuzz(m, buf, len, &out, NULL, 0, INPUT_MAX_SIZE);
			uint64_t to;

			assert_int_equal(input_parse(out, n, &got, NULL, 0), 0);
			if (got.seed != in.seed || got.schedule.count != 1 ||
			    got.schedule.at[0].kind != INJECT_DEMOTE)
				continue;
			to = (uint64_t)got.schedule.at[0].step * 30 >> 32;
			same[k] += to == 15;
			near[k] += to != 15;
		}
	}
	print_message("racy events: %u moves to another of 30 events, %u on the same; not "
		      "knowing them, %u and %u\n",
		      near[0], same[0], near[1], same[1]);
	assert_true(near[0] > same[0]);
	assert_true(same[0] * 3 < same[1] * 2);
	in.flags = 0;
}

/*
 * A fresh PCT sample: a new seed (a new priority order) and d - 1 demotions
 * at random positions, their priorities d - i + 1 for the i-th: in
 * decreasing order, the last at 2, all below the priorities drawn from the
 * seed. d from the mixture 2, 3, 4, 8, 12 (1 in 8 each) and 15 (3 in 8).
 * REWIND_PCT_MIXTURE=wide (benchmarks) draws 2, 3, 8, 15, 30 (1 in 8
 * each) and 49 (3 in 8); past 14 demotions a sample has wide priorities
 * (drawn 50..95, so that its 48 demotions stay below them).
 */
static void check_pct_mixture(const char *mixture, const unsigned int *eighths)
{
	struct schedule_mutator *m;
	unsigned int demotions[SCHEDULE_MAX + 1] = {0}, low = 0, high = 0;
	uint64_t last_seed = 0;
	const int draws = 20000;

	if (mixture)
		setenv("REWIND_PCT_MIXTURE", mixture, 1);
	m = new_mutator(31);
	unsetenv("REWIND_PCT_MIXTURE");
	for (int i = 0; i < draws; i++) {
		struct exec_input in;
		uint8_t *out = NULL;
		size_t n = schedule_random(m, INPUT_MODE_PCT, &out);
		char why[160];
		bool wide;

		assert_ptr_equal(out, m->out);
		if (input_parse(out, n, &in, why, sizeof(why)) < 0)
			fail_msg("sample %d rejected: %s", i, why);
		assert_int_equal(n, INPUT_HEADER_SIZE + INPUT_RECORD_SIZE * in.schedule.count);
		assert_int_equal(in.mode, INPUT_MODE_PCT);
		assert_true(in.seed != last_seed); /* a new priority order each time */
		last_seed = in.seed;
		assert_in_range(in.schedule.count, 1, PCT_WIDE_DEPTH_MAX - 1);
		wide = in.schedule.count > PCT_DEPTH_MAX - 1;
		assert_int_equal(in.flags & INPUT_FLAG_WIDE, wide ? INPUT_FLAG_WIDE : 0);
		demotions[in.schedule.count]++;
		for (uint32_t k = 0; k < in.schedule.count; k++) {
			const struct injection *inj = &in.schedule.at[k];

			assert_int_equal(inj->kind, INJECT_DEMOTE);
			assert_int_equal(inj->arg, in.schedule.count + 1 - k); /* d - i + 1 */
			assert_true(inj->arg < (wide ? PCT_PRIO_WIDE_MIN : PCT_PRIO_DRAWN_MIN));
			low += inj->step < 0x80000000u;
			high += inj->step >= 0x80000000u;
		}
	}
	print_message("%s mixture: pct samples with 1, 2, 3, 7, 8, 11, 14, 29, 48 demotions: %u %u "
		      "%u %u %u %u %u %u %u; positions %u below 2^31, %u above\n",
		      mixture ? mixture : "default", demotions[1], demotions[2], demotions[3],
		      demotions[7], demotions[8], demotions[11], demotions[14], demotions[29],
		      demotions[48], low, high);
	for (unsigned int c = 0; c < PCT_WIDE_DEPTH_MAX; c++) /* each within 10% of its share */
		assert_in_range(demotions[c] * 80u, eighths[c] * (unsigned int)draws * 9,
				eighths[c] * (unsigned int)draws * 11);
	assert_true(low > 1000 && high > 1000); /* positions anywhere in the run */
}

static void test_random_pct_samples(void **state)
{
	static const unsigned int wide[PCT_WIDE_DEPTH_MAX] = {
		[1] = 1, [2] = 1, [7] = 1, [14] = 1, [29] = 1, [48] = 3};
	static const unsigned int narrow[PCT_WIDE_DEPTH_MAX] = {
		[1] = 1, [2] = 1, [3] = 1, [7] = 1, [11] = 1, [14] = 3};

	(void)state;
	check_pct_mixture(NULL, narrow);
	check_pct_mixture("wide", wide);
	check_pct_mixture("otherwise", narrow); /* refused, said on stderr */
}

/*
 * REWIND_PCT_DEPTH fixes d for benchmarks; a value out of 1..49 is
 * refused and the mixture used.
 */
static void test_random_pct_depth_from_env(void **state)
{
	struct schedule_mutator *fixed, *refused;
	unsigned int other = 0;

	(void)state;
	setenv("REWIND_PCT_DEPTH", "5", 1);
	fixed = new_mutator(41);
	setenv("REWIND_PCT_DEPTH", "50", 1);
	refused = new_mutator(41);
	unsetenv("REWIND_PCT_DEPTH");
	for (int i = 0; i < 200; i++) {
		uint8_t *out = NULL;
		struct exec_input in;
		size_t n = schedule_random(fixed, INPUT_MODE_PCT, &out);

		assert_int_equal(input_parse(out, n, &in, NULL, 0), 0);
		assert_int_equal(in.schedule.count, 4);
		n = schedule_random(refused, INPUT_MODE_PCT, &out);
		assert_int_equal(input_parse(out, n, &in, NULL, 0), 0);
		other += in.schedule.count != 4;
	}
	assert_true(other > 100);
}

/*
 * Fresh PCT samples count racy events in racy_eighths of 8: half of them by
 * default, as REWIND_PCT_RACY says for benchmarks (0 none, 8 all); a value
 * out of 0..8 is refused and the default used. None of the first 16 does
 * by default (REWIND_PCT_RACY_AFTER=0: from the first). Local changes keep
 * the flag of the entry they change.
 */
static void test_racy_samples(void **state)
{
	static const char *const values[] = {NULL, "0", "8", "9"};
	static const unsigned int low[] = {350, 0, 800, 350}, high[] = {450, 0, 800, 450};

	(void)state;
	for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
		struct schedule_mutator *m;
		unsigned int racy = 0;

		if (values[v])
			setenv("REWIND_PCT_RACY", values[v], 1);
		setenv("REWIND_PCT_RACY_AFTER", "0", 1); /* the share from the first sample on */
		m = new_mutator(43);
		unsetenv("REWIND_PCT_RACY");
		unsetenv("REWIND_PCT_RACY_AFTER");
		for (int i = 0; i < 800; i++) {
			uint8_t *out = NULL;
			struct exec_input in;
			size_t n = schedule_random(m, INPUT_MODE_PCT, &out);

			assert_int_equal(input_parse(out, n, &in, NULL, 0), 0);
			racy += (in.flags & INPUT_FLAG_RACY) != 0;
		}
		if (racy < low[v] || racy > high[v])
			fail_msg("REWIND_PCT_RACY %s: %u racy samples of 800, wanted %u..%u",
				 values[v] ? values[v] : "unset", racy, low[v], high[v]);
		afl_custom_deinit(m);
		mutators[0] = NULL;
	}

	/* racy samples start after PCT_RACY_AFTER plain ones, or as REWIND_PCT_RACY_AFTER says */
	for (unsigned int after = 0; after <= PCT_RACY_AFTER; after += PCT_RACY_AFTER) {
		struct schedule_mutator *m;
		unsigned int first_racy = 0;

		if (after != PCT_RACY_AFTER)
			setenv("REWIND_PCT_RACY_AFTER", "0", 1);
		m = new_mutator(45);
		unsetenv("REWIND_PCT_RACY_AFTER");
		for (unsigned int i = 1; i <= 200 && !first_racy; i++) {
			uint8_t *out = NULL;
			struct exec_input in;
			size_t n = schedule_random(m, INPUT_MODE_PCT, &out);

			assert_int_equal(input_parse(out, n, &in, NULL, 0), 0);
			if (in.flags & INPUT_FLAG_RACY)
				first_racy = i;
		}
		print_message("racy after %u: the first racy sample is sample %u\n", after,
			      first_racy);
		assert_true(first_racy > after && first_racy <= after + 8);
		afl_custom_deinit(m);
		mutators[0] = NULL;
	}

	/* a local change keeps the entry's flag */
	setenv("REWIND_MUTATOR_LOCAL_SHARE", "1024", 1);
	setenv("REWIND_PCT_RACY", "0", 1);
	{
		struct schedule_mutator *m = new_mutator(47);
		static uint8_t buf[INPUT_MAX_SIZE];
		size_t len = pct_input(buf);
		unsigned int kept = 0;

		unsetenv("REWIND_MUTATOR_LOCAL_SHARE");
		unsetenv("REWIND_PCT_RACY");
		buf[6] = INPUT_FLAG_RACY;
		for (int i = 0; i < 200; i++) {
			uint8_t *out = NULL;
			struct exec_input in;
			size_t n = afl_custom_fuzz(m, buf, len, &out, NULL, 0, INPUT_MAX_SIZE);

			assert_int_equal(input_parse(out, n, &in, NULL, 0), 0);
			kept += (in.flags & INPUT_FLAG_RACY) != 0;
		}
		/* all but those where a round of the change was a fresh sample (1 in 9 a round) */
		if (kept < 120)
			fail_msg("local changes kept racy-events in %u of 200", kept);
	}
}

/*
 * The racy inputs of one search share one key, the high half of their seed
 * (input_racy_key), from which the harness draws the profile samples that
 * learn their sites: fresh racy samples and local changes of a racy entry
 * keep it, a mutator that meets a racy entry first takes that entry's key,
 * plain samples draw whole seeds, and two mutators draw two keys.
 */
static void test_racy_inputs_share_a_key(void **state)
{
	struct schedule_mutator *m[3];
	uint32_t key[2];
	unsigned int plain_other = 0, racy = 0;

	(void)state;
	setenv("REWIND_PCT_RACY_AFTER", "0", 1);
	m[0] = new_mutator(51);
	m[1] = new_mutator(52);
	setenv("REWIND_MUTATOR_LOCAL_SHARE", "1024", 1);
	m[2] = new_mutator(53);
	unsetenv("REWIND_MUTATOR_LOCAL_SHARE");
	unsetenv("REWIND_PCT_RACY_AFTER");
	for (int k = 0; k < 2; k++) {
		bool seen = false;

		for (int i = 0; i < 400; i++) {
			uint8_t *out = NULL;
			struct exec_input in;
			size_t n = schedule_random(m[k], INPUT_MODE_PCT, &out);

			assert_int_equal(input_parse(out, n, &in, NULL, 0), 0);
			if (!(in.flags & INPUT_FLAG_RACY)) {
				plain_other += seen && input_racy_key(&in) != key[k];
				continue;
			}
			racy++;
			if (!seen)
				key[k] = input_racy_key(&in);
			seen = true;
			assert_int_equal(input_racy_key(&in), key[k]);
		}
		assert_true(seen);
	}
	assert_true(key[0] != key[1]);
	assert_true(plain_other > 100); /* plain samples' seeds are whole random numbers */
	/* a mutator whose first racy input is a queue entry's goes on with its key */
	{
		static uint8_t buf[INPUT_MAX_SIZE];
		struct exec_input entry = {.seed = 0x12345678deadbeefull,
					   .mode = INPUT_MODE_PCT,
					   .flags = INPUT_FLAG_RACY};
		size_t len = input_encode(&entry, buf);

		for (int i = 0; i < 200; i++) {
			uint8_t *out = NULL;
			struct exec_input in;
			size_t n = afl_custom_fuzz(m[2], buf, len, &out, NULL, 0, INPUT_MAX_SIZE);

			assert_int_equal(input_parse(out, n, &in, NULL, 0), 0);
			if (in.flags & INPUT_FLAG_RACY)
				assert_int_equal(input_racy_key(&in), 0x12345678u);
		}
	}
	print_message("%u racy samples, keys %08x and %08x\n", racy, key[0], key[1]);
}

/*
 * The racy-site profile's samples: plain PCT samples of the narrow mixture
 * (1-14 change points, no wide priorities: what version-3 artifacts' profiles
 * drew), a function of the key and their number alone, whatever a benchmark
 * variable says; another key, other samples.
 */
static void test_profile_samples(void **state)
{
	struct exec_input a, b, c;

	(void)state;
	setenv("REWIND_PCT_DEPTH", "2", 1);
	profile_sample(7, 1, &a);
	unsetenv("REWIND_PCT_DEPTH");
	profile_sample(7, 1, &b);
	assert_int_equal(a.seed, b.seed);
	assert_int_equal(a.schedule.count, b.schedule.count);
	assert_memory_equal(a.schedule.at, b.schedule.at,
			    a.schedule.count * sizeof(a.schedule.at[0]));
	for (uint32_t key = 0; key < 64; key++) {
		for (uint32_t i = 1; i <= 3; i++) {
			profile_sample(key, i, &c);
			assert_int_equal(c.mode, INPUT_MODE_PCT);
			assert_int_equal(c.flags, 0);
			assert_in_range(c.schedule.count, 1, PCT_DEPTH_MAX - 1);
			for (uint32_t j = 0; j < c.schedule.count; j++)
				assert_int_equal(c.schedule.at[j].kind, INJECT_DEMOTE);
		}
	}
	profile_sample(8, 1, &c);
	assert_true(c.seed != a.seed);
	profile_sample(7, 2, &c);
	assert_true(c.seed != a.seed);
}

/* The number of the first racy sample among m's first 200 fresh samples (0: none). */
static unsigned int first_racy_sample(struct schedule_mutator *m)
{
	for (unsigned int i = 1; i <= 200; i++) {
		uint8_t *out = NULL;
		struct exec_input in;
		size_t n = schedule_random(m, INPUT_MODE_PCT, &out);

		assert_int_equal(input_parse(out, n, &in, NULL, 0), 0);
		if (in.flags & INPUT_FLAG_RACY)
			return i;
	}
	return 0;
}

/*
 * The harness's estimate of the racy events decides when racy samples
 * start: from the first where it is three fifths of k or less (the map's
 * profile runs are samples themselves, harness/executor.c), never where
 * it is more, after PCT_RACY_AFTER plain ones when there is none; a
 * benchmark's REWIND_PCT_RACY_AFTER overrides it.
 */
static void test_racy_estimate_decides(void **state)
{
	static const struct {
		uint64_t estimate;
		const char *after;
		unsigned int from, to; /* the first racy sample's number, 0: none */
	} cases[] = {
		{141, NULL, 1, 8},				   /* reorder_many's 141 of 3,189 */
		{1200, NULL, 1, 8},				   /* cut by three eighths */
		{1913, NULL, 1, 8},				   /* three fifths, rounded down */
		{0, NULL, PCT_RACY_AFTER + 1, PCT_RACY_AFTER + 8}, /* no estimate */
		{1914, NULL, 0, 0},				   /* just above three fifths */
		{1914, "0", 1, 8},				   /* the benchmark says */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct schedule_mutator *m;
		unsigned int first;

		if (cases[i].after)
			setenv("REWIND_PCT_RACY_AFTER", cases[i].after, 1);
		m = new_mutator(49);
		unsetenv("REWIND_PCT_RACY_AFTER");
		m->pct_events = 3189;
		m->pct_racy_estimate = cases[i].estimate;
		first = first_racy_sample(m);
		print_message("estimate %" PRIu64 " of 3189: the first racy sample is %u\n",
			      cases[i].estimate, first);
		if (first < cases[i].from || first > cases[i].to)
			fail_msg("estimate %" PRIu64 ": first racy sample %u, wanted %u..%u",
				 cases[i].estimate, first, cases[i].from, cases[i].to);
		afl_custom_deinit(m);
		mutators[0] = NULL;
	}
}

/*
 * schedule_random in steps and counter mode: 1-4 random injections of the
 * mode's kinds, never pct's; in counter mode, preemptions at blocks.
 */
static void test_random_other_modes(void **state)
{
	struct schedule_mutator *m = new_mutator(37);
	unsigned int counts[2][SCHEDULE_MAX + 1] = {{0}}, preempts = 0, empty = 0;

	(void)state;
	for (int i = 0; i < 40000; i++) {
		uint8_t mode = i % 2 ? INPUT_MODE_COUNTER : INPUT_MODE_STEPS;
		struct exec_input in;
		uint8_t *out = NULL;
		size_t n = schedule_random(m, mode, &out);
		char why[160];

		assert_ptr_equal(out, m->out);
		if (input_parse(out, n, &in, why, sizeof(why)) < 0)
			fail_msg("random input %d rejected: %s", i, why);
		assert_int_equal(in.mode, mode);
		assert_in_range(in.schedule.count, 0, 4);
		counts[mode][in.schedule.count]++;
		empty += in.schedule.count == 0;
		for (uint32_t k = 0; k < in.schedule.count; k++) {
			uint8_t kind = in.schedule.at[k].kind;

			assert_false(is_pct_kind(kind));
			if (mode == INPUT_MODE_STEPS)
				assert_int_not_equal(kind, INJECT_PREEMPT);
			preempts += kind == INJECT_PREEMPT;
		}
	}
	print_message("random inputs: steps %u/%u/%u/%u/%u, counter %u/%u/%u/%u/%u with 0/1/2/3/4 "
		      "injections; %u preemptions at blocks\n",
		      counts[0][0], counts[0][1], counts[0][2], counts[0][3], counts[0][4],
		      counts[1][0], counts[1][1], counts[1][2], counts[1][3], counts[1][4],
		      preempts);
	assert_true(preempts > 10000);
	for (int mode = 0; mode < 2; mode++)
		for (int c = 1; c <= 4; c++)
			assert_true(counts[mode][c] > 0);
	if (empty)
		fail_msg("%u of 40000 random steps/counter inputs have no injection, not 1-4",
			 empty);
}

/*
 * The mode of a mutant: its header is a valid one with this mode byte
 * (whether its records are valid, the tests above check).
 */
static uint8_t mutant_mode(const uint8_t *out, size_t n)
{
	assert_true(n >= INPUT_HEADER_SIZE);
	assert_memory_equal(out, "RWSI\x01", 5);
	assert_int_equal((out[6] & ~INPUT_FLAGS_KNOWN) | out[7], 0);
	if (out[6]) /* racy-events, wide priorities: pct mode's samples */
		assert_int_equal(out[5], INPUT_MODE_PCT);
	return out[5];
}

/*
 * An invalid buffer is mutated from what input_decode makes of it: it
 * keeps its decoded mode (mode byte modulo 3), not steps.
 */
static void test_invalid_input_keeps_decoded_mode(void **state)
{
	static const uint8_t mode_bytes[] = {0, 1, 2, 3, 4, 5, 200, 255};
	void *m = new_mutator(41);
	static uint8_t buf[INPUT_MAX_SIZE];
	static struct exec_input in;
	char why[160];

	(void)state;
	for (size_t b = 0; b < sizeof(mode_bytes); b++) {
		for (int i = 0; i < 2000; i++) {
			uint8_t *out;
			size_t n;

			/* a bad magic, the mode byte, noise after it */
			memcpy(buf, "XXXX\x01", 5);
			buf[5] = mode_bytes[b];
			for (size_t j = 6; j < 64; j++)
				buf[j] = (uint8_t)(j * 131 + (size_t)i * 7);
			n = afl_custom_fuzz(m, buf, 64 - (size_t)(i % 9), &out, NULL, 0,
					    INPUT_MAX_SIZE);
			assert_int_equal(mutant_mode(out, n), mode_bytes[b] % INPUT_MODES);
		}
	}

	/* a pct input made invalid by one byte (a reserved byte) stays in pct mode */
	for (int i = 0; i < 2000; i++) {
		size_t len = pct_input(buf), n;
		uint8_t *out;

		buf[6] = (uint8_t)(1 + i % 255);
		n = afl_custom_fuzz(m, buf, len, &out, NULL, 0, INPUT_MAX_SIZE);
		assert_int_equal(mutant_mode(out, n), INPUT_MODE_PCT);
	}

	/* nothing at all: steps mode */
	for (int i = 0; i < 200; i++) {
		uint8_t *out;
		size_t n = afl_custom_fuzz(m, buf, 0, &out, NULL, 0, INPUT_MAX_SIZE);

		assert_int_equal(input_parse(out, n, &in, why, sizeof(why)), 0);
		assert_int_equal(in.mode, INPUT_MODE_STEPS);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_mutants_are_always_valid, free_mutators),
		cmocka_unit_test_teardown(test_same_seed_same_mutants, free_mutators),
		cmocka_unit_test_teardown(test_preemptions_move_together_and_land_near,
					  free_mutators),
		cmocka_unit_test_teardown(test_counter_mode_mutants, free_mutators),
		cmocka_unit_test_teardown(test_steps_mode_single_step_offsets, free_mutators),
		cmocka_unit_test_teardown(test_steps_mode_stall_samples, free_mutators),
		cmocka_unit_test_teardown(test_pct_mode_mutants, free_mutators),
		cmocka_unit_test_teardown(test_local_share_follows_what_paid, free_mutators),
		cmocka_unit_test_teardown(test_a_plain_jobs_fresh_samples_are_shared,
					  free_mutators),
		cmocka_unit_test_teardown(test_an_instrumented_jobs_walks, free_mutators),
		cmocka_unit_test_teardown(test_walk_entries_change_as_walks, free_mutators),
		cmocka_unit_test_teardown(test_change_points_move_by_events, free_mutators),
		cmocka_unit_test_teardown(test_random_pct_samples, free_mutators),
		cmocka_unit_test_teardown(test_random_pct_depth_from_env, free_mutators),
		cmocka_unit_test_teardown(test_racy_samples, free_mutators),
		cmocka_unit_test_teardown(test_racy_estimate_decides, free_mutators),
		cmocka_unit_test_teardown(test_racy_inputs_share_a_key, free_mutators),
		cmocka_unit_test_teardown(test_profile_samples, free_mutators),
		cmocka_unit_test_teardown(test_random_other_modes, free_mutators),
		cmocka_unit_test_teardown(test_invalid_input_keeps_decoded_mode, free_mutators),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

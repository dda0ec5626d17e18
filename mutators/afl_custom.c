/* SPDX-License-Identifier: MIT */
/*
 * AFL++ 4.04c's custom mutator API (docs/custom_mutators.md) around the
 * schedule mutator (mutators/schedule.c): init, fuzz, fuzz_count,
 * describe, queue_new_entry (what paid), deinit, and the environment
 * variables benchmarks set (those that shape the draws: schedule/draw.c).
 *
 *   AFL_CUSTOM_MUTATOR_LIBRARY=build/lib/rewind-mutator.so afl-fuzz ...
 */
#include "mutators/schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * REWIND_MUTATOR_SAMPLER (rewind fuzz --sampler): one sampler pinned, or
 * shared out (auto; mix, its name when it was not the default).
 */
static int8_t pinned_sampler(void)
{
	static const char *const names[SAMPLERS] = {
		[SAMPLER_PCT] = "pct", [SAMPLER_STALL] = "stall", [SAMPLER_WALK] = "walk"};
	const char *v = getenv("REWIND_MUTATOR_SAMPLER");

	if (!v || !*v || !strcmp(v, "auto") || !strcmp(v, "mix"))
		return SAMPLERS_AUTO;
	for (int i = 0; i < SAMPLERS; i++)
		if (!strcmp(v, names[i]))
			return (int8_t)i;
	fprintf(stderr,
		"rewind-mutator: REWIND_MUTATOR_SAMPLER must be pct, stall, walk, mix or auto, not "
		"'%s': the samplers are shared out by what paid\n",
		v);
	return SAMPLERS_AUTO;
}

void *afl_custom_init(void *afl, unsigned int seed)
{
	struct schedule_mutator *m = calloc(1, sizeof(*m));

	(void)afl;
	if (!m)
		return NULL;
	m->last_arm = PCT_ARM_NONE;
	m->last_sampler = SAMPLER_NONE;
	m->fixed_sampler = pinned_sampler();
	/* for benchmarks that set shares or depths side by side */
	m->fixed_local_share = (int32_t)draw_env_number("REWIND_MUTATOR_LOCAL_SHARE", 0, 1024, -1,
							"the adaptive share is used");
	draw_init(&m->draw, seed);
	m->progress_path = getenv("REWIND_PROGRESS_FILE");
	return m;
}

size_t afl_custom_fuzz(void *data, unsigned char *buf, size_t buf_size, unsigned char **out_buf,
		       unsigned char *add_buf, size_t add_buf_size, size_t max_size)
{
	return schedule_mutate(data, buf, buf_size, add_buf, add_buf_size, out_buf, max_size);
}

/*
 * Mutants per queue entry and cycle, the same for every entry: without this
 * afl-fuzz doubles the count while an entry keeps giving new coverage, and
 * a schedule search, where most new preemption sites are new coverage,
 * would stay on its first entry for thousands of executions instead of
 * going on from the entries that reached further into the run.
 */
uint32_t afl_custom_fuzz_count(void *data, const unsigned char *buf, size_t buf_size)
{
	(void)data;
	(void)buf;
	(void)buf_size;
	return SCHEDULE_MUTANTS_PER_ENTRY;
}

const char *afl_custom_describe(void *data, size_t max_description_len)
{
	(void)data;
	return max_description_len >= 8 ? "schedule" : "";
}

/* afl-fuzz kept the last mutant as a new queue entry (at startup, a seed: no mutant). */
uint8_t afl_custom_queue_new_entry(void *data, const unsigned char *filename_new_queue,
				   const unsigned char *filename_orig_queue)
{
	(void)filename_new_queue;
	if (filename_orig_queue)
		schedule_mutant_paid(data);
	return 0; /* the entry's file is left as it is */
}

/* At the end: PCT's fresh samples and other's, what each paid, and other's share. */
static void say_samplers(const struct schedule_mutator *m, enum sampler other, const char *what,
			 const char *name, uint32_t share)
{
	fprintf(stderr,
		"rewind-mutator: fresh samples: %u pct (%u new entries), %u %s (%u new entries); "
		"%s share at the end %u/1024\n",
		m->samplers[SAMPLER_PCT].tried, m->samplers[SAMPLER_PCT].paid,
		m->samplers[other].tried, what, m->samplers[other].paid, name, share);
}

void afl_custom_deinit(void *data)
{
	struct schedule_mutator *m = data;

	if (m && m->arms[PCT_ARM_FRESH].tried + m->arms[PCT_ARM_LOCAL].tried)
		fprintf(stderr,
			"rewind-mutator: pct mutants: %u fresh samples (%u new entries), %u local "
			"changes (%u new entries); local share at the end %u/1024\n",
			m->arms[PCT_ARM_FRESH].tried, m->arms[PCT_ARM_FRESH].paid,
			m->arms[PCT_ARM_LOCAL].tried, m->arms[PCT_ARM_LOCAL].paid,
			schedule_local_share(m));
	if (m && m->samplers[SAMPLER_STALL].tried && m->samplers[SAMPLER_PCT].tried)
		say_samplers(m, SAMPLER_STALL, "stalls at exits", "stall", schedule_stall_share(m));
	if (m && m->samplers[SAMPLER_WALK].tried && m->samplers[SAMPLER_PCT].tried)
		say_samplers(m, SAMPLER_WALK, "walks", "walk", schedule_walk_share(m));
	free(data);
}

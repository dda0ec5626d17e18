/* SPDX-License-Identifier: MIT */
/*
 * AFL++ 4.04c's custom mutator API (docs/custom_mutators.md) around the
 * schedule mutator (mutators/schedule.c): init, fuzz, fuzz_count,
 * describe, queue_new_entry (what paid), deinit, and the environment
 * variables benchmarks set.
 *
 *   AFL_CUSTOM_MUTATOR_LIBRARY=build/lib/rewind-mutator.so afl-fuzz ...
 */
#include "mutators/schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The number in environment variable name, min..max, or unset: when the
 * variable is not set, and (said, with what is used instead) when it is
 * not such a number.
 */
static long env_number(const char *name, long min, long max, long unset, const char *instead)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return unset;
	n = strtol(v, &end, 10);
	if (*end || n < min || n > max) {
		fprintf(stderr, "rewind-mutator: %s must be %ld..%ld, not '%s': %s\n", name, min,
			max, v, instead);
		return unset;
	}
	return n;
}

/* REWIND_PCT_MIXTURE=wide: samples of up to 48 change points, for benchmarks */
static bool wide_mixture_asked(void)
{
	const char *v = getenv("REWIND_PCT_MIXTURE");

	if (!v || !*v || strcmp(v, "narrow") == 0)
		return false;
	if (strcmp(v, "wide") == 0)
		return true;
	fprintf(stderr,
		"rewind-mutator: REWIND_PCT_MIXTURE must be narrow or wide, not '%s': the narrow "
		"mixture is used\n",
		v);
	return false;
}

void *afl_custom_init(void *afl, unsigned int seed)
{
	struct schedule_mutator *m = calloc(1, sizeof(*m));

	(void)afl;
	if (!m)
		return NULL;
	m->rng = 0x9e3779b97f4a7c15ull ^ seed;
	m->last_arm = PCT_ARM_NONE;
	/* for benchmarks that set shares or depths side by side */
	m->fixed_local_share = (int32_t)env_number("REWIND_MUTATOR_LOCAL_SHARE", 0, 1024, -1,
						   "the adaptive share is used");
	m->fixed_depth = (uint8_t)env_number("REWIND_PCT_DEPTH", 1, PCT_WIDE_DEPTH_MAX, 0,
					     "the mixture of depths is used");
	m->wide_mixture = wide_mixture_asked();
	m->racy_eighths = (uint8_t)env_number("REWIND_PCT_RACY", 0, 8, PCT_RACY_EIGHTHS,
					      "half the PCT samples count racy events");
	m->racy_after = (uint32_t)env_number("REWIND_PCT_RACY_AFTER", 0, 1000000, PCT_RACY_AFTER,
					     "racy samples start after 16 plain ones");
	/* a benchmark that says when racy samples start gets just that */
	m->racy_by_estimate = !getenv("REWIND_PCT_RACY_AFTER");
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
	free(data);
}

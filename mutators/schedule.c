/* SPDX-License-Identifier: MIT */
/*
 * An AFL++ custom mutator for rewind-harness inputs (docs/input-format.md):
 * it parses the input and mutates the schedule itself (move an injection by
 * a few steps, change its kind or argument, add, remove or splice one,
 * change the seed), so every input it makes is valid and is a small change
 * to the run. In pct mode its changes are PCT-shaped: fresh PCT samples, a
 * new priority order, a thread first or last, change points moved, added
 * (below the others) or dropped. afl-fuzz still applies its own byte-level
 * mutations alongside (unless AFL_CUSTOM_MUTATOR_ONLY=1). afl-fuzz calls it
 * through mutators/afl_custom.c.
 */
#include "mutators/schedule.h"

#include "harness/profile_sample.h"
#include "mutators/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Stall and lateness values that matter for races: µs to tens of ms. */
static const uint16_t interesting_us[] = {1,	5,    10,   50,	   100,	  250,	 500,
					  1000, 2000, 5000, 10000, 20000, 40000, 65535};
#define N_INTERESTING (sizeof(interesting_us) / sizeof(interesting_us[0]))

#define STEP_HORIZON 32 /* new injections land up to this far past the last one */

static uint64_t next_random(struct schedule_mutator *m)
{
	/* xorshift64*: deterministic for a given afl-fuzz seed */
	m->rng ^= m->rng >> 12;
	m->rng ^= m->rng << 25;
	m->rng ^= m->rng >> 27;
	return m->rng * 0x2545f4914f6cdd1dull;
}

static uint32_t below(struct schedule_mutator *m, uint32_t n)
{
	return n ? (uint32_t)((next_random(m) >> 32) % n) : 0;
}

static uint16_t random_us(struct schedule_mutator *m)
{
	if (below(m, 4) == 0)
		return (uint16_t)(1 + below(m, 65535));
	return interesting_us[below(m, N_INTERESTING)];
}

static uint32_t last_step(const struct schedule *s)
{
	uint32_t last = 0;

	for (uint32_t i = 0; i < s->count; i++)
		if (s->at[i].step > last)
			last = s->at[i].step;
	return last;
}

/* A kind the input's mode allows: `preempt` only in counter mode. */
static uint8_t random_kind(struct schedule_mutator *m, uint8_t mode)
{
	static const uint8_t step_kinds[] = {INJECT_RESCHED, INJECT_STALL, INJECT_TIMER_LATE};

	/* counter mode: three in four new injections are preemptions at a block,
	 * what reaches races in code that makes no system call */
	if (mode == INPUT_MODE_COUNTER && below(m, 4))
		return INJECT_PREEMPT;
	/* steps mode: the one way into code between exits is single-stepping,
	 * one exit per instruction, so one in eight */
	if (mode == INPUT_MODE_STEPS && below(m, 8) == 0)
		return INJECT_PREEMPT_INSNS;
	return step_kinds[below(m, sizeof(step_kinds))];
}

/* 1 to 4096, most often small: log-uniform. */
static uint32_t small_distance(struct schedule_mutator *m)
{
	return 1 + below(m, 1u << below(m, 13));
}

static uint16_t random_arg(struct schedule_mutator *m, uint8_t kind)
{
	if (kind == INJECT_PREEMPT_INSNS) /* the whole range, log-uniform: each one is an exit */
		return (uint16_t)small_distance(m);
	return kind == INJECT_RESCHED || kind == INJECT_PREEMPT ? 0 : random_us(m);
}

/*
 * A block for a new preemption: near one the schedule has (a second
 * preemption a few blocks after a first one is how a bug of depth 3 is
 * reached: the first lets the other thread in, the second lands in it), or
 * anywhere from the job's start, the early blocks more often (log-uniform).
 */
static uint32_t random_block(struct schedule_mutator *m, const struct schedule *s)
{
	uint32_t preempts = 0, near = 0;

	for (uint32_t i = 0; i < s->count; i++)
		if (s->at[i].kind == INJECT_PREEMPT && below(m, ++preempts) == 0)
			near = s->at[i].step; /* one of them, each as likely */
	if (preempts && below(m, 2))
		return near + small_distance(m);
	return below(m, 1u << below(m, 25));
}

static struct injection random_injection(struct schedule_mutator *m, uint8_t mode,
					 const struct schedule *s)
{
	struct injection inj = {.kind = random_kind(m, mode)};

	inj.step = inj.kind == INJECT_PREEMPT ? random_block(m, s)
					      : below(m, last_step(s) + STEP_HORIZON);
	inj.arg = random_arg(m, inj.kind);
	return inj;
}

static void set_kind(struct schedule_mutator *m, uint8_t mode, struct injection *inj)
{
	inj->kind = random_kind(m, mode);
	inj->arg = random_arg(m, inj->kind);
}

static void shift(struct injection *inj, int32_t delta)
{
	if (delta < 0 && inj->step < (uint32_t)-delta)
		inj->step = 0;
	else
		inj->step += (uint32_t)delta;
}

/*
 * Moves an injection: steps by a few, blocks by up to a few thousand. Half
 * the time a preemption takes the later ones along: a second preemption
 * means "so many blocks into what runs after the first", and keeps that
 * meaning when the first moves.
 */
static void move_step(struct schedule_mutator *m, struct schedule *s, struct injection *inj)
{
	uint32_t from = inj->step;
	bool followers = inj->kind == INJECT_PREEMPT && below(m, 2);
	int32_t delta =
		(int32_t)(inj->kind == INJECT_PREEMPT ? small_distance(m) : 1 + below(m, 8));

	if (below(m, 2))
		delta = -delta;
	shift(inj, delta);
	for (uint32_t i = 0; followers && i < s->count; i++)
		if (s->at[i].kind == INJECT_PREEMPT && s->at[i].step > from && &s->at[i] != inj)
			shift(&s->at[i], delta);
}

/*
 * A single-step offset: half the time a few instructions more or less (a
 * landing in the right loop is a few instructions from its race window),
 * otherwise a new count.
 */
static void nudge_insns(struct schedule_mutator *m, struct injection *inj)
{
	int32_t delta = (int32_t)(1 + below(m, 4));
	int32_t insns;

	if (below(m, 2)) {
		inj->arg = random_arg(m, inj->kind);
		return;
	}
	insns = (int32_t)inj->arg + (below(m, 2) ? delta : -delta);
	inj->arg = (uint16_t)(insns < 1 ? 1 : insns > INJECT_INSNS_MAX ? INJECT_INSNS_MAX : insns);
}

static void change_arg(struct schedule_mutator *m, uint8_t mode, struct injection *inj)
{
	if (inj->kind == INJECT_PRIORITY || inj->kind == INJECT_DEMOTE) {
		inj->arg = (uint16_t)(1 + below(m, INJECT_PRIO_MAX));
		return;
	}
	if (inj->kind == INJECT_RESCHED || inj->kind == INJECT_PREEMPT) {
		set_kind(m, mode, inj);
		return;
	}
	if (inj->kind == INJECT_PREEMPT_INSNS) {
		nudge_insns(m, inj);
		return;
	}
	switch (below(m, 3)) {
	case 0:
		inj->arg = random_us(m);
		break;
	case 1:
		inj->arg = inj->arg > 32767 ? 65535 : (uint16_t)(inj->arg * 2 + 1);
		break;
	default:
		inj->arg /= 2;
	}
}

static void add_injection(struct schedule *s, struct injection inj)
{
	if (s->count < SCHEDULE_MAX)
		s->at[s->count++] = inj;
}

static void remove_injection(struct schedule_mutator *m, struct schedule *s)
{
	uint32_t i = below(m, s->count);

	memmove(&s->at[i], &s->at[i + 1], (s->count - i - 1) * sizeof(s->at[0]));
	s->count--;
}

/* --- pct mode: priorities and demotions ------------------------------------- */

#define PCT_THREADS_NAMED 8 /* `priority` records name threads 0..7 */

/* The demotions of s, counted. */
static uint32_t demotions(const struct schedule *s)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < s->count; i++)
		n += s->at[i].kind == INJECT_DEMOTE;
	return n;
}

/* The key of the racy inputs from here on (input_racy_key). */
static void take_racy_key(struct schedule_mutator *m, uint32_t key)
{
	m->racy_key = key;
	m->racy_key_set = true;
}

/* seed with key as its high half (input_racy_key): a racy input's seed */
static uint64_t keyed_seed(uint32_t key, uint64_t seed)
{
	return (uint64_t)key << 32 | (seed & 0xffffffffull);
}

/*
 * A new seed for in: a new priority order. A racy input keeps its key, the
 * seed's high half, so that it counts its events by the same racy sites
 * as the inputs it comes from (harness/executor.c learns them once a key).
 */
static uint64_t new_seed(struct schedule_mutator *m, const struct exec_input *in)
{
	uint64_t seed = next_random(m);

	return in->flags & INPUT_FLAG_RACY ? keyed_seed(input_racy_key(in), seed) : seed;
}

/*
 * Whether this fresh sample may count racy events. The harness's estimate
 * (the seed-0 profile's events counted by its own quiet sites, free: that
 * run is made anyway) says what the site map would do to k. Where it cuts
 * k to three fifths or less, a racy sample's change points land on racy
 * events more often, and it fails more often than a plain one: 1.5 to 3
 * times on the examples cut to 0.35-0.59 (lost_wakeup 42 of 150 against 13,
 * depth3_transfer 35 against 12, wrong_lock 111 against 75),
 * reorder_many's 141 of 3,189 events 19 against 1 (docs/performance.md,
 * "Profile runs that search"): racy samples from the first. The map's
 * profile runs cost the search nothing, since they are PCT samples of the
 * base distribution themselves (harness/executor.c profile_racy). Cut
 * less, racy samples failed as often or less (bounded_buffer, cut to
 * 0.66: 26 against 38): none, and no profile. With no estimate (a profile
 * past 25,000 events, a job not instrumented, a benchmark that sets
 * REWIND_PCT_RACY_AFTER), after racy_after plain samples.
 */
static bool racy_sample_due(const struct schedule_mutator *m)
{
	if (!m->racy_eighths)
		return false;
	if (m->racy_by_estimate && m->pct_events && m->pct_racy_estimate)
		return m->pct_racy_estimate * 5 <= m->pct_events * 3;
	return m->samples > m->racy_after;
}

/*
 * A PCT sample (Burckhardt et al., ASPLOS 2010): a new seed, so every thread
 * gets a new random priority (vmm/pct.c), and d - 1 change points at uniform
 * positions of the run, the i-th dropping the running thread to priority
 * d - i + 1 (below every initial priority, the later ones lower). A bug of
 * depth d is then hit with probability at least 1/(n k^(d-1)).
 *
 * d is drawn from a mixture that keeps depths 2 and 3 (1 sample in 8 each:
 * PCT's bound for bugs of depth 2 and 3, divided by 8) but spends most
 * samples on many change points: on the examples of guest/tests a sample
 * with 11 change points fails several times as often as one with 1
 * (docs/performance.md, "More change points"). A bug's window is hit by
 * any change point that lands in it, and on one CPU a change point
 * elsewhere seldom closes it. A sample of more than 14 change points
 * (REWIND_PCT_DEPTH=16..49, or REWIND_PCT_MIXTURE=wide: 29 and 48 in 4
 * of 8) has wide priorities (INPUT_FLAG_WIDE: the threads' drawn 50..95,
 * the demotions 49..2). Benchmarks only, for now: the wide mixture failed
 * 1.15-1.56 times as often as this one on 13 of 19 examples, but as often
 * or less on the hard ones (broken_dcl half as often; docs/performance.md,
 * "Wide priorities").
 *
 * After the first racy_after samples, racy_eighths of 8 samples count
 * racy events (INPUT_FLAG_RACY): their change points fall on events that
 * can race, seldom on the thousands a thread makes on data no other thread
 * writes (quiet sites of the job's profile runs, harness/racy_sites.c).
 * The others count every event, and keep PCT's bound.
 */
static void pct_sample(struct schedule_mutator *m, struct exec_input *in)
{
	/* the narrow mixture is the racy-site profiles' too (harness/profile_sample.c) */
	static const uint8_t wide[PROFILE_SAMPLE_DEPTHS] = {
		2, 3, 8, PCT_DEPTH_MAX, 30, [5 ... 7] = PCT_WIDE_DEPTH_MAX};
	const uint8_t *depths = m->wide_mixture ? wide : profile_sample_depths;
	uint32_t d = m->fixed_depth ? m->fixed_depth : depths[below(m, PROFILE_SAMPLE_DEPTHS)];

	in->seed = next_random(m);
	in->flags = d > PCT_DEPTH_MAX ? INPUT_FLAG_WIDE : 0;
	if (m->samples < UINT32_MAX)
		m->samples++;
	if (racy_sample_due(m) && below(m, 8) < m->racy_eighths) {
		in->flags |= INPUT_FLAG_RACY;
		if (!m->racy_key_set)
			take_racy_key(m, (uint32_t)(next_random(m) >> 32));
		in->seed = keyed_seed(m->racy_key, in->seed);
	}
	in->schedule.count = 0;
	for (uint32_t i = 1; i < d; i++)
		add_injection(&in->schedule,
			      (struct injection){.step = (uint32_t)(next_random(m) >> 32),
						 .kind = INJECT_DEMOTE,
						 .arg = (uint16_t)(d - i + 1)});
}

/* The events in's demote positions divide, as far as known (0: not yet). */
static uint64_t demote_events(const struct schedule_mutator *m, const struct exec_input *in)
{
	return in->flags & INPUT_FLAG_RACY ? m->pct_racy_events : m->pct_events;
}

/*
 * A demotion's position moved. With the job's event count known, 3 in 4
 * moves go by whole events, 1 to 128 (log-uniform), so the change point
 * lands on a neighbouring event: a near miss (a change point just before
 * the window a bug needs, which made a new interleaving of its own) is a
 * few events from a hit. Otherwise, and 1 in 4 then, anywhere from a few
 * events to much further (log-uniform over 2^32, where most moves of less
 * than 2^32 / events keep the change point on the same event).
 */
static void move_demotion(struct schedule_mutator *m, struct injection *inj, uint64_t events)
{
	uint32_t delta = 1 + below(m, 1u << below(m, 31));

	if (events && below(m, 4)) {
		uint64_t event = ((1ull << 32) + events - 1) / events;
		uint64_t d = event * (1 + below(m, 1u << below(m, 8)));

		delta = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
	}
	inj->step = below(m, 2) ? inj->step + delta : inj->step - delta;
}

/* A new demotion, near one of the schedule's or anywhere, below the others' priorities. */
static struct injection new_demotion(struct schedule_mutator *m, const struct schedule *s,
				     uint64_t events)
{
	struct injection inj = {
		.kind = INJECT_DEMOTE, .step = (uint32_t)(next_random(m) >> 32), .arg = 2};
	uint32_t n = demotions(s), lowest = INJECT_PRIO_MAX;

	for (uint32_t i = 0; i < s->count; i++)
		if (s->at[i].kind == INJECT_DEMOTE) {
			if (s->at[i].arg < lowest)
				lowest = s->at[i].arg;
			if (below(m, n) == 0 && below(m, 2))
				inj.step = s->at[i].step; /* then moved a little */
		}
	if (n && inj.step != 0)
		move_demotion(m, &inj, events);
	inj.arg = (uint16_t)(lowest > 2 ? lowest - 1 : 2);
	return inj;
}

/* The lowest priority in's threads are drawn from (vmm/pct.c): above all its demotions. */
static uint16_t lowest_drawn_priority(const struct exec_input *in)
{
	return in->flags & INPUT_FLAG_WIDE ? PCT_PRIO_WIDE_MIN : PCT_PRIO_DRAWN_MIN;
}

/* One PCT-shaped change: what pct mode's mutations are made of. */
static void mutate_pct(struct schedule_mutator *m, struct exec_input *in)
{
	struct schedule *s = &in->schedule;
	struct injection *pick = s->count ? &s->at[below(m, s->count)] : NULL;

	switch (below(m, 8)) {
	case 0: /* a fresh sample: PCT itself */
		pct_sample(m, in);
		return;
	case 1: /* another priority order */
		in->seed = new_seed(m, in);
		return;
	case 2: /* one thread first (or last of the drawn priorities, above every demotion) */
		add_injection(s,
			      (struct injection){.kind = INJECT_PRIORITY,
						 .step = below(m, PCT_THREADS_NAMED),
						 .arg = below(m, 2) ? INJECT_PRIO_MAX
								    : lowest_drawn_priority(in)});
		return;
	case 3:
	case 4:
		if (pick && pick->kind == INJECT_DEMOTE) {
			move_demotion(m, pick, demote_events(m, in));
			return;
		}
		break;
	case 5:
		if (s->count > 1 || (pick && below(m, 2))) {
			remove_injection(m, s);
			return;
		}
		break;
	default:
		break;
	}
	add_injection(s, new_demotion(m, s, demote_events(m, in)));
}

/*
 * A fresh steps-mode sample, PCT's idea at exits: one or two stalls, each
 * at an exit drawn uniformly from the k exits of a passing run of the job
 * (the harness's progress file says k; 32 until it has), each long enough (20 to 65 ms of
 * virtual time) for the other threads' sleeps and timers to end in it. A
 * race window that spans one of the k exits, such as a read-modify-write
 * across a system call, is hit with probability at least 1/k a sample,
 * where a local change reaches it only from an entry near it.
 */
static void stall_sample(struct schedule_mutator *m, struct exec_input *in)
{
	static const uint16_t long_us[] = {20000, 40000, 65535};
	uint32_t k = m->steps_profiled ? (uint32_t)m->steps_profiled : STEP_HORIZON;

	in->schedule.count = 0;
	for (unsigned int i = 1 + below(m, 2); i > 0; i--)
		add_injection(&in->schedule,
			      (struct injection){.step = below(m, k),
						 .kind = INJECT_STALL,
						 .arg = long_us[below(m, sizeof(long_us) / 2)]});
}

/* One structured change to in; add (another corpus input, or NULL) may be spliced from. */
static void mutate_once(struct schedule_mutator *m, struct exec_input *in,
			const struct exec_input *add)
{
	if (in->mode == INPUT_MODE_PCT && below(m, 8)) {
		mutate_pct(m, in);
		return;
	}

	struct schedule *s = &in->schedule;
	struct injection *pick = s->count ? &s->at[below(m, s->count)] : NULL;

	switch (below(m, 8)) {
	case 0:
	case 1:
		if (pick) {
			move_step(m, s, pick);
			return;
		}
		break;
	case 2:
		if (pick) {
			change_arg(m, in->mode, pick);
			return;
		}
		break;
	case 3:
		if (pick) {
			set_kind(m, in->mode, pick);
			return;
		}
		break;
	case 4:
		if (s->count > 1) {
			remove_injection(m, s);
			return;
		}
		break;
	case 5:
		if (add && add->schedule.count) {
			struct injection inj = add->schedule.at[below(m, add->schedule.count)];

			if ((inj.kind != INJECT_PREEMPT || in->mode == INPUT_MODE_COUNTER) &&
			    ((inj.kind != INJECT_DEMOTE && inj.kind != INJECT_PRIORITY) ||
			     in->mode == INPUT_MODE_PCT)) {
				add_injection(s, inj);
				return;
			}
		}
		break;
	case 6:
		if (below(m, 4) == 0) {
			in->seed = new_seed(m, in);
			return;
		}
		break;
	default:
		break;
	}
	add_injection(s, random_injection(m, in->mode, s));
}

size_t schedule_random(struct schedule_mutator *m, uint8_t mode, uint8_t **out)
{
	struct exec_input *in = &m->in;

	*in = (struct exec_input){.seed = 0, .mode = mode};
	if (mode == INPUT_MODE_PCT) {
		pct_sample(m, in);
	} else {
		for (unsigned int i = 1 + below(m, 4); i > 0; i--)
			mutate_once(m, in, NULL);
		if (!in->schedule.count) /* only the seed changed: one injection at least */
			add_injection(&in->schedule, random_injection(m, mode, &in->schedule));
	}
	*out = m->out;
	return input_encode(in, m->out);
}

size_t schedule_mutate(struct schedule_mutator *m, const uint8_t *buf, size_t len,
		       const uint8_t *add_buf, size_t add_len, uint8_t **out, size_t max_size)
{
	struct exec_input *in = &m->in, *add = &m->add;
	unsigned int rounds = 1 + below(m, 4);

	input_decode(buf, len, in); /* afl-fuzz's own mutations may have made it invalid */
	/* a resumed search's queue holds racy entries: their key goes on */
	if ((in->flags & INPUT_FLAG_RACY) && !m->racy_key_set)
		take_racy_key(m, input_racy_key(in));
	if (in->mode == INPUT_MODE_PCT)
		progress_learn_counts(m);
	if (in->mode == INPUT_MODE_STEPS)
		progress_learn_steps(m);
	/* pct: fresh PCT samples, the search's own base distribution, or changes
	 * around the entry that gave new coverage, shared out by what paid */
	if (!add_buf || input_parse(add_buf, add_len, add, NULL, 0) < 0)
		add = NULL;
	m->last_arm = PCT_ARM_NONE;
	if (in->mode == INPUT_MODE_PCT)
		m->last_arm =
			below(m, 1024) < schedule_local_share(m) ? PCT_ARM_LOCAL : PCT_ARM_FRESH;
	if (m->last_arm == PCT_ARM_FRESH)
		pct_sample(m, in);
	else if (in->mode == INPUT_MODE_STEPS && below(m, 1024) >= schedule_steps_local_share(m))
		stall_sample(m, in);
	else
		for (unsigned int i = 0; i < rounds; i++)
			mutate_once(m, in, add);
	if (m->last_arm != PCT_ARM_NONE)
		m->arms[m->last_arm].tried++;
	while (in->schedule.count &&
	       INPUT_HEADER_SIZE + in->schedule.count * (size_t)INPUT_RECORD_SIZE > max_size)
		in->schedule.count--;
	*out = m->out;
	return input_encode(in, m->out);
}

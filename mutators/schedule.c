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
 * through mutators/afl_custom.c. Its random draws, and the changes every
 * mode shares, are the search's base distribution (schedule/draw.c).
 */
#include "mutators/schedule.h"

#include "mutators/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next_random(struct schedule_mutator *m)
{
	return draw_next(&m->draw);
}

static uint32_t below(struct schedule_mutator *m, uint32_t n)
{
	return draw_below(&m->draw, n);
}

/* What the harness's progress file has said about the job's PCT runs. */
static struct draw_counts counts_of(const struct schedule_mutator *m)
{
	return (struct draw_counts){.pct_events = m->pct_events,
				    .pct_racy_estimate = m->pct_racy_estimate};
}

static void pct_sample(struct schedule_mutator *m, struct exec_input *in)
{
	struct draw_counts c = counts_of(m);

	draw_pct_sample(&m->draw, in, &c);
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
		in->seed = draw_new_seed(&m->draw, in);
		return;
	case 2: /* one thread first (or last of the drawn priorities, above every demotion) */
		draw_add_injection(
			s, (struct injection){.kind = INJECT_PRIORITY,
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
			draw_remove_injection(&m->draw, s);
			return;
		}
		break;
	default:
		break;
	}
	draw_add_injection(s, new_demotion(m, s, demote_events(m, in)));
}

/*
 * A fresh stall sample, PCT's idea at exits: one or two stalls, each at an
 * exit drawn uniformly from the k exits of a passing run of the job (the
 * harness's progress file says k; 32 until it has), each long enough (20
 * to 65 ms of virtual time) for the other threads' sleeps and timers to end
 * in it. A race window that spans one of the k exits, such as a
 * read-modify-write across a system call, is hit with probability at least
 * 1/k a sample, where a local change reaches it only from an entry near
 * it. In steps mode; a plain job's in pct mode, with a new priority order
 * and no change point: its spins keep pct mode's time slices (steps mode
 * would end them as stuck), and its coverage is the PCT samples' kind, so
 * the two samplers' payoffs compare.
 */
static void stall_sample(struct schedule_mutator *m, struct exec_input *in)
{
	static const uint16_t long_us[] = {20000, 40000, 65535};
	uint32_t k = m->steps_profiled ? (uint32_t)m->steps_profiled : STEP_HORIZON;

	if (in->mode == INPUT_MODE_PCT) { /* a plain job's: a new priority order, no change point */
		in->seed = draw_next(&m->draw);
		in->flags = 0;
	}
	in->schedule.count = 0;
	for (unsigned int i = 1 + below(m, 2); i > 0; i--)
		draw_add_injection(
			&in->schedule,
			(struct injection){.step = below(m, k),
					   .kind = INJECT_STALL,
					   .arg = long_us[below(m, sizeof(long_us) / 2)]});
}

/* A fresh sample from the sampler the job's samplers share says, counted as tried. */
static void fresh_sample(struct schedule_mutator *m, struct exec_input *in)
{
	enum sampler which = schedule_pick_sampler(m, in->mode);

	if (which == SAMPLER_PCT) {
		in->mode = INPUT_MODE_PCT;
		pct_sample(m, in);
	} else if (which == SAMPLER_WALK) {
		draw_walk_sample(&m->draw, in);
	} else {
		stall_sample(m, in);
	}
	m->last_sampler = (uint8_t)which;
	m->samplers[which].tried++;
}

/*
 * One change to a walk, which draws its own switches (no change points):
 * another walk (a new seed), or one thread first or last of the threads'
 * own priorities.
 */
static void mutate_walk(struct schedule_mutator *m, struct exec_input *in)
{
	if (below(m, 2)) {
		in->seed = draw_new_seed(&m->draw, in);
		return;
	}
	draw_add_injection(&in->schedule,
			   (struct injection){.kind = INJECT_PRIORITY,
					      .step = below(m, PCT_THREADS_NAMED),
					      .arg = below(m, 2) ? INJECT_PRIO_MAX
								 : lowest_drawn_priority(in)});
}

/* A walk's `demote` records (a splice may bring one) dropped, as decoding does. */
static void drop_walk_demotions(struct exec_input *in)
{
	struct schedule *s = &in->schedule;
	uint32_t kept = 0;

	if (!(in->flags & INPUT_FLAG_WALK))
		return;
	for (uint32_t i = 0; i < s->count; i++)
		if (s->at[i].kind != INJECT_DEMOTE)
			s->at[kept++] = s->at[i];
	s->count = kept;
}

/* One structured change to in; add (another corpus input, or NULL) may be spliced from. */
static void mutate_once(struct schedule_mutator *m, struct exec_input *in,
			const struct exec_input *add)
{
	if (in->mode == INPUT_MODE_PCT && below(m, 8)) {
		if (in->flags & INPUT_FLAG_WALK)
			mutate_walk(m, in);
		else
			mutate_pct(m, in);
		return;
	}
	draw_change(&m->draw, in, add);
	drop_walk_demotions(in);
}

size_t schedule_random(struct schedule_mutator *m, uint8_t mode, uint8_t **out)
{
	struct draw_counts c = counts_of(m);

	draw_random_input(&m->draw, mode, &m->in, &c);
	*out = m->out;
	return input_encode(&m->in, m->out);
}

size_t schedule_mutate(struct schedule_mutator *m, const uint8_t *buf, size_t len,
		       const uint8_t *add_buf, size_t add_len, uint8_t **out, size_t max_size)
{
	struct exec_input *in = &m->in, *add = &m->add;
	unsigned int rounds = 1 + below(m, 4);

	input_decode(buf, len, in); /* afl-fuzz's own mutations may have made it invalid */
	/* a resumed search's queue holds racy entries: their key goes on */
	if ((in->flags & INPUT_FLAG_RACY) && !m->draw.racy_key_set)
		draw_take_racy_key(&m->draw, input_racy_key(in));
	if (in->mode == INPUT_MODE_PCT)
		progress_learn_counts(m);
	if (in->mode == INPUT_MODE_STEPS || m->kernel_events)
		progress_learn_steps(m);
	/* pct: fresh PCT samples, the search's own base distribution, or changes
	 * around the entry that gave new coverage, shared out by what paid */
	if (!add_buf || input_parse(add_buf, add_len, add, NULL, 0) < 0)
		add = NULL;
	m->last_arm = PCT_ARM_NONE;
	m->last_sampler = SAMPLER_NONE;
	if (in->mode == INPUT_MODE_PCT)
		m->last_arm =
			below(m, 1024) < schedule_local_share(m) ? PCT_ARM_LOCAL : PCT_ARM_FRESH;
	if (m->last_arm == PCT_ARM_FRESH ||
	    (in->mode == INPUT_MODE_STEPS && below(m, 1024) >= schedule_steps_local_share(m)))
		fresh_sample(m, in);
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

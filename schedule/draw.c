/* SPDX-License-Identifier: MIT */
/*
 * The search's base distribution (schedule/draw.h): random injections of
 * every kind, random changes to a schedule, PCT samples, and the benchmark
 * variables that shape them.
 */
#include "schedule/draw.h"

#include "schedule/profile_sample.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long draw_env_number(const char *name, long min, long max, long unset, const char *instead)
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

void draw_init(struct draw_state *g, unsigned int seed)
{
	*g = (struct draw_state){.rng = 0x9e3779b97f4a7c15ull ^ seed};
	/* for benchmarks that set depths side by side */
	g->fixed_depth = (uint8_t)draw_env_number("REWIND_PCT_DEPTH", 1, PCT_WIDE_DEPTH_MAX, 0,
						  "the mixture of depths is used");
	g->wide_mixture = wide_mixture_asked();
	g->racy_eighths = (uint8_t)draw_env_number("REWIND_PCT_RACY", 0, 8, PCT_RACY_EIGHTHS,
						   "half the PCT samples count racy events");
	g->racy_after =
		(uint32_t)draw_env_number("REWIND_PCT_RACY_AFTER", 0, 1000000, PCT_RACY_AFTER,
					  "racy samples start after 16 plain ones");
	/* a benchmark that says when racy samples start gets just that */
	g->racy_by_estimate = !getenv("REWIND_PCT_RACY_AFTER");
}

/* Stall and lateness values that matter for races: µs to tens of ms. */
static const uint16_t interesting_us[] = {1,	5,    10,   50,	   100,	  250,	 500,
					  1000, 2000, 5000, 10000, 20000, 40000, 65535};
#define N_INTERESTING (sizeof(interesting_us) / sizeof(interesting_us[0]))

uint64_t draw_next(struct draw_state *g)
{
	/* xorshift64*: deterministic for a given afl-fuzz seed */
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return g->rng * 0x2545f4914f6cdd1dull;
}

uint32_t draw_below(struct draw_state *g, uint32_t n)
{
	return n ? (uint32_t)((draw_next(g) >> 32) % n) : 0;
}

static uint16_t random_us(struct draw_state *g)
{
	if (draw_below(g, 4) == 0)
		return (uint16_t)(1 + draw_below(g, 65535));
	return interesting_us[draw_below(g, N_INTERESTING)];
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
static uint8_t random_kind(struct draw_state *g, uint8_t mode)
{
	static const uint8_t step_kinds[] = {INJECT_RESCHED, INJECT_STALL, INJECT_TIMER_LATE};

	/* counter mode: three in four new injections are preemptions at a block,
	 * what reaches races in code that makes no system call */
	if (mode == INPUT_MODE_COUNTER && draw_below(g, 4))
		return INJECT_PREEMPT;
	/* steps mode: the one way into code between exits is single-stepping,
	 * one exit per instruction, so one in eight */
	if (mode == INPUT_MODE_STEPS && draw_below(g, 8) == 0)
		return INJECT_PREEMPT_INSNS;
	return step_kinds[draw_below(g, sizeof(step_kinds))];
}

/* 1 to 4096, most often small: log-uniform. */
static uint32_t small_distance(struct draw_state *g)
{
	return 1 + draw_below(g, 1u << draw_below(g, 13));
}

static uint16_t random_arg(struct draw_state *g, uint8_t kind)
{
	if (kind == INJECT_PREEMPT_INSNS) /* the whole range, log-uniform: each one is an exit */
		return (uint16_t)small_distance(g);
	return kind == INJECT_RESCHED || kind == INJECT_PREEMPT ? 0 : random_us(g);
}

/*
 * A block for a new preemption: near one the schedule has (a second
 * preemption a few blocks after a first one is how a bug of depth 3 is
 * reached: the first lets the other thread in, the second lands in it), or
 * anywhere from the job's start, the early blocks more often (log-uniform).
 */
static uint32_t random_block(struct draw_state *g, const struct schedule *s)
{
	uint32_t preempts = 0, near = 0;

	for (uint32_t i = 0; i < s->count; i++)
		if (s->at[i].kind == INJECT_PREEMPT && draw_below(g, ++preempts) == 0)
			near = s->at[i].step; /* one of them, each as likely */
	if (preempts && draw_below(g, 2))
		return near + small_distance(g);
	return draw_below(g, 1u << draw_below(g, 25));
}

static struct injection random_injection(struct draw_state *g, uint8_t mode,
					 const struct schedule *s)
{
	struct injection inj = {.kind = random_kind(g, mode)};

	inj.step = inj.kind == INJECT_PREEMPT ? random_block(g, s)
					      : draw_below(g, last_step(s) + STEP_HORIZON);
	inj.arg = random_arg(g, inj.kind);
	return inj;
}

static void set_kind(struct draw_state *g, uint8_t mode, struct injection *inj)
{
	inj->kind = random_kind(g, mode);
	inj->arg = random_arg(g, inj->kind);
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
static void move_step(struct draw_state *g, struct schedule *s, struct injection *inj)
{
	uint32_t from = inj->step;
	bool followers = inj->kind == INJECT_PREEMPT && draw_below(g, 2);
	int32_t delta =
		(int32_t)(inj->kind == INJECT_PREEMPT ? small_distance(g) : 1 + draw_below(g, 8));

	if (draw_below(g, 2))
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
static void nudge_insns(struct draw_state *g, struct injection *inj)
{
	int32_t delta = (int32_t)(1 + draw_below(g, 4));
	int32_t insns;

	if (draw_below(g, 2)) {
		inj->arg = random_arg(g, inj->kind);
		return;
	}
	insns = (int32_t)inj->arg + (draw_below(g, 2) ? delta : -delta);
	inj->arg = (uint16_t)(insns < 1 ? 1 : insns > INJECT_INSNS_MAX ? INJECT_INSNS_MAX : insns);
}

static void change_arg(struct draw_state *g, uint8_t mode, struct injection *inj)
{
	if (inj->kind == INJECT_PRIORITY || inj->kind == INJECT_DEMOTE) {
		inj->arg = (uint16_t)(1 + draw_below(g, INJECT_PRIO_MAX));
		return;
	}
	if (inj->kind == INJECT_RESCHED || inj->kind == INJECT_PREEMPT) {
		set_kind(g, mode, inj);
		return;
	}
	if (inj->kind == INJECT_PREEMPT_INSNS) {
		nudge_insns(g, inj);
		return;
	}
	switch (draw_below(g, 3)) {
	case 0:
		inj->arg = random_us(g);
		break;
	case 1:
		inj->arg = inj->arg > 32767 ? 65535 : (uint16_t)(inj->arg * 2 + 1);
		break;
	default:
		inj->arg /= 2;
	}
}

void draw_add_injection(struct schedule *s, struct injection inj)
{
	if (s->count < SCHEDULE_MAX)
		s->at[s->count++] = inj;
}

void draw_remove_injection(struct draw_state *g, struct schedule *s)
{
	uint32_t i = draw_below(g, s->count);

	memmove(&s->at[i], &s->at[i + 1], (s->count - i - 1) * sizeof(s->at[0]));
	s->count--;
}

/* The key of the racy inputs from here on (input_racy_key). */
void draw_take_racy_key(struct draw_state *g, uint32_t key)
{
	g->racy_key = key;
	g->racy_key_set = true;
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
uint64_t draw_new_seed(struct draw_state *g, const struct exec_input *in)
{
	uint64_t seed = draw_next(g);

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
static bool racy_sample_due(const struct draw_state *g, const struct draw_counts *c)
{
	if (!g->racy_eighths)
		return false;
	if (g->racy_by_estimate && c->pct_events && c->pct_racy_estimate)
		return c->pct_racy_estimate * 5 <= c->pct_events * 3;
	return g->samples > g->racy_after;
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
void draw_pct_sample(struct draw_state *g, struct exec_input *in, const struct draw_counts *c)
{
	/* the narrow mixture is the racy-site profiles' too (schedule/profile_sample.c) */
	static const uint8_t wide[PROFILE_SAMPLE_DEPTHS] = {
		2, 3, 8, PCT_DEPTH_MAX, 30, [5 ... 7] = PCT_WIDE_DEPTH_MAX};
	const uint8_t *depths = g->wide_mixture ? wide : profile_sample_depths;
	uint32_t d = g->fixed_depth ? g->fixed_depth : depths[draw_below(g, PROFILE_SAMPLE_DEPTHS)];

	in->seed = draw_next(g);
	in->flags = d > PCT_DEPTH_MAX ? INPUT_FLAG_WIDE : 0;
	if (g->samples < UINT32_MAX)
		g->samples++;
	if (racy_sample_due(g, c) && draw_below(g, 8) < g->racy_eighths) {
		in->flags |= INPUT_FLAG_RACY;
		if (!g->racy_key_set)
			draw_take_racy_key(g, (uint32_t)(draw_next(g) >> 32));
		in->seed = keyed_seed(g->racy_key, in->seed);
	}
	in->schedule.count = 0;
	for (uint32_t i = 1; i < d; i++)
		draw_add_injection(&in->schedule,
				   (struct injection){.step = (uint32_t)(draw_next(g) >> 32),
						      .kind = INJECT_DEMOTE,
						      .arg = (uint16_t)(d - i + 1)});
}

void draw_change(struct draw_state *g, struct exec_input *in, const struct exec_input *add)
{
	struct schedule *s = &in->schedule;
	struct injection *pick = s->count ? &s->at[draw_below(g, s->count)] : NULL;

	switch (draw_below(g, 8)) {
	case 0:
	case 1:
		if (pick) {
			move_step(g, s, pick);
			return;
		}
		break;
	case 2:
		if (pick) {
			change_arg(g, in->mode, pick);
			return;
		}
		break;
	case 3:
		if (pick) {
			set_kind(g, in->mode, pick);
			return;
		}
		break;
	case 4:
		if (s->count > 1) {
			draw_remove_injection(g, s);
			return;
		}
		break;
	case 5:
		if (add && add->schedule.count) {
			struct injection inj = add->schedule.at[draw_below(g, add->schedule.count)];

			if ((inj.kind != INJECT_PREEMPT || in->mode == INPUT_MODE_COUNTER) &&
			    ((inj.kind != INJECT_DEMOTE && inj.kind != INJECT_PRIORITY) ||
			     in->mode == INPUT_MODE_PCT)) {
				draw_add_injection(s, inj);
				return;
			}
		}
		break;
	case 6:
		if (draw_below(g, 4) == 0) {
			in->seed = draw_new_seed(g, in);
			return;
		}
		break;
	default:
		break;
	}
	draw_add_injection(s, random_injection(g, in->mode, s));
}

void draw_walk_sample(struct draw_state *g, struct exec_input *in)
{
	*in = (struct exec_input){
		.seed = draw_next(g), .mode = INPUT_MODE_PCT, .flags = INPUT_FLAG_WALK};
}

void draw_random_input(struct draw_state *g, uint8_t mode, struct exec_input *in,
		       const struct draw_counts *c)
{
	*in = (struct exec_input){.seed = 0, .mode = mode};
	if (mode == INPUT_MODE_PCT) {
		draw_pct_sample(g, in, c);
		return;
	}
	for (unsigned int i = 1 + draw_below(g, 4); i > 0; i--)
		draw_change(g, in, NULL);
	if (!in->schedule.count) /* only the seed changed: one injection at least */
		draw_add_injection(&in->schedule, random_injection(g, mode, &in->schedule));
}

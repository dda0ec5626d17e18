/* SPDX-License-Identifier: MIT */
/*
 * How the mutator shares its mutants out between fresh samples and local
 * changes of the queue entry (mutators/schedule.h): what each way has paid
 * in pct mode, a fixed share in steps mode; and a job's fresh samples
 * between its samplers (PCT and stalls, or PCT and walks), by what each has
 * paid.
 */
#include "mutators/schedule.h"

#include <math.h>

#define LOCAL_SHARE_MIN 64  /* of 1024: local changes keep being tried */
#define LOCAL_SHARE_MAX 960 /* of 1024: fresh samples keep PCT's guarantee */

/* steps mode: the mutants, of 1024, that change the entry; the rest are stall samples */
#define STEPS_LOCAL_SHARE 256

/*
 * The local share: fresh samples are the search's base (PCT's guarantee),
 * and local changes get mutants only as far as they have paid clearly more
 * often than fresh samples. At fresh samples' rate of new queue entries a
 * mutant, (paid + 1/2) / (tried + 8), local changes would have paid about
 * lambda = (tried + 8) times that; they are credited with what they paid
 * beyond luck, paid - 2 sqrt(lambda) - 2, and beat fresh samples where that
 * is above lambda. Two lucky entries are not enough: under the rule
 * before, (paid - 1) / (tried + 8), two local changes that paid early in
 * 1,355, against one fresh sample in 2,901, gave local changes 330/1024
 * of the mutants for the rest of the search, where local changes fail
 * less often than fresh samples (docs/performance.md, "Two lucky
 * entries"). While local changes pay no more, the share stays at its
 * floor of 1/16 (they keep being tried); above, it grows with how much
 * more they pay, up to 15/16.
 */
uint32_t schedule_local_share(const struct schedule_mutator *m)
{
	const struct arm_tally *f = &m->arms[PCT_ARM_FRESH], *l = &m->arms[PCT_ARM_LOCAL];
	double lambda = (l->tried + 8.0) * (f->paid + 0.5) / (f->tried + 8.0);
	double credited = l->paid - 2.0 * sqrt(lambda) - 2.0;

	if (m->fixed_local_share >= 0)
		return (uint32_t)m->fixed_local_share;
	if (credited <= lambda)
		return LOCAL_SHARE_MIN;
	return LOCAL_SHARE_MIN +
	       (uint32_t)((LOCAL_SHARE_MAX - LOCAL_SHARE_MIN) * (credited - lambda) / credited);
}

void schedule_mutant_paid(struct schedule_mutator *m)
{
	if (m->last_arm < PCT_ARMS)
		m->arms[m->last_arm].paid++;
	if (m->last_sampler < SAMPLERS)
		m->samplers[m->last_sampler].paid++;
	m->last_arm = PCT_ARM_NONE;
	m->last_sampler = SAMPLER_NONE;
}

/*
 * One sampler's share of fresh samples against another's, the rule of both
 * shares below: each sampler's rate of new queue entries, starting as
 * prior_tries tries at prior_rate, (paid + prior_tries * prior_rate) /
 * (tried + prior_tries), weighed by its prior share and shared in
 * proportion within min and max; the prior share itself while both rates
 * are zero (neither has paid, and a pooled prior rate is zero too).
 */
struct share_rule {
	double prior;	    /* of 1024: the first sampler's share while both pay alike */
	double prior_rate;  /* each rate starts as prior_tries tries at this rate */
	double prior_tries; /* how much the prior weighs against what was tried */
	uint32_t min, max;  /* of 1024: the first sampler's bounds */
};

static uint32_t sampler_share(const struct arm_tally *a, const struct arm_tally *b,
			      const struct share_rule *r)
{
	double start = r->prior_tries * r->prior_rate;
	double a_rate = r->prior * (a->paid + start) / (a->tried + r->prior_tries);
	double b_rate = (1024.0 - r->prior) * (b->paid + start) / (b->tried + r->prior_tries);
	uint32_t share;

	if (a_rate + b_rate <= 0.0)
		return (uint32_t)r->prior;
	share = (uint32_t)(1024.0 * a_rate / (a_rate + b_rate));
	if (share < r->min)
		return r->min;
	return share > r->max ? r->max : share;
}

#define SAMPLER_SHARE_MIN 128 /* of 1024: neither sampler starves */

/*
 * The stalls' share of a plain job: each sampler's rate of new queue
 * entries, (paid + 1) / (tried + 2) (even odds before either has run),
 * shared in proportion, within 1/8 and 7/8. A sampler that pays twice as
 * often gets two thirds; one that never pays keeps its 1/8, so a failure
 * only it can reach is still found.
 */
uint32_t schedule_stall_share(const struct schedule_mutator *m)
{
	static const struct share_rule even = {.prior = 512,
					       .prior_rate = 0.5,
					       .prior_tries = 2,
					       .min = SAMPLER_SHARE_MIN,
					       .max = 1024 - SAMPLER_SHARE_MIN};

	return sampler_share(&m->samplers[SAMPLER_STALL], &m->samplers[SAMPLER_PCT], &even);
}

/* of 1024: a walk's payoff weighs a third of a PCT sample's; --random --mix draws at it */
#define WALK_PRIOR	 WALK_SHARE_START
#define WALK_SHARE_MIN	 128 /* of 1024: walks keep being drawn */
#define WALK_SHARE_MAX	 320 /* of 1024: PCT keeps 11/16, a bug only it finds costs 1.45x */
#define WALK_PRIOR_TRIES 8   /* each sampler's rate starts as this many tries at the pooled rate */

/*
 * The walks' share of an instrumented job: each sampler's rate of new queue
 * entries, starting from the two samplers' pooled rate (so that while both
 * pay alike, or neither has paid, the share stays at the prior however
 * unevenly they were tried), walks' weighed at a third of PCT's, shared in
 * proportion within 1/8 and 5/16. The bounds come from where each sampler
 * wins (docs/performance.md, "Walks against PCT"): the bugs walks win they
 * win in the first few samples (63 to 100% of walks fail on
 * config_publish_10 and scatter_gather_100, against 8 to 19% of PCT
 * samples), so a share of 1/8 to 1/4 finds them within 2 or 3 samples and
 * more buys little; the bugs only PCT finds take 15 to 116 of its samples
 * (turn_game, reorder_many, where walks never fail), and every walk drawn
 * there is a PCT sample missed. Walks may well reach new coverage more
 * often there than PCT does, which would push an unbounded share up where
 * it costs most; at 5/16 such a search takes 16/11 of PCT's executions at
 * most.
 */
uint32_t schedule_walk_share(const struct schedule_mutator *m)
{
	const struct arm_tally *w = &m->samplers[SAMPLER_WALK], *p = &m->samplers[SAMPLER_PCT];
	uint32_t tried = w->tried + p->tried;
	struct share_rule pooled = {.prior = WALK_PRIOR,
				    .prior_rate = tried ? (double)(w->paid + p->paid) / tried : 0,
				    .prior_tries = WALK_PRIOR_TRIES,
				    .min = WALK_SHARE_MIN,
				    .max = WALK_SHARE_MAX};

	return sampler_share(w, p, &pooled);
}

/*
 * A sampler pinned (REWIND_MUTATOR_SAMPLER) as far as it serves the entry:
 * walks need an instrumented job's runtime, so a plain job or one not yet
 * run in pct mode gets the entry's own sampler.
 */
static enum sampler pinned(const struct schedule_mutator *m, uint8_t mode, bool instrumented)
{
	if (m->fixed_sampler != SAMPLER_WALK || instrumented)
		return (enum sampler)m->fixed_sampler;
	return mode == INPUT_MODE_PCT ? SAMPLER_PCT : SAMPLER_STALL;
}

enum sampler schedule_pick_sampler(struct schedule_mutator *m, uint8_t mode)
{
	/* the harness has said so after the job's first pct run */
	bool instrumented = mode == INPUT_MODE_PCT && m->kernel_events_known && !m->kernel_events;

	if (m->fixed_sampler >= 0)
		return pinned(m, mode, instrumented);
	if (m->kernel_events)
		return draw_below(&m->draw, 1024) < schedule_stall_share(m) ? SAMPLER_STALL
									    : SAMPLER_PCT;
	/* an instrumented job's first fresh sample is a walk: where walks win,
	 * most walks fail (63 to 100% on the torn publishes), so it finds the bug
	 * at once; where they do not, it costs one execution */
	if (instrumented && !m->samplers[SAMPLER_WALK].tried)
		return SAMPLER_WALK;
	if (instrumented)
		return draw_below(&m->draw, 1024) < schedule_walk_share(m) ? SAMPLER_WALK
									   : SAMPLER_PCT;
	/* not known yet, or a steps-mode entry: the entry's own */
	return mode == INPUT_MODE_PCT ? SAMPLER_PCT : SAMPLER_STALL;
}

uint32_t schedule_steps_local_share(const struct schedule_mutator *m)
{
	return m->fixed_local_share >= 0 ? (uint32_t)m->fixed_local_share : STEPS_LOCAL_SHARE;
}

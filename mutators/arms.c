/* SPDX-License-Identifier: MIT */
/*
 * How the mutator shares its mutants out between fresh samples and local
 * changes of the queue entry (mutators/schedule.h): what each way has paid
 * in pct mode, a fixed share in steps mode; and a job's fresh samples
 * between its samplers, by what each has paid.
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

#define SAMPLER_SHARE_MIN 128 /* of 1024: neither sampler starves */

/*
 * The stalls' share of a job both samplers serve: each sampler's rate of
 * new queue entries, (paid + 1) / (tried + 2) (even odds before either has
 * run), shared in proportion, within 1/8 and 7/8. A sampler that pays
 * twice as often gets two thirds; one that never pays keeps its 1/8, so a
 * failure only it can reach is still found.
 */
uint32_t schedule_stall_share(const struct schedule_mutator *m)
{
	const struct arm_tally *p = &m->samplers[SAMPLER_PCT], *st = &m->samplers[SAMPLER_STALL];
	double pct_rate = (p->paid + 1.0) / (p->tried + 2.0);
	double stall_rate = (st->paid + 1.0) / (st->tried + 2.0);
	uint32_t share = (uint32_t)(1024.0 * stall_rate / (pct_rate + stall_rate));

	if (share < SAMPLER_SHARE_MIN)
		return SAMPLER_SHARE_MIN;
	return share > 1024 - SAMPLER_SHARE_MIN ? 1024 - SAMPLER_SHARE_MIN : share;
}

enum sampler schedule_pick_sampler(struct schedule_mutator *m, uint8_t mode)
{
	if (m->fixed_sampler >= 0)
		return (enum sampler)m->fixed_sampler;
	if (!m->kernel_events) /* instrumented, or never run in pct mode: the entry's own */
		return mode == INPUT_MODE_PCT ? SAMPLER_PCT : SAMPLER_STALL;
	return draw_below(&m->draw, 1024) < schedule_stall_share(m) ? SAMPLER_STALL : SAMPLER_PCT;
}

uint32_t schedule_steps_local_share(const struct schedule_mutator *m)
{
	return m->fixed_local_share >= 0 ? (uint32_t)m->fixed_local_share : STEPS_LOCAL_SHARE;
}

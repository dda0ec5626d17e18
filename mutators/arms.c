/* SPDX-License-Identifier: MIT */
/*
 * How the mutator shares its mutants out between fresh samples and local
 * changes of the queue entry (mutators/schedule.h): what each way has paid
 * in pct mode, a fixed share in steps mode.
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
	m->last_arm = PCT_ARM_NONE;
}

uint32_t schedule_steps_local_share(const struct schedule_mutator *m)
{
	return m->fixed_local_share >= 0 ? (uint32_t)m->fixed_local_share : STEPS_LOCAL_SHARE;
}

/* SPDX-License-Identifier: MIT */
/*
 * What the schedule mutator reads of the harness's progress file
 * (harness_write_progress; rewind-fuzz names it in REWIND_PROGRESS_FILE).
 */
#ifndef REWIND_MUTATOR_PROGRESS_H
#define REWIND_MUTATOR_PROGRESS_H

#include "mutators/schedule.h"

/*
 * The job's profiled event count, and the same counted as racy-events
 * inputs count it, with the estimate of the racy count (racy_sample_due),
 * into m: a position is a fraction of these events (docs/harness.md).
 * Read at every mutant until k is known, then every 32nd until the racy
 * count is; a count missing or out of range leaves m's as it was.
 */
void progress_learn_counts(struct schedule_mutator *m);

/*
 * The exits of the job's unperturbed run (steps mode), into m, read at
 * every mutant until known: where stall samples land.
 */
void progress_learn_steps(struct schedule_mutator *m);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The finishing step of a night: the workers' results, samples and buckets
 * into the history, the night's state, RESULTS/latest, and the report.
 */
#ifndef REWIND_FINISH_H
#define REWIND_FINISH_H

#include "explore/night.h"

/*
 * interrupted: the night was stopped before every test ran. Returns
 * rewind explore's exit status: 0 no new bucket, 1 a new or reopened one,
 * 4 the night failed (a test could not run; the history or the report
 * could not be written).
 */
int finish_night(const struct night *n, bool interrupted);

#endif

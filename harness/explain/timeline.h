/* SPDX-License-Identifier: MIT */
/*
 * The timeline of an explanation: what the job's threads did around the
 * failure, read from the final run's trace (switches, injections,
 * preemptions, pure spins the VMM yielded, output, threads made, exits,
 * signals, the outcome), kept
 * near each landing and before the end; harness/explain/explain_report.c
 * prints it.
 */
#ifndef REWIND_EXPLAIN_TIMELINE_H
#define REWIND_EXPLAIN_TIMELINE_H

#include "harness/executor.h"
#include "harness/explain/explain_report.h"

/* The timeline of the run ex just made (the minimal schedule's). */
void timeline_of(const struct executor *ex, struct explanation *x);

#endif

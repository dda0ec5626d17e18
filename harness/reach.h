/* SPDX-License-Identifier: MIT */
/*
 * Whether schedule points can reach a job's races: a job whose threads
 * compute side by side without one exit between them gives injections at
 * exits nothing to land on. Checked once, on the unperturbed run.
 */
#ifndef REWIND_REACH_H
#define REWIND_REACH_H

#include "harness/executor.h"

/*
 * Runs the job once unperturbed (steps mode, seed 0, no output) and, when
 * steps-mode inputs may follow (steps_inputs) and it starts threads but
 * makes no exit while two of them are alive, prints a warning with the
 * numbers on stderr. Returns 0, -ENOEXEC (reported) when
 * the guest cannot execute the job's command (harness/job_start.h), or -EIO
 * if the host failed.
 * An instrumented job (guest/rewind-cc) is never warned about: every shared
 * access is a schedule point in counter and pct modes. The warning is about
 * steps mode: in pct mode the guest kernel makes the accesses of any job's
 * threads off their own stacks schedule points.
 */
int reach_check(struct executor *ex, bool steps_inputs);

#endif

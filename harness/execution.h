/* SPDX-License-Identifier: MIT */
/*
 * One execution of an input from the executor's keyframe, the layer every
 * run of harness/executor.c stands on: executions, their stuck and long
 * confirmations, and the job's profile runs.
 */
#ifndef REWIND_EXECUTION_H
#define REWIND_EXECUTION_H

#include "harness/executor_state.h"

#define STUCK_CONFIRM_FACTOR 4u /* a stuck run runs again with this many times the budget */

/* One run of input from the keyframe, to its outcome (0, or -EIO: no keyframe). */
int execution_run(struct executor *ex, const struct exec_input *input);

/* What the run of input that just ended came to. */
void execution_result(const struct executor *ex, const struct exec_input *input,
		      struct exec_result *res);

/* One run of input from the keyframe, its result in res; the event log, if any, is its own. */
int execution_counted(struct executor *ex, const struct exec_input *input, struct exec_result *res);

/* A profile's stuck budget, given the job's (execution.c says why). */
uint64_t execution_profile_stuck_ms(uint64_t job_stuck_ms);

/*
 * One run of input that the user does not see, with the guest's own
 * verdict (execution.c says which budgets): no output, the replay's wall
 * guard, a profile's stuck budget, a read at least every countdown_max
 * events (0: the ABI's maximum). -EIO, said with what (the run's name),
 * when the host failed or stalled past the replay guard.
 */
int execution_quiet(struct executor *ex, const struct exec_input *input, uint32_t countdown_max,
		    const char *what);

/* One profile run of input (execution_quiet; one with no change point reads every 4,096 events). */
int execution_profile(struct executor *ex, const struct exec_input *profile);

#endif

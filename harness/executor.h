/* SPDX-License-Identifier: MIT */
/*
 * Executions of one job, in this process: the guest is booted once to its
 * keyframe point (READY), captured, and every execution restores that
 * keyframe, sets the input's seed and schedule, and runs to an outcome.
 * After setup, an execution allocates nothing and touches no file.
 */
#ifndef REWIND_EXECUTOR_H
#define REWIND_EXECUTOR_H

#include "harness/executor_state.h"

#include <cjson/cJSON.h>

/* "PROGRAM: outcome CLASS (what happened) at step N, ... trace HASH" on stderr (rw_log). */
void exec_result_print(const struct exec_result *res);

/*
 * The same as one JSON object: class, detail, status (the wait status, or
 * null) with exit_code or signal, steps, events, stepped, features,
 * injections, trace ("0x" and 16 hex digits). NULL without memory.
 */
cJSON *exec_result_to_json(const struct exec_result *res);

/*
 * k, what in's demote positions divide (docs/input-format.md): the profile's
 * events, counted as in counts them (its racy-events flag). Known once the
 * executor has run a pct input of the same kind.
 */
uint64_t executor_demote_events(const struct executor *ex, const struct exec_input *in);

/* The last racy input's k, its profile's events counted by its sites (0: none yet). */
uint64_t executor_racy_events(const struct executor *ex);

/* Loads the inputs, boots the guest to READY and captures it. 0 or -errno (reported). */
int executor_open(struct executor *ex, const struct executor_config *cfg);

/*
 * executor_open in two halves: what is quick and catches a user's mistakes
 * (KVM usable, the kernel, the image and the --add files read), then the
 * boot (seconds; minutes in a loaded box). 0 or -errno (reported).
 */
int executor_prepare(struct executor *ex, const struct executor_config *cfg);
int executor_boot(struct executor *ex);

/*
 * Runs one (valid) input from the keyframe. 0, or -EIO if the host failed.
 * The first pct-mode input first runs the job's profile: the same job in pct
 * mode with seed 0 and no injections, whose event count is what `demote`
 * positions are fractions of.
 */
int executor_run(struct executor *ex, const struct exec_input *input, struct exec_result *res);

/*
 * A replay of an artifact that recorded its profile (rec, kept by the
 * caller while ex runs; in, the artifact's input): pct inputs run with
 * rec's k, walk weights and, for in's racy key, site map. same_run (the
 * run's identity is the artifact's): the seed-0 profile does not run, its
 * record stands for it (the same run counts the same), and true is
 * returned. Otherwise it runs, once, as a check: a count that differs is
 * said in one line (harness/profile_record.h), and the recorded one is used.
 */
bool executor_use_profile(struct executor *ex, const struct profile_record *rec,
			  const struct exec_input *in, bool same_run);

void executor_close(struct executor *ex);

#endif

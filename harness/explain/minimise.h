/* SPDX-License-Identifier: MIT */
/*
 * Minimising a failing schedule: drop injections and shrink their
 * arguments while the failure keeps its signature (class, exit status or
 * signal, and the last line of output with its numbers masked, so a lost
 * update that leaves another count is still the same failure: the rule of
 * lib/failure_line.h, which a night's buckets use too). Greedy and
 * deterministic: the same input always minimises to the same schedule.
 */
#ifndef REWIND_MINIMISE_H
#define REWIND_MINIMISE_H

#include "harness/executor.h"

struct failure_signature {
	enum exec_class cls;
	int status; /* wait status, where the job ended */
	bool has_status;
	char last_line[200]; /* the job's failed check (failure_line), "" for a hang */
};

/* The signature of the run ex just made. */
void signature_of(const struct executor *ex, const struct exec_result *res,
		  struct failure_signature *sig);

bool signature_same(const struct failure_signature *a, const struct failure_signature *b);

/*
 * Runs input and says whether it fails with sig (res: its result).
 * -EIO if the host failed.
 */
int fails_alike(struct executor *ex, const struct exec_input *input,
		const struct failure_signature *sig, struct exec_result *res);

/*
 * Shrinks input in place while it keeps failing with sig; counts the
 * executions in *execs. 0 or -EIO.
 */
int minimise(struct executor *ex, struct exec_input *input, const struct failure_signature *sig,
	     uint64_t *execs);

/* PCT samples tried for a walk's failure (minimise_walk) */
#define WALK_STAND_IN_TRIES 150

/*
 * A walk's failure as a PCT schedule: a walk draws its switches in the
 * guest from its seed, so it has no injection to drop or move. The first
 * of WALK_STAND_IN_TRIES PCT samples (drawn from a generator seeded by the
 * walk's seed, plain: every event counts) that fails with sig replaces
 * *input, minimised; its number (1..) in *found, 0 if none failed alike
 * (input unchanged). Executions counted in *execs. 0 or -EIO.
 */
int minimise_walk(struct executor *ex, struct exec_input *input,
		  const struct failure_signature *sig, uint32_t *found, uint64_t *execs);

#endif

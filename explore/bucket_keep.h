/* SPDX-License-Identifier: MIT */
/*
 * Keeping a failure signature's first failing run in RESULTS/buckets/ID/:
 * the artifact, explained by rewind-harness --explain (minimised schedule,
 * where its injections land). Used for every signature seen for the first
 * time; the sites decide whether it is a new bucket (docs/explore.md).
 */
#ifndef REWIND_BUCKET_KEEP_H
#define REWIND_BUCKET_KEEP_H

#include "explore/signature.h"

#include <limits.h>
#include <stddef.h>

#define KEEP_CANDIDATES 3 /* failing runs tried before a signature is unconfirmed */

struct kept {
	char artifact[PATH_MAX];    /* relative to RESULTS: the minimised one if there is one */
	char explanation[PATH_MAX]; /* relative to RESULTS, "" if it could not be explained */
	char sites[1024];	    /* "function (file:line); ..." of the minimised injections */
	char site_key[512];	    /* their functions, sorted, without repeats: "f,g" */
};

/*
 * Copies the first of candidates (count of them, at most KEEP_CANDIDATES)
 * that fails again into RESULTS/buckets/ID/artifact.json and explains it.
 * 0 kept (k filled; explanation "" if explaining failed for another reason),
 * 1 none failed again (not a bucket: the folder keeps what was tried), -1 error.
 */
int bucket_keep(const char *results, const char *harness, const struct signature *sig,
		const char *const *candidates, size_t count, struct kept *k);

/* Removes RESULTS/buckets/ID/ (a signature that joined an existing bucket). */
void bucket_keep_discard(const char *results, const char *id);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * A failure's signature (docs/explore.md, "Buckets"): the test, the outcome
 * class, the wait status and the failing site (the last output line with
 * numbers blurred). Failures with one signature are one bucket.
 */
#ifndef REWIND_SIGNATURE_H
#define REWIND_SIGNATURE_H

#include <stdbool.h>
#include <stddef.h>

#define SIGNATURE_MESSAGE_MAX 200

struct signature {
	char test[64];
	char cls[24];
	char status[32]; /* "signal 6", "exit 1", or "" (the job did not end) */
	char message[SIGNATURE_MESSAGE_MAX + 1];
	char id[17]; /* 16 hex digits: XXH3 of the fields above */
};

/* The signature of a crash artifact written by rewind-harness; -1 (reported) if unreadable. */
int signature_of_artifact(const char *path, const char *test, struct signature *sig);

/* Is this file name in an artifacts folder a failing run's artifact? */
bool signature_is_artifact_name(const char *name);

/*
 * The artifacts of dir, sorted by name, into a malloc'd array of malloc'd
 * paths (*count of them); the caller frees both with signature_free_list.
 */
int signature_list_artifacts(const char *dir, char ***paths, size_t *count);
void signature_free_list(char **paths, size_t count);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * What an execution read of its job's profile runs (pct mode): seed 0's
 * count of the job's events (k, which places every demote), each thread's
 * events (a walk's weights) and a racy-events input's site map. An
 * artifact records them (harness/artifact.c), and its replay runs with the
 * recorded values, not with what a profile counts on the replay's host:
 * a profile cut by host time there (harness/execution.c execution_profile_stuck_ms)
 * would make the replay another run.
 */
#ifndef REWIND_PROFILE_RECORD_H
#define REWIND_PROFILE_RECORD_H

#include "rewind/abi.h"
#include "vmm/pct.h"

#include <stdbool.h>
#include <stdint.h>

struct profile_record {
	uint64_t events; /* k: seed 0's profile's events (0: none recorded) */
	bool has_walk;	 /* a walk's input: walk holds its weights */
	struct pct_walk_profile walk;
	bool has_racy; /* a racy-events input: racy_ok, racy_events and racy_sites */
	bool racy_ok;  /* false: the sites could not be learned, every event counted */
	uint64_t racy_events;
	uint8_t racy_sites[REWIND_SITE_BYTES];
};

/*
 * The k and walk weights a replay runs with, given what its own profile
 * counted (counted, *walk): rec's, into *walk too, each difference said in
 * one line on stderr. Returns the k to use.
 */
uint64_t profile_record_use(const struct profile_record *rec, uint64_t counted,
			    struct pct_walk_profile *walk);

/*
 * A replay's site map for a racy key: rec's (ok, events and sites), if rec
 * records one and same_key says it is for that key. False otherwise: the
 * key's profiles run.
 */
bool profile_record_racy(const struct profile_record *rec, bool same_key, bool *ok,
			 uint64_t *events, uint8_t sites[REWIND_SITE_BYTES]);

#endif

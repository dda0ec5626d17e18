/* SPDX-License-Identifier: MIT */
#include "harness/profile_record.h"

#include "lib/log.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static bool same_walk(const struct pct_walk_profile *a, const struct pct_walk_profile *b)
{
	return a->threads == b->threads &&
	       memcmp(a->events, b->events, sizeof(a->events[0]) * a->threads) == 0;
}

uint64_t profile_record_use(const struct profile_record *rec, uint64_t counted,
			    struct pct_walk_profile *walk)
{
	if (rec->events != counted)
		fprintf(stderr,
			"%s: the job's profile counted %" PRIu64 " events here, %" PRIu64
			" when the failure was found: the replay uses %" PRIu64 "\n",
			rw_log.program, counted, rec->events, rec->events);
	if (rec->has_walk && !same_walk(&rec->walk, walk)) {
		fprintf(stderr,
			"%s: the job's profile counted other events per thread here (%" PRIu32
			" threads) than when the failure was found (%" PRIu32
			"): the replay's walk weighs its threads with the recorded ones\n",
			rw_log.program, walk->threads, rec->walk.threads);
		*walk = rec->walk;
	}
	return rec->events;
}

bool profile_record_racy(const struct profile_record *rec, bool same_key, bool *ok,
			 uint64_t *events, uint8_t sites[REWIND_SITE_BYTES])
{
	if (!rec || !rec->has_racy || !same_key)
		return false;
	*ok = rec->racy_ok;
	*events = rec->racy_events;
	memcpy(sites, rec->racy_sites, REWIND_SITE_BYTES);
	return true;
}

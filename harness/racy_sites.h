/* SPDX-License-Identifier: MIT */
/*
 * The job's quiet sites, learned from its profile runs' event logs: what a
 * pct input with the racy-events flag counts as 1/REWIND_SITE_WEIGHT of an
 * event (docs/input-format.md).
 */
#ifndef REWIND_RACY_SITES_H
#define REWIND_RACY_SITES_H

#include "rewind/abi.h"
#include "vmm/counter.h"

#include <stdint.h>

/*
 * What the profile runs showed: every site seen (by its bit,
 * rewind_site_bit), and every access to data, all runs together.
 */
struct racy_sites {
	uint8_t seen[REWIND_SITE_BYTES], racy[REWIND_SITE_BYTES];
	struct racy_access *acc;
	size_t count, cap;
};

/* Adds a profile run's log. 0, -E2BIG when the log dropped events (sites would be missed), or
 * -ENOMEM (reported). */
int racy_sites_add(struct racy_sites *rs, const struct vm_event_log *log);

/*
 * The site map the runtime gets: the quiet sites, seen in a profile and
 * never touching racy data: data that two threads touch, one of them not
 * with a plain read, in any of the runs (the same address in one run and
 * another: a location one thread touches under one priority order may be
 * another's under the next). An event with no data address (a thread
 * operation) is never quiet, nor is a site no profile reached: their
 * events count in full.
 */
void racy_sites_quiet(struct racy_sites *rs, uint8_t map[REWIND_SITE_BYTES]);

/* Frees what racy_sites_add kept. */
void racy_sites_free(struct racy_sites *rs);

/*
 * The log's events counted as a run with quiet map counts them (a quiet
 * site's event as 1/REWIND_SITE_WEIGHT, any other as one), at least 1.
 */
uint64_t racy_sites_count(const struct vm_event_log *log, const uint8_t *quiet);

#endif

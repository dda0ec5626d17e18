/* SPDX-License-Identifier: MIT */
/*
 * Racy and quiet sites (harness/racy_sites.h). A location is racy when at
 * least two threads touch it, one of them writing or synchronising on it
 * (SURW's "interesting" events, ASPLOS'25), found by sorting a profile's
 * accesses by address. Data written before the threads start and only read
 * after (a buffer the threads hash) is not racy: the runtime makes no
 * events while the process has one thread, so those writes are not in the
 * log. A quiet site is one a profile saw and that touched no racy data in
 * any of them.
 */
#include "harness/racy_sites.h"

#include "rewind/abi.h"

#include "lib/log.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

struct racy_access {
	uint64_t addr, pc;
	uint32_t tid;
	bool reads_only;
};

static int by_address(const void *a, const void *b)
{
	const struct racy_access *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

static void set_bit(uint8_t *map, uint64_t pc)
{
	uint32_t bit = rewind_site_bit(pc);

	map[bit / 8] |= (uint8_t)(1u << bit % 8);
}

static bool bit_set(const uint8_t *map, uint64_t pc)
{
	uint32_t bit = rewind_site_bit(pc);

	return map[bit / 8] & (1u << bit % 8);
}

/* The accesses acc[from..to) share one address: their sites are racy if two threads and a write. */
static void mark_if_racy(uint8_t *racy, const struct racy_access *acc, size_t from, size_t to)
{
	bool two_threads = false, written = false;

	for (size_t i = from; i < to; i++) {
		two_threads |= acc[i].tid != acc[from].tid;
		written |= !acc[i].reads_only;
	}
	if (!two_threads || !written)
		return;
	for (size_t i = from; i < to; i++)
		set_bit(racy, acc[i].pc);
}

int racy_sites_add(struct racy_sites *rs, const struct vm_event_log *log)
{
	if (log->dropped)
		return -E2BIG;
	if (rs->count + log->count > rs->cap) {
		size_t cap = rs->count + log->count;
		struct racy_access *acc = realloc(rs->acc, (cap ? cap : 1) * sizeof(*acc));

		if (!acc) {
			rw_err("cannot allocate the racy-site table (%zu events)", cap);
			return -ENOMEM;
		}
		rs->acc = acc;
		rs->cap = cap;
	}
	for (uint32_t i = 0; i < log->count; i++) {
		const struct vm_event *ev = &log->at[i];

		set_bit(rs->seen, ev->pc);
		if (!ev->addr) {
			set_bit(rs->racy, ev->pc);
			continue;
		}
		rs->acc[rs->count++] = (struct racy_access){
			.addr = ev->addr,
			.pc = ev->pc,
			.tid = ev->tid,
			.reads_only = REWIND_SCHED_KIND_OF(ev->what) == REWIND_SCHED_READ};
	}
	return 0;
}

void racy_sites_quiet(struct racy_sites *rs, uint8_t map[REWIND_SITE_BYTES])
{
	qsort(rs->acc, rs->count, sizeof(*rs->acc), by_address);
	for (size_t from = 0, to; from < rs->count; from = to) {
		for (to = from + 1; to < rs->count && rs->acc[to].addr == rs->acc[from].addr;)
			to++;
		mark_if_racy(rs->racy, rs->acc, from, to);
	}
	for (uint32_t i = 0; i < REWIND_SITE_BYTES; i++)
		map[i] = rs->seen[i] & (uint8_t)~rs->racy[i];
}

void racy_sites_free(struct racy_sites *rs)
{
	free(rs->acc);
	rs->acc = NULL;
	rs->count = rs->cap = 0;
}

uint64_t racy_sites_count(const struct vm_event_log *log, const uint8_t *quiet)
{
	uint64_t events = 0, passed = 0;

	for (uint32_t i = 0; i < log->count; i++) {
		bool counts = !bit_set(quiet, log->at[i].pc) || ++passed % REWIND_SITE_WEIGHT == 0;

		events += counts;
	}
	return events ? events : 1;
}

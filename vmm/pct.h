/* SPDX-License-Identifier: MIT */
/*
 * Priority schedules (PCT): the priority each thread of the job starts
 * with; see vmm/pct.c.
 */
#ifndef REWIND_PCT_H
#define REWIND_PCT_H

#include "rewind/abi.h"

#include <stdint.h>

struct vm;

/*
 * Each thread's events in the job's profile run, by creation order (the
 * main thread first): a walk's weights (include/rewind/abi.h).
 */
struct pct_walk_profile {
	uint32_t threads; /* entries of events filled in (0: none counted) */
	uint32_t events[REWIND_WALK_THREADS];
};

/* pct: the priority of the job's next thread (0 outside pct mode). */
uint32_t pct_thread_priority(struct vm *vm);

/*
 * The runtime's start (REWIND_RT_THREAD_PRIORITY with its walk page at
 * page, process pid): the main thread's priority, and REWIND_WALK_ON once
 * the walk's seed and weights are written there (a walk run), or
 * REWIND_WALK_COUNT (a run that counts each thread's events, read back at
 * pct_walk_flush).
 */
uint32_t pct_runtime_start(struct vm *vm, uint64_t page, uint32_t pid);

/* Process pid is about to exit: a counting run takes its counts (vm->cfg.walk_count). */
void pct_walk_flush(struct vm *vm, uint32_t pid);

#endif

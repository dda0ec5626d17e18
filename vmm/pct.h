/* SPDX-License-Identifier: MIT */
/*
 * Priority schedules (PCT): the priority each thread of the job starts
 * with; see vmm/pct.c.
 */
#ifndef REWIND_PCT_H
#define REWIND_PCT_H

#include <stdint.h>

struct vm;

/* pct: the priority of the job's next thread (0 outside pct mode). */
uint32_t pct_thread_priority(struct vm *vm);

#endif

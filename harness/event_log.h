/* SPDX-License-Identifier: MIT */
/*
 * --event-log FILE: a one-shot run's schedule events (counter and pct modes)
 * kept in memory while it runs, then written as JSON lines.
 */
#ifndef REWIND_EVENT_LOG_H
#define REWIND_EVENT_LOG_H

#include "vmm/counter.h"

/* Room for the events a run keeps (free log->at). 0 or -ENOMEM (reported). */
int event_log_alloc(struct vm_event_log *log);

/*
 * The run's schedule events as JSON lines, one per event, in the order of
 * their schedule points ("landed": see VM_EVENT_LANDED_PREEMPT). 0 or -errno
 * (reported).
 */
int event_log_write(const struct vm_event_log *log, const char *path);

#endif

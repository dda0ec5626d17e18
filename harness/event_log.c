/* SPDX-License-Identifier: MIT */
/* --event-log: a run's schedule events as JSON lines (harness/event_log.h). */
#include "harness/event_log.h"

#include "lib/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* --event-log keeps this many events of the run; more are counted, not kept (48 MiB). */
#define EVENT_LOG_CAP (1u << 20)

int event_log_alloc(struct vm_event_log *log)
{
	log->at = calloc(EVENT_LOG_CAP, sizeof(*log->at));
	if (!log->at) {
		rw_err("cannot allocate the event log (%u events)", EVENT_LOG_CAP);
		return -ENOMEM;
	}
	log->cap = EVENT_LOG_CAP;
	return 0;
}

/* What landed at an event, before its access (which came when its thread ran again). */
static const char *landed_name(uint32_t what)
{
	static const char *const names[] = {"", "preempt", "priority", "preempt+priority"};

	return names[(what & (VM_EVENT_LANDED_PREEMPT | VM_EVENT_LANDED_PRIORITY)) >> 16];
}

/*
 * The run's schedule events as JSON lines, one per event, in the order of
 * their schedule points ("landed": see VM_EVENT_LANDED_PREEMPT). 0 or -errno
 * (reported).
 */
int event_log_write(const struct vm_event_log *log, const char *path)
{
	FILE *f = fopen(path, "w");
	char what[32];

	if (!f) {
		rw_err_errno(errno, "cannot write the event log %s", path);
		return -errno;
	}
	for (uint32_t i = 0; i < log->count; i++) {
		const struct vm_event *ev = &log->at[i];

		counter_event_name(ev->what, what, sizeof(what));
		fprintf(f,
			"{\"index\":%llu,\"tid\":%u,\"what\":\"%s\",\"landed\":\"%s\","
			"\"pc\":\"0x%llx\",\"addr\":\"0x%llx\",\"value\":\"0x%llx\"",
			(unsigned long long)ev->index, ev->tid, what, landed_name(ev->what),
			(unsigned long long)ev->pc, (unsigned long long)ev->addr,
			(unsigned long long)ev->value);
		if (ev->what & VM_EVENT_AFTER)
			fprintf(f, ",\"after\":\"0x%llx\"", (unsigned long long)ev->after);
		fputs("}\n", f);
	}
	if (log->dropped)
		rw_err("the event log keeps the first %u events; %llu more were not logged",
		       log->cap, (unsigned long long)log->dropped);
	if (fclose(f) != 0) {
		rw_err_errno(errno, "cannot write the event log %s", path);
		return -EIO;
	}
	return 0;
}

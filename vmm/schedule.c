/* SPDX-License-Identifier: MIT */
/* Names and ordering of interrupt-injection schedules (vmm/schedule.h). */
#include "vmm/schedule.h"

#include <stddef.h>
#include <string.h>

static const char *const kind_names[INJECT_KIND_END] = {
	[INJECT_RESCHED] = "resched",
	[INJECT_STALL] = "stall",
	[INJECT_TIMER_LATE] = "timer-late",
	[INJECT_PREEMPT] = "preempt",
	[INJECT_PREEMPT_INSNS] = "preempt-insns",
	[INJECT_PRIORITY] = "priority",
	[INJECT_DEMOTE] = "demote",
};

const char *injection_kind_name(unsigned int kind)
{
	if (kind == 0 || kind >= INJECT_KIND_END)
		return NULL;
	return kind_names[kind];
}

unsigned int injection_kind_from_name(const char *name)
{
	if (!name)
		return 0;
	for (unsigned int k = 1; k < INJECT_KIND_END; k++) {
		if (strcmp(kind_names[k], name) == 0)
			return k;
	}
	return 0;
}

/*
 * Insertion sort: stable (an element only moves past strictly later steps),
 * allocation-free, and quick enough for SCHEDULE_MAX entries that usually
 * arrive nearly sorted.
 */
void schedule_sort(struct schedule *s)
{
	uint32_t n = s->count;

	if (n > SCHEDULE_MAX) /* never for a schedule from input.c; be safe anyway */
		n = SCHEDULE_MAX;

	for (uint32_t i = 1; i < n; i++) {
		struct injection cur = s->at[i];
		uint32_t j = i;

		while (j > 0 && s->at[j - 1].step > cur.step) {
			s->at[j] = s->at[j - 1];
			j--;
		}
		s->at[j] = cur;
	}
}

void schedule_queue_fill(struct schedule_queue *q, const struct schedule *s, uint32_t kinds)
{
	uint32_t n = s ? s->count : 0;

	if (n > SCHEDULE_MAX) /* never for a schedule from input.c; be safe anyway */
		n = SCHEDULE_MAX;
	q->count = 0;
	q->next = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (s->at[i].kind < INJECT_KIND_END && kinds & INJECT_KIND_BIT(s->at[i].kind))
			q->at[q->count++] = (uint16_t)i;
	}
}

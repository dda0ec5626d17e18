/* SPDX-License-Identifier: MIT */
/* The guest's output in a run's trace (harness/guest_output.h). */
#include "harness/guest_output.h"

#include "rewind/abi.h"

#include <stdlib.h>
#include <string.h>

/* Appends the payload of every output record after from to out (or counts it). */
static size_t collect_output(const struct trace *t, size_t from, char *out)
{
	size_t total = 0;
	struct trace_iter it;
	struct trace_record r;
	const uint8_t *payload;

	trace_iter_init(&it, t->buf, t->len, from);
	while (trace_iter_next(&it, &r, &payload)) {
		if (r.type == REWIND_EV_OUTPUT || r.type == REWIND_EV_PANIC) {
			if (out)
				memcpy(out + total, payload, r.len);
			total += r.len;
		}
	}
	return total;
}

char *guest_output_tail(const struct trace *t, size_t from, unsigned int lines)
{
	size_t len = collect_output(t, from, NULL), start;
	char *all = malloc(len + 1);
	unsigned int seen = 0;

	if (!all)
		return NULL;
	collect_output(t, from, all);
	all[len] = '\0';
	start = len;
	/* back over `lines` line ends, not counting a final one */
	while (start > 0 && !(all[start - 1] == '\n' && start != len && ++seen == lines))
		start--;
	if (len - start > GUEST_OUTPUT_TAIL_BYTES) /* a flood of one line */
		start = len - GUEST_OUTPUT_TAIL_BYTES;
	memmove(all, all + start, len - start + 1);
	return all;
}

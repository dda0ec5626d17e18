/* SPDX-License-Identifier: MIT */
/*
 * Test helper for the KVM tests that read a run's trace file (trace.bin):
 * the preemptions it records. Include after <cmocka.h>.
 */
#ifndef REWIND_TEST_TRACE_FILE_H
#define REWIND_TEST_TRACE_FILE_H

#include "lib/file.h"
#include "vmm/trace.h"

#include <stdint.h>
#include <stdlib.h>

/*
 * The preemptions the trace file at path records (TRACE_PREEMPT), at most
 * max: at which block or event, why (0 injection, 1 time slice; why may be
 * NULL) and the code address. The whole file must be well-formed records.
 */
static size_t preempts_in_trace(const char *path, uint64_t *blocks, uint64_t *why, uint64_t *pc,
				size_t max)
{
	struct trace_iter it;
	struct trace_record rec;
	uint8_t *data;
	size_t len, n = 0;

	assert_int_equal(file_read_all(path, &data, &len), 0);
	assert_true(len >= 8);
	assert_memory_equal(data, TRACE_MAGIC, 8);
	trace_iter_init(&it, data + 8, len - 8, 0);
	while (trace_iter_next(&it, &rec, NULL)) {
		if (rec.type != TRACE_PREEMPT || n >= max)
			continue;
		blocks[n] = rec.args[0];
		pc[n] = rec.args[2];
		if (why)
			why[n] = rec.args[1];
		n++;
	}
	assert_true(trace_iter_at_end(&it));
	free(data);
	return n;
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The coverage map afl-fuzz reads: one byte per edge of the guest's event
 * trace, set when seen (no hit counts). Fed after each execution from the
 * trace records of the job (everything after the keyframe point):
 *   - transitions between consecutive events, each event keyed by its type,
 *     the thread that made it (numbered in order of first appearance, so
 *     thread ids do not matter) and what it says (exit code, signal, a hash
 *     of the output...);
 *   - context switches: thread before and after, with the event it
 *     happened after;
 *   - injected preemptions (counter mode): the code address where each
 *     landed and whether it was the first, second or a later one;
 *   - the last COVERAGE_CLASS_BYTES bytes are reserved for the outcome:
 *     one byte for its class, one for the job's signal or exit code. The
 *     map is therefore never empty and distinct failures stay distinct.
 */
#ifndef REWIND_COVERAGE_H
#define REWIND_COVERAGE_H

#include "harness/exec_class.h"
#include "vmm/trace.h"
#include "vmm/vm.h"

#include <stddef.h>
#include <stdint.h>

#define COVERAGE_DEFAULT_SIZE (64u << 10)
#define COVERAGE_MIN_SIZE     (1u << 10)
#define COVERAGE_MAX_SIZE     (8u << 20) /* what AFL++'s forkserver can announce */
#define COVERAGE_CLASS_BYTES  64u	 /* CLASS_COUNT classes, then 32 statuses */

/*
 * Adds the records of t from byte offset from, the instrumented runtime's
 * features (feedback, may be NULL), then the outcome (class and the job's
 * wait status), to map (size bytes, a power of two). Allocates nothing.
 */
void coverage_add_trace(uint8_t *map, size_t size, const struct trace *t, size_t from,
			const struct vm_feedback *feedback, enum exec_class cls, int job_status);

/*
 * Marks only the class byte of cls in the map's tail: an execution whose
 * job never ran as asked (a rejected input).
 */
void coverage_add_class(uint8_t *map, size_t size, enum exec_class cls);

/*
 * The coverage of a pct-mode execution: the interleaving as the runtime saw
 * it (reads-from pairs, lock order), each event once without the order of
 * events and context switches, and the outcome. PCT samples change points
 * uniformly by itself; what guides it further is a load reading from a
 * store it never read from before (RFF, ASPLOS 2024). Keying on the order
 * of switches or on where change points landed would make almost every
 * sample new, and afl-fuzz calibrates every new entry: three executions
 * that search nothing.
 */
void coverage_add_interleavings(uint8_t *map, size_t size, const struct trace *t, size_t from,
				const struct vm_feedback *feedback, enum exec_class cls,
				int job_status);

#endif

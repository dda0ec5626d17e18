/* SPDX-License-Identifier: MIT */
/*
 * The guest's output as a run's trace holds it (its output and panic
 * records): the last lines, for an artifact, a failure's signature and the
 * words of a job that could not start.
 */
#ifndef REWIND_GUEST_OUTPUT_H
#define REWIND_GUEST_OUTPUT_H

#include "vmm/trace.h"

#include <stddef.h>

#define GUEST_OUTPUT_TAIL_BYTES (16u << 10) /* at most this much of the last lines */

/* The last lines of guest output since the job started (malloc'd, NUL-terminated). */
char *guest_output_tail(const struct trace *t, size_t from, unsigned int lines);

#endif

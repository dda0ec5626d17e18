/* SPDX-License-Identifier: MIT */
/*
 * `rewind trace`: prints an event trace file (RWTRACE1, vmm/trace.h) for
 * people and scripts, every record decoded into named fields. Steps are
 * printed relative to READY, as inputs count them (READY is step 0); the
 * boot's records before READY are left out unless asked for.
 */
#ifndef REWIND_TRACE_DUMP_H
#define REWIND_TRACE_DUMP_H

#include <stdbool.h>
#include <stdio.h>

struct trace_dump_options {
	bool text; /* a table for a terminal instead of JSON lines */
	bool all;  /* also the boot's records (before READY) */
};

/*
 * Prints the trace file at path to out: one JSON object a line, or a table.
 * The file is untrusted: returns 0, or -errno when it cannot be read, is not
 * a trace or is truncated (message printed, records before the damage
 * printed).
 */
int trace_dump_file(const char *path, const struct trace_dump_options *opt, FILE *out);

#endif

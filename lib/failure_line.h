/* SPDX-License-Identifier: MIT */
/*
 * "The same failure": the line a failing test names its failed check on
 * (the last line of its output), with what changes from run to run masked.
 * One rule for minimising (harness/explain/minimise.c: a schedule keeps
 * failing the same way) and for bucketing (explore/signature.c: failures
 * of a night grouped by cause).
 *
 * A number standing alone is masked to '#': a run of digits with an
 * optional sign (counts, pids: `counter is 23117`, `balance -20`), 0x and
 * hex digits (addresses), or a word of six or more hex digits with a digit
 * among them (hashes, addresses printed without 0x: `c45ca436`). Digits
 * inside a name are part of the name and kept: `depth3_transfer`, `x86_64`,
 * `worker1`; so are hex-looking words that continue a name or have no digit
 * (`cafe`, `deadbeef_x`).
 */
#ifndef REWIND_FAILURE_LINE_H
#define REWIND_FAILURE_LINE_H

#include <stddef.h>

/*
 * The last non-empty line of text (NUL-terminated), its numbers masked
 * and its unprintable bytes as '?', into out (len bytes, cut to fit).
 */
void failure_line(const char *text, char *out, size_t len);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * UTF-8 as guest output and reports check it: the one validator that
 * `rewind trace` (cli/trace_dump.c) and the night's reports
 * (reports/report.c) use to replace what is not text with U+FFFD.
 */
#ifndef REWIND_UTF8_H
#define REWIND_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * The length of the well-formed UTF-8 sequence at s, of the left bytes
 * there: 1 for ASCII, 2 to 4, or 0 where there is none (a stray or
 * missing continuation byte, an overlong form, a surrogate, past U+10FFFF).
 */
size_t utf8_sequence_length(const uint8_t *s, size_t left);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The one-line reason a refused input gets, in both of its forms
 * (schedule/input.c, schedule/input_json.c): "record 3 (offset 44): unknown
 * kind 7".
 */
#ifndef REWIND_INPUT_REASON_H
#define REWIND_INPUT_REASON_H

#include <stddef.h>

/* Writes a one-line reason into why (if any) and returns -EINVAL. */
__attribute__((format(printf, 3, 4))) int input_reject(char *why, size_t why_len, const char *fmt,
						       ...);

#endif

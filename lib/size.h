/* SPDX-License-Identifier: MIT */
/*
 * Memory sizes as both programs take them (--mem): a number with a suffix
 * K, M or G (powers of 1024, either case: 256M, 1G, 131072K), or a bare
 * number of a unit the caller chooses (MiB in both programs).
 */
#ifndef REWIND_SIZE_H
#define REWIND_SIZE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Parses text into *bytes; a bare number counts bare_unit bytes and sets
 * *bare (if not NULL). Returns 0, or -EINVAL for anything else (a sign, a
 * fraction, an unknown suffix, trailing text, or a size over 2^64 bytes).
 */
int size_parse(const char *text, uint64_t bare_unit, uint64_t *bytes, bool *bare);

#endif

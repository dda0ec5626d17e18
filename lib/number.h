/* SPDX-License-Identifier: MIT */
/*
 * Whole numbers as both programs take them on the command line: decimal,
 * or hexadecimal with 0x (--seed 0x2a, --stuck-ms 3000).
 */
#ifndef REWIND_NUMBER_H
#define REWIND_NUMBER_H

#include <stdint.h>

/*
 * Parses text into *out; what names the option in the error. Refuses a sign,
 * trailing text, overflow and a value outside min..max, with an error line
 * saying the range. Returns 0 or -EINVAL.
 */
int number_parse_u64(const char *text, const char *what, uint64_t min, uint64_t max, uint64_t *out);

#endif

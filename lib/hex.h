/* SPDX-License-Identifier: MIT */
/* One hex digit's value, for parsers of hex text (inputs' numbers, an artifact's site map). */
#ifndef REWIND_HEX_H
#define REWIND_HEX_H

/* The value of the hex digit c (0-9, a-f, A-F), or -1 if it is none. */
static inline int hex_digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif

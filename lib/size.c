/* SPDX-License-Identifier: MIT */
#include "lib/size.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

/* The shift a suffix letter stands for; -1 if it is not one. */
static int suffix_shift(char c)
{
	switch (c) {
	case 'K':
	case 'k':
		return 10;
	case 'M':
	case 'm':
		return 20;
	case 'G':
	case 'g':
		return 30;
	default:
		return -1;
	}
}

int size_parse(const char *text, uint64_t bare_unit, uint64_t *bytes, bool *bare)
{
	char *end;
	uint64_t n, unit = bare_unit;

	if (!isdigit((unsigned char)text[0]))
		return -EINVAL;
	errno = 0;
	n = strtoull(text, &end, 10);
	if (errno)
		return -EINVAL;
	if (*end) {
		int shift = suffix_shift(*end);

		if (shift < 0 || end[1])
			return -EINVAL;
		unit = 1ull << shift;
	}
	if (unit && n > UINT64_MAX / unit)
		return -EINVAL;
	*bytes = n * unit;
	if (bare)
		*bare = !*end;
	return 0;
}

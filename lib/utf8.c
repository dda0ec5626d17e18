/* SPDX-License-Identifier: MIT */
/* The UTF-8 validator (lib/utf8.h). */
#include "lib/utf8.h"

size_t utf8_sequence_length(const uint8_t *s, size_t left)
{
	uint8_t lo = 0x80, hi = 0xbf;
	size_t n;

	if (!left)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0; /* overlong */
	else if (s[0] == 0xed)
		hi = 0x9f; /* surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90; /* overlong */
	else if (s[0] == 0xf4)
		hi = 0x8f; /* past U+10FFFF */
	if (left < n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++) {
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	}
	return n;
}

/* SPDX-License-Identifier: MIT */
/* The failed-check line of a failing run's output, numbers masked (lib/failure_line.h). */
#include "lib/failure_line.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* A hash or address printed without 0x: a word of 6 or more hex digits, some of them digits. */
static size_t hex_word_length(const char *p, const char *end)
{
	const char *q = p;
	bool digit = false;

	while (q < end && isxdigit((unsigned char)*q)) {
		digit = digit || isdigit((unsigned char)*q);
		q++;
	}
	if (q < end && name_char(*q))
		return 0; /* part of a longer name */
	return digit && q - p >= 6 ? (size_t)(q - p) : 0;
}

/*
 * The length of the number at p (a sign, digits, 0x and hex digits, or a
 * bare hex word), or 0 if there is none: digits inside a name
 * (depth3_transfer, x86) are not one.
 */
static size_t number_length(const char *p, const char *end, char before)
{
	const char *q = p;
	size_t word;
	bool hex;

	if (name_char(before))
		return 0;
	word = hex_word_length(p, end);
	if (word)
		return word;
	if (*q == '-' && q + 1 < end)
		q++;
	if (!isdigit((unsigned char)*q))
		return 0;
	hex = q[0] == '0' && q + 1 < end && (q[1] == 'x' || q[1] == 'X');
	q += hex ? 2 : 0;
	while (q < end && (hex ? isxdigit((unsigned char)*q) : isdigit((unsigned char)*q)))
		q++;
	return (size_t)(q - p);
}

void failure_line(const char *text, char *out, size_t len)
{
	const char *end = text + strlen(text), *start;
	size_t o = 0;

	if (!len)
		return;
	while (end > text && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		end--;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	for (const char *p = start; p < end && o + 1 < len;) {
		size_t n = number_length(p, end, p == start ? 0 : p[-1]);

		if (n) {
			out[o++] = '#';
			p += n;
			continue;
		}
		out[o++] = isprint((unsigned char)*p) ? *p : '?';
		p++;
	}
	out[o] = 0;
}

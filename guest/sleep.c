/* SPDX-License-Identifier: MIT */
/*
 * sleep: sleeps argv[1] seconds with nanosleep(); the number may be
 * fractional ("0.25", up to 9 decimals) and is parsed exactly, with no
 * floating point. A tiny static tool, so the image needs no busybox.
 */
#include "guest/util.h"

#include <errno.h>
#include <time.h>

#define MAX_SECONDS 1000000000ull

/* Parses "S[.FFFFFFFFF]" into ts; false if text is anything else. */
static bool parse_seconds(const char *text, struct timespec *ts)
{
	uint64_t sec = 0, nsec = 0, scale = 100000000;
	const char *p = text;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		sec = sec * 10 + (uint64_t)(*p - '0');
		if (sec > MAX_SECONDS)
			return false;
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10) {
			if (scale == 0)
				return false; /* more than nanoseconds */
			nsec += (uint64_t)(*p - '0') * scale;
		}
	}
	if (*p)
		return false;
	ts->tv_sec = (time_t)sec;
	ts->tv_nsec = (long)nsec;
	return true;
}

int main(int argc, char **argv)
{
	struct timespec left;

	if (argc != 2 || !parse_seconds(argv[1], &left))
		gu_die("usage: sleep SECONDS (e.g. 1 or 0.25)");
	while (nanosleep(&left, &left) < 0)
		if (errno != EINTR)
			gu_die_errno("nanosleep");
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * clock_wait [MS]: waits MS milliseconds of each clock (default 20) by
 * polling it, as tests that busy-wait on the clock do: CLOCK_MONOTONIC,
 * CLOCK_MONOTONIC_COARSE, CLOCK_REALTIME, gettimeofday() and RDTSC, with
 * no sleep and no other system call. On real hardware each loop ends after
 * MS ms; in the Rewind guest every clock read moves virtual time on, so
 * each ends too, after the same number of reads every run. Prints the
 * reads each wait took.
 */
#include "guest/util.h"

#include <stdint.h>
#include <sys/time.h>
#include <time.h>
#include <x86intrin.h>

static uint64_t ns_of(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts) < 0)
		gu_die_errno("clock_gettime(%d)", (int)clock);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t wait_clock(clockid_t clock, uint64_t ns)
{
	uint64_t start = ns_of(clock), reads = 1;

	while (ns_of(clock) - start < ns)
		reads++;
	return reads;
}

static uint64_t us_of_day(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (uint64_t)tv.tv_sec * 1000000ull + (uint64_t)tv.tv_usec;
}

static uint64_t wait_gettimeofday(uint64_t ns)
{
	uint64_t start = us_of_day(), reads = 1;

	while ((us_of_day() - start) * 1000 < ns)
		reads++;
	return reads;
}

/* RDTSC ticks: calibrated against CLOCK_MONOTONIC first, as programs do. */
static uint64_t wait_tsc(uint64_t ns)
{
	uint64_t t0 = ns_of(CLOCK_MONOTONIC), c0 = __rdtsc(), reads = 0;
	uint64_t per_ms, start;

	while (ns_of(CLOCK_MONOTONIC) - t0 < 1000000)
		;
	per_ms = __rdtsc() - c0;
	start = __rdtsc();
	do
		reads++;
	while ((__rdtsc() - start) * 1000000 / per_ms < ns);
	return reads;
}

int main(int argc, char **argv)
{
	uint64_t ms = 20;

	if (argc > 1 && !gu_parse_u64(argv[1], 1, 10000, &ms))
		gu_die("usage: clock_wait [MS] (1..10000)");
	gu_say("clock_wait: %llu ms of CLOCK_MONOTONIC took %llu reads\n", (unsigned long long)ms,
	       (unsigned long long)wait_clock(CLOCK_MONOTONIC, ms * 1000000));
	gu_say("clock_wait: %llu ms of CLOCK_MONOTONIC_COARSE took %llu reads\n",
	       (unsigned long long)ms,
	       (unsigned long long)wait_clock(CLOCK_MONOTONIC_COARSE, ms * 1000000));
	gu_say("clock_wait: %llu ms of CLOCK_REALTIME took %llu reads\n", (unsigned long long)ms,
	       (unsigned long long)wait_clock(CLOCK_REALTIME, ms * 1000000));
	gu_say("clock_wait: %llu ms of gettimeofday took %llu reads\n", (unsigned long long)ms,
	       (unsigned long long)wait_gettimeofday(ms * 1000000));
	gu_say("clock_wait: %llu ms of RDTSC took %llu reads\n", (unsigned long long)ms,
	       (unsigned long long)wait_tsc(ms * 1000000));
	return 0;
}

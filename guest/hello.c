/* SPDX-License-Identifier: MIT */
/*
 * hello: the Rewind demo. Prints the wall clock, a random number from
 * getrandom(), the address of a stack variable, sleeps one second, then
 * prints the wall clock again and the elapsed monotonic time. On an ordinary
 * machine every run prints different values; under Rewind's deterministic
 * VMM the output is the same, to the nanosecond, on every run.
 */
#include "guest/util.h"

#include <errno.h>
#include <inttypes.h>
#include <sys/random.h>
#include <time.h>

static uint64_t random_u64(void)
{
	uint64_t value;
	ssize_t n = getrandom(&value, sizeof(value), 0);

	if (n < 0)
		gu_die_errno("getrandom");
	if (n != (ssize_t)sizeof(value))
		gu_die("getrandom returned %zd bytes, not %zu", n, sizeof(value));
	return value;
}

static void sleep_one_second(void)
{
	struct timespec left = {.tv_sec = 1, .tv_nsec = 0};

	while (nanosleep(&left, &left) < 0)
		if (errno != EINTR)
			gu_die_errno("nanosleep");
}

static int64_t ns_between(struct timespec a, struct timespec b)
{
	return (int64_t)(b.tv_sec - a.tv_sec) * 1000000000 + (b.tv_nsec - a.tv_nsec);
}

int main(void)
{
	int on_stack = 0;
	struct timespec wall, start, end;

	wall = gu_now(CLOCK_REALTIME, "CLOCK_REALTIME");
	start = gu_now(CLOCK_MONOTONIC, "CLOCK_MONOTONIC");
	gu_say("realtime: %lld.%09ld\n", (long long)wall.tv_sec, wall.tv_nsec);
	gu_say("getrandom: 0x%016" PRIx64 "\n", random_u64());
	gu_say("stack: %p\n", (void *)&on_stack);
	sleep_one_second();
	wall = gu_now(CLOCK_REALTIME, "CLOCK_REALTIME");
	end = gu_now(CLOCK_MONOTONIC, "CLOCK_MONOTONIC");
	gu_say("realtime: %lld.%09ld\n", (long long)wall.tv_sec, wall.tv_nsec);
	gu_say("elapsed: %" PRId64 " ns\n", ns_between(start, end));
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * yield: calls sched_yield() N times. Each call is one exit to the VMM, so
 * this measures the VMM's raw exits per second (bench/keyframe).
 * usage: yield N
 */
#include "guest/util.h"

#include <sched.h>

int main(int argc, char **argv)
{
	uint64_t n;

	if (argc != 2 || !gu_parse_u64(argv[1], 1, UINT64_C(1) << 40, &n))
		gu_die("usage: yield N");
	for (uint64_t i = 0; i < n; i++)
		sched_yield();
	return 0;
}

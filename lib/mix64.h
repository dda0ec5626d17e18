/* SPDX-License-Identifier: MIT */
/*
 * splitmix64's finaliser: a well-mixed 64-bit function of x, for numbers a
 * run draws from its seed (vmm/pct.c's priorities, vmm/counter.c's slice
 * lengths). The guest runtime's walk draws (guest/runtime/walk.c) use the
 * same steps; it cannot include lib/.
 */
#ifndef REWIND_MIX64_H
#define REWIND_MIX64_H

#include <stdint.h>

static inline uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ x >> 27) * 0x94d049bb133111ebull;
	return x ^ x >> 31;
}

#endif

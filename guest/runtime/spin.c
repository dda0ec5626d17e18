/* SPDX-License-Identifier: MIT */
/*
 * Spin-waits, recognised (pct mode). A thread that waits for another by
 * loading a flag in a loop (spin locks, spin barriers, a thread pool's
 * hand-off) never blocks; under SCHED_FIFO the highest-priority spinner
 * keeps the CPU, and only the VMM's time slice (200,000 events) would let
 * the thread it waits for run. A fair scheduler lets that thread run soon;
 * so does this: a thread whose loads keep finding the same value at the
 * same few addresses, SPIN_REPEATS times with no load seeing a change,
 * yields as a sched_yield() does (counter.c: it drops to the lowest
 * priority). Only the thread's own loads decide, so a run stays a pure
 * function of its input. A load that sees a new value (progress) starts
 * the count again; a store by the thread to an address forgets that
 * address (a thread that loads what it stores, `spins++`, is not waiting
 * on it).
 */
#include "guest/runtime/runtime.h"

#include <string.h>

#define SPIN_RING    8	 /* the addresses a spin may poll at once (a pool's done flags) */
#define SPIN_REPEATS 256 /* unchanged loads in a row that make a spin */

struct polled {
	uintptr_t addr;
	uint64_t value;
};

static __thread struct polled ring[SPIN_RING];
static __thread unsigned int ring_next, repeats;

void rt_spin_load(uintptr_t addr, unsigned long size)
{
	uint64_t value = 0;

	if (!rt_pct_priorities || size > sizeof(value))
		return;
	memcpy(&value, (const void *)addr, size); /* what the program is about to load */
	for (unsigned int i = 0; i < SPIN_RING; i++) {
		if (ring[i].addr != addr)
			continue;
		if (ring[i].value != value) {
			ring[i].value = value;
			repeats = 0;
		} else if (++repeats >= SPIN_REPEATS) {
			repeats = 0;
			rt_yield_to_others();
		}
		return;
	}
	ring[ring_next] = (struct polled){.addr = addr, .value = value};
	ring_next = (ring_next + 1) % SPIN_RING;
}

void rt_spin_store(uintptr_t addr)
{
	for (unsigned int i = 0; i < SPIN_RING; i++)
		if (ring[i].addr == addr)
			ring[i].addr = 0;
}

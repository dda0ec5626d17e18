/* SPDX-License-Identifier: MIT */
/*
 * Spin-waits, recognised (pct mode). A thread that waits for another by
 * loading a flag in a loop (spin locks, spin barriers, a thread pool's
 * hand-off) never blocks; under SCHED_FIFO the highest-priority spinner
 * keeps the CPU, and only the VMM's time slice (200,000 events) would let
 * the thread it waits for run. A fair scheduler lets that thread run soon;
 * so does this: a thread whose loads keep finding the same value at the
 * same few addresses, SPIN_REPEATS times with no load seeing a change,
 * yields as a sched_yield() does (call.c: it drops to the lowest
 * priority). Only the thread's own loads decide, so a run stays a pure
 * function of its input. A load that sees a new value (progress) starts
 * the count again.
 *
 * A thread's own stores are told apart from progress without reading
 * memory again (it may be freed by then): a store to a watched address
 * marks it, and the thread's next load there compares with the value it
 * loaded before the store. The same value means the store changed nothing
 * (a test-and-set emulated under a lock writes SET over the SET it found,
 * in every turn of its spin): unchanged, it counts. A new value is the
 * thread's own write (`spins++`): neither progress nor a repeat.
 *
 * A spin found while the thread holds a lock (that emulated test-and-set
 * polls under its mutex) yields when the thread has released its locks
 * (sync.c's wrappers tell): a spinner that yields with the mutex held
 * takes it again before the thread it waits for, which needs the mutex
 * to clear the flag, ever finds it free. A thread that keeps spinning with
 * a lock held yields there after SPIN_REPEATS_LOCKED.
 */
#include "guest/runtime/runtime.h"

#include <stdbool.h>
#include <string.h>

#define SPIN_RING	    8	 /* the addresses a spin may poll at once (a pool's done flags) */
#define SPIN_REPEATS	    256	 /* unchanged loads in a row that make a spin */
#define SPIN_REPEATS_LOCKED 4096 /* the same, with a lock held the whole time */

struct polled {
	uintptr_t addr;
	uint64_t value; /* what the thread last loaded there */
	bool stored;	/* the thread stored there since */
};

static __thread struct polled ring[SPIN_RING];
static __thread unsigned int ring_next, repeats, locks_held;
static __thread bool yield_due; /* a spin was found with a lock held */

static void yield_for_spin(void)
{
	repeats = 0;
	yield_due = false;
	rt_yield_to_others();
}

/* One more unchanged load. */
static void repeated(void)
{
	if (++repeats < SPIN_REPEATS)
		return;
	if (!locks_held || repeats >= SPIN_REPEATS_LOCKED)
		yield_for_spin();
	else
		yield_due = true;
}

/* A load of value from a watched address p. */
static void reload(struct polled *p, uint64_t value)
{
	bool own_write = p->stored;

	p->stored = false;
	if (p->value == value) {
		repeated();
		return;
	}
	p->value = value;
	if (!own_write) { /* progress */
		repeats = 0;
		yield_due = false;
	}
}

void rt_spin_load(uintptr_t addr, unsigned long size)
{
	uint64_t value = 0;

	if (!rt_pct_priorities || size > sizeof(value))
		return;
	memcpy(&value, (const void *)addr, size); /* what the program is about to load */
	for (unsigned int i = 0; i < SPIN_RING; i++)
		if (ring[i].addr == addr) {
			reload(&ring[i], value);
			return;
		}
	ring[ring_next] = (struct polled){.addr = addr, .value = value};
	ring_next = (ring_next + 1) % SPIN_RING;
}

void rt_spin_store(uintptr_t addr)
{
	for (unsigned int i = 0; i < SPIN_RING; i++)
		if (ring[i].addr == addr)
			ring[i].stored = true;
}

void rt_spin_locked(void)
{
	locks_held++;
}

void rt_spin_unlocked(void)
{
	if (locks_held)
		locks_held--;
	if (!locks_held && yield_due)
		yield_for_spin();
}

/* SPDX-License-Identifier: MIT */
/*
 * Feedback that sees interleavings, kept in the guest and read by the VMM
 * (it becomes afl-fuzz coverage): one bit per feature in a map the VMM reads
 * through REWIND_RT_FEEDBACK, without an exit per feature.
 *   - reads-from: for each shared load that reads from another thread's
 *     store, the site of the store and the site of the load (a thread
 *     reading its own store, or a value no instrumented store wrote, says
 *     nothing of the interleaving: each new such pair would only cost
 *     afl-fuzz three calibration runs);
 *   - lock order: a lock taken at one site while one taken at another is held.
 * Sites are code addresses (a static binary: the same on every run). The
 * last store to each address is remembered in a small direct-mapped table;
 * a collision forgets the older store, which only blurs a feature.
 */
#include "guest/runtime/runtime.h"
#include "rewind/abi.h"

#include <sys/mman.h>
#include <unistd.h>

#define SHADOW_SLOTS 4096 /* a power of two */
#define HELD_MAX     4	  /* locks remembered per thread for the lock order */

static uint8_t map[REWIND_FEEDBACK_BYTES] __attribute__((aligned(4096)));
static int on; /* the VMM reads the map */

struct store {
	uintptr_t addr;
	uint32_t site;
	uint32_t thread;
};
static struct store last_store[SHADOW_SLOTS];

struct held {
	uintptr_t lock;
	uint32_t site;
};
static __thread struct held held[HELD_MAX];
static __thread unsigned int held_count;

static inline uint32_t mix3(uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t h = a * 0x9e3779b1u ^ (b + 0x7f4a7c15u) * 0x85ebca6bu ^ c * 0xc2b2ae35u;

	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	return h ^ h >> 13;
}

static inline void feature(uint32_t h)
{
	uint32_t bit = h % (REWIND_FEEDBACK_BYTES * 8);
	uint8_t mask = (uint8_t)(1u << (bit & 7));

	if (!(map[bit >> 3] & mask)) /* written once: a page the VMM restores, dirtied once */
		map[bit >> 3] |= mask;
}

static inline struct store *slot(uintptr_t addr)
{
	return &last_store[(uint32_t)(addr >> 2) * 0x9e3779b1u >> 20 & (SHADOW_SLOTS - 1)];
}

void rt_feedback_store(uintptr_t pc, uintptr_t addr)
{
	struct store *s;

	if (!on)
		return;
	s = slot(addr);
	*s = (struct store){.addr = addr, .site = (uint32_t)pc, .thread = rt_thread_number()};
}

void rt_feedback_load(uintptr_t pc, uintptr_t addr)
{
	const struct store *s;
	uint32_t from = 0, other = 0;

	if (!on)
		return;
	s = slot(addr);
	if (s->addr == addr) {
		from = s->site;
		other = s->thread != rt_thread_number();
	}
	if (other) /* reading its own store, or an unwritten value, says nothing of the interleaving
		    */
		feature(mix3((uint32_t)pc, from, other));
}

void rt_feedback_lock(uintptr_t pc, uintptr_t lock)
{
	if (!on)
		return;
	for (unsigned int i = 0; i < held_count; i++)
		feature(mix3(held[i].site, (uint32_t)pc, 0x10c));
	if (held_count == HELD_MAX) { /* forget the oldest */
		for (unsigned int i = 1; i < HELD_MAX; i++)
			held[i - 1] = held[i];
		held_count--;
	}
	held[held_count++] = (struct held){.lock = lock, .site = (uint32_t)pc};
}

void rt_feedback_unlock(uintptr_t lock)
{
	for (unsigned int i = held_count; i-- > 0;) {
		if (held[i].lock != lock)
			continue;
		for (unsigned int j = i + 1; j < held_count; j++)
			held[j - 1] = held[j];
		held_count--;
		return;
	}
}

/* The map's pages must exist and stay where they are while the VMM reads them. */
void rt_feedback_register(void)
{
	for (unsigned int i = 0; i < sizeof(map); i += 4096)
		__atomic_store_n(&map[i], 0, __ATOMIC_RELAXED);
	mlock(map, sizeof(map));
	on = rt_call(REWIND_RT_FEEDBACK, (uintptr_t)map, (uintptr_t)getpid()) == 1;
}

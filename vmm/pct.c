/* SPDX-License-Identifier: MIT */
/*
 * Priority schedules (PCT, pct mode): every thread of an instrumented job
 * runs as SCHED_FIFO with a priority the VMM hands out when the thread is
 * created, so on the one vCPU the highest-priority runnable thread runs;
 * `demote` injections (vmm/counter.c) lower the running thread's priority
 * at chosen events. A thread without a `priority` injection gets one drawn
 * from the execution seed: a new seed is a new random priority order.
 */
#include "vmm/pct.h"

#include "vmm/schedule.h"
#include "vmm/vm.h"

/* splitmix64's finaliser: a well-mixed function of the seed and the thread number. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ x >> 27) * 0x94d049bb133111ebull;
	return x ^ x >> 31;
}

/* A thread's priority from the seed: 16..95, or 50..95 for wide priorities (more room below). */
static uint32_t drawn_priority(const struct vm *vm, uint32_t thread)
{
	uint64_t seed = (uint64_t)vm->cfg.exec_seed[1] << 32 | vm->cfg.exec_seed[0];
	uint64_t mixed = mix64(seed ^ mix64(thread));

	if (vm->cfg.pct_wide)
		return PCT_PRIO_WIDE_MIN + (uint32_t)(mixed % PCT_PRIO_WIDE);
	return PCT_PRIO_DRAWN_MIN + (uint32_t)(mixed % PCT_PRIO_DRAWN);
}

uint32_t pct_thread_priority(struct vm *vm)
{
	const struct schedule *s = vm->schedule;
	uint32_t thread, prio;

	if (!vm->cfg.pct || vm->counter.fair) /* fair: new threads inherit SCHED_OTHER */
		return 0;
	thread = vm->counter.threads++;
	prio = drawn_priority(vm, thread);
	for (uint32_t i = 0; s && i < s->count; i++) /* the last one for this thread wins */
		if (s->at[i].kind == INJECT_PRIORITY && s->at[i].step == thread)
			prio = s->at[i].arg;
	return prio >= 1 && prio <= INJECT_PRIO_MAX ? prio : drawn_priority(vm, thread);
}

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

#include "lib/mix64.h"
#include "vmm/schedule.h"
#include "vmm/user_context.h"
#include "vmm/vm.h"

#include <string.h>

/* A thread's priority from the seed: 16..95, or 50..95 for wide priorities (more room below). */
static uint32_t drawn_priority(const struct vm *vm, uint32_t thread)
{
	uint64_t seed = (uint64_t)vm->cfg.exec_seed[1] << 32 | vm->cfg.exec_seed[0];
	uint64_t mixed = mix64(seed ^ mix64(thread));

	if (vm->cfg.pct_walk) /* a walk: every thread rests at one priority (abi.h) */
		return REWIND_WALK_PRIO_REST;
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

/* The walk's seed: the execution seed's, apart from the threads' drawn priorities. */
static uint64_t walk_seed(const struct vm *vm)
{
	uint64_t seed = (uint64_t)vm->cfg.exec_seed[1] << 32 | vm->cfg.exec_seed[0];

	return mix64(seed ^ 0x77616c6b77616c6bull); /* "walkwalk" */
}

/* A walk's page as the runtime reads it: the seed, and the profile's events as weights. */
static bool write_walk(struct vm *vm, uint64_t page)
{
	static struct rewind_walk w;
	const struct pct_walk_profile *p = vm->cfg.walk_profile;

	memset(&w, 0, sizeof(w));
	w.seed = walk_seed(vm);
	if (p && p->threads <= REWIND_WALK_THREADS) {
		w.threads = p->threads;
		memcpy(w.events, p->events, sizeof(w.events[0]) * p->threads);
	}
	return guest_virt_write(vm, page, &w, sizeof(w));
}

uint32_t pct_runtime_start(struct vm *vm, uint64_t page, uint32_t pid)
{
	uint32_t prio = pct_thread_priority(vm);

	if (!prio || page % 4096 || page + sizeof(struct rewind_walk) < page)
		return prio;
	if (vm->cfg.pct_walk)
		return write_walk(vm, page) ? prio | REWIND_WALK_ON : prio;
	if (!vm->cfg.walk_count)
		return prio;
	/* the last process to start is the one counted (a runner's test) */
	vm->counter.walk_page = page;
	vm->counter.walk_pid = pid;
	return prio | REWIND_WALK_COUNT;
}

void pct_walk_flush(struct vm *vm, uint32_t pid)
{
	static struct rewind_walk w;
	struct pct_walk_profile *out = vm->cfg.walk_count;
	uint32_t n = 0;

	if (!out || !vm->counter.walk_page || pid != vm->counter.walk_pid ||
	    !guest_virt_copy(vm, vm->counter.walk_page, &w, sizeof(w)))
		return;
	for (uint32_t i = 0; i < REWIND_WALK_THREADS; i++)
		if (w.events[i])
			n = i + 1;
	out->threads = n;
	memcpy(out->events, w.events, sizeof(out->events));
}

/* SPDX-License-Identifier: MIT */
/*
 * What the runtime knows about the calling thread: its number, and the
 * bounds of its own stack, whose accesses are private to it and so no
 * schedule events; and how many of the process's threads are alive (in pct
 * mode a process with one makes no events: runtime.h rt_events_off).
 */
#include "guest/runtime/runtime.h"

#include <pthread.h>

#define MAIN_STACK_MAX (8u << 20) /* the main thread's stack may grow this far down */

static __thread uintptr_t stack_lo, stack_hi;
static __thread uint32_t number;
static uint32_t threads_seen;

int rt_events_off;
/* Counted from before its creation to its end (a thread that never makes an
 * event is never seen to end: the count errs towards more events). */
static uint32_t threads_live = 1;
static uint32_t creations_unclaimed; /* counted, not yet seen running */
static pthread_key_t live_key;	     /* its destructor sees a thread end */
static int live_key_made;

static void update_events_off(void)
{
	rt_events_off = rt_pct_priorities && __atomic_load_n(&threads_live, __ATOMIC_RELAXED) < 2;
}

static void thread_ended(void *unused)
{
	(void)unused;
	rt_walk_thread_ended();
	__atomic_sub_fetch(&threads_live, 1, __ATOMIC_RELAXED);
	update_events_off();
}

void rt_threads_start(void)
{
	live_key_made = pthread_key_create(&live_key, thread_ended) == 0;
	update_events_off();
}

void rt_thread_creating(void)
{
	__atomic_add_fetch(&threads_live, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&creations_unclaimed, 1, __ATOMIC_RELAXED);
	rt_events_off = 0;
}

void rt_thread_not_created(void)
{
	__atomic_sub_fetch(&creations_unclaimed, 1, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&threads_live, 1, __ATOMIC_RELAXED);
	update_events_off();
}

void rt_threads_forked(void)
{
	threads_live = 1;
	creations_unclaimed = 0;
	update_events_off();
}

/* A thread's first event: it was counted at its creation, or is counted now
 * (one the wrapper did not see created); its end is seen from here on. */
static void thread_seen(void)
{
	uint32_t unclaimed = __atomic_load_n(&creations_unclaimed, __ATOMIC_RELAXED);

	if (unclaimed)
		__atomic_store_n(&creations_unclaimed, unclaimed - 1, __ATOMIC_RELAXED);
	else
		__atomic_add_fetch(&threads_live, 1, __ATOMIC_RELAXED);
	update_events_off();
	pthread_setspecific(live_key, &number);
}

/* The first call is made by each thread itself (the main thread's from the runtime's constructor).
 */
static void find_stack(void)
{
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	pthread_attr_t attr;
	void *base;
	size_t size;

	stack_lo = here - MAIN_STACK_MAX;
	stack_hi = here + 4096;
	if (pthread_getattr_np(pthread_self(), &attr) != 0)
		return;
	if (pthread_attr_getstack(&attr, &base, &size) == 0 && size) {
		stack_hi = (uintptr_t)base + size;
		stack_lo = (uintptr_t)base;
		if (size < MAIN_STACK_MAX && stack_hi - MAIN_STACK_MAX < stack_lo && number == 1)
			stack_lo = stack_hi - MAIN_STACK_MAX; /* main: the stack grows on demand */
	}
	pthread_attr_destroy(&attr);
}

uint32_t rt_thread_number(void)
{
	if (__builtin_expect(!number, 0)) {
		number = __atomic_add_fetch(&threads_seen, 1, __ATOMIC_RELAXED);
		if (number > 1 && live_key_made)
			thread_seen();
	}
	return number;
}

int rt_on_own_stack(uintptr_t addr)
{
	if (__builtin_expect(!stack_hi, 0)) {
		rt_thread_number();
		find_stack();
	}
	return addr - stack_lo < stack_hi - stack_lo;
}

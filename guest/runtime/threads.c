/*
 * What the runtime knows about the calling thread: its number, and the
 * bounds of its own stack, whose accesses are private to it and so no
 * schedule events.
 */
#include "guest/runtime/runtime.h"

#include <pthread.h>

#define MAIN_STACK_MAX (8u << 20) /* the main thread's stack may grow this far down */

static __thread uintptr_t stack_lo, stack_hi;
static __thread uint32_t number;
static uint32_t threads_seen;

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
	if (__builtin_expect(!number, 0))
		number = __atomic_add_fetch(&threads_seen, 1, __ATOMIC_RELAXED);
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

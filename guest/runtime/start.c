/* SPDX-License-Identifier: MIT */
/*
 * The runtime's start and end: before main (and before any thread), whether
 * the program runs under Rewind, its ports, the main thread's priority, the
 * threads, the feedback map and the site map, then the countdown's first
 * read (counter.c); at a normal exit, the last flush. The top of the runtime.
 */
#include "guest/runtime/runtime.h"
#include "rewind/abi.h"

#include <errno.h>
#include <pthread.h>
#include <sys/io.h>

static int under_rewind(void)
{
	uint32_t eax = REWIND_CPUID_SIGNATURE, ebx, ecx = 0, edx;

	__asm__ volatile("cpuid" : "+a"(eax), "=b"(ebx), "+c"(ecx), "=d"(edx));
	return ebx == REWIND_SIGNATURE_EBX && ecx == REWIND_SIGNATURE_ECX &&
	       edx == REWIND_SIGNATURE_EDX;
}

/* A forked child: its one thread goes on, counting on a countdown of its own. */
static void runtime_forked(void)
{
	rt_threads_forked();
	rt_counter_forked();
}

/*
 * Before main and before any thread (threads inherit the port access): the
 * main thread's priority (PCT mode), the feedback map, then the first read,
 * which says whether this run counts events and may already preempt.
 */
__attribute__((constructor(101))) static void runtime_start(void)
{
	uint32_t prio;

	/* rewind-init grants the ports to every job; a job that is not root
	 * cannot ask for them (EPERM) but has them */
	if (!under_rewind() ||
	    (ioperm(REWIND_RUNTIME_PORTS, REWIND_RUNTIME_PORTS_SPAN, 1) < 0 && errno != EPERM))
		return;
	rt_under_rewind = 1;
	rt_on_own_stack(0);	/* the main thread's stack bounds, from here */
	prio = rt_walk_start(); /* the main thread's priority, and whether this run walks */
	if (prio) {
		rt_pct_priorities = 1;
		rt_set_priority(prio);
	}
	rt_threads_start();
	rt_feedback_register();
	rt_sites_register();
	pthread_atfork(NULL, NULL, runtime_forked);
	rt_counter_start();
}

/* The program exits normally: the VMM takes the feedback while it still can. */
__attribute__((destructor(101))) static void runtime_stop(void)
{
	rt_counter_flush();
}

/* SPDX-License-Identifier: MIT */
/*
 * The runtime's calls to the VMM (REWIND_PORT_RUNTIME) and the thread
 * priorities it sets: the bottom of the runtime, which every other piece
 * may use.
 */
#include "guest/runtime/runtime.h"
#include "rewind/abi.h"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

int rt_under_rewind;
int rt_pct_priorities; /* the VMM hands out SCHED_FIFO priorities (pct mode) */

/* The lowest SCHED_FIFO priority: where the VMM also puts a thread whose pct
 * time slice ran out (vmm/counter.c). */
#define YIELD_PRIO 1

uint32_t rt_call(uint32_t call, uintptr_t arg, uintptr_t arg2)
{
	uint32_t answer;

	if (!rt_under_rewind)
		return 0;
	__asm__ volatile("inl %w1, %0"
			 : "=a"(answer)
			 : "Nd"((uint16_t)REWIND_PORT_RUNTIME), "D"((uintptr_t)call), "S"(arg),
			   "c"(arg2)
			 : "memory");
	return answer;
}

/* musl's sched_setscheduler() is a stub (ENOSYS): make the system call. */
void rt_set_priority(uint32_t prio)
{
	struct sched_param param = {.sched_priority = (int)prio};

	syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &param);
}

/*
 * sched_yield() (guest/rewind-cc links the program with --wrap=sched_yield).
 * Under SCHED_FIFO a yield returns at once to the yielding thread when it
 * has the highest priority, so a thread that waits for another with a
 * yield loop would starve it forever: a livelock no fair scheduler shows.
 * In pct mode a yield first drops the thread to the lowest priority, as
 * controlled schedulers treat a yield (CHESS): every thread that can run
 * runs before it again, and threads that all wait this way take turns.
 */
int __real_sched_yield(void);
int __wrap_sched_yield(void);
int __wrap_sched_yield(void)
{
	if (rt_pct_priorities)
		rt_set_priority(YIELD_PRIO);
	return __real_sched_yield();
}

void rt_yield_to_others(void)
{
	__wrap_sched_yield();
}

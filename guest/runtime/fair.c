/* SPDX-License-Identifier: MIT */
/*
 * The fair continuation of a pct run (vmm/counter.c): when a run under
 * priorities has not ended within its step budget, the VMM lets it go on
 * under the kernel's fair scheduler before it calls it a livelock. A wait
 * the runtime does not recognise (spin.c) can starve the thread it waits
 * for under SCHED_FIFO, and no fair scheduler shows that. Here every
 * thread of the process leaves SCHED_FIFO for SCHED_OTHER, once: the
 * others first (lowered, they cannot take the CPU from this one), this
 * thread last. From then on yields and spins are plain ones
 * (rt_pct_priorities is 0) and new threads inherit SCHED_OTHER. The
 * threads come from /proc/self/task, read with getdents64 into a buffer on
 * the stack: no allocation in the middle of an event.
 */
#include "guest/runtime/runtime.h"

#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

struct task_entry {   /* the kernel's struct linux_dirent64: its layout */
	uint64_t ino; /* cppcheck-suppress unusedStructMember */
	int64_t off;  /* cppcheck-suppress unusedStructMember */
	unsigned short reclen;
	unsigned char type; /* cppcheck-suppress unusedStructMember */
	char name[];
};

static int fair; /* this process left SCHED_FIFO */

static void leave_fifo(long tid)
{
	struct sched_param param = {.sched_priority = 0};

	/* musl's sched_setscheduler() is a stub (ENOSYS): the system call */
	syscall(SYS_sched_setscheduler, tid, SCHED_OTHER, &param);
}

static long tid_of(const char *name)
{
	long tid = 0;

	for (; *name >= '0' && *name <= '9'; name++)
		tid = tid * 10 + (*name - '0');
	return *name ? 0 : tid;
}

/* Every other thread of the process to SCHED_OTHER (none if /proc is not there). */
static void others_leave_fifo(long self)
{
	char buf[4096] __attribute__((aligned(8)));
	int dir = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;

	if (dir < 0)
		return;
	while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0)
		for (long at = 0; at < n;) {
			const struct task_entry *e = (const struct task_entry *)(buf + at);
			long tid = tid_of(e->name);

			if (tid > 0 && tid != self)
				leave_fifo(tid);
			at += e->reclen;
		}
	close(dir);
}

void rt_schedule_fairly(void)
{
	long self = syscall(SYS_gettid);

	if (fair)
		return;
	fair = 1;
	rt_pct_priorities = 0;
	others_leave_fifo(self);
	leave_fifo(self);
}

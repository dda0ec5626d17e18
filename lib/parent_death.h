/* SPDX-License-Identifier: MIT */
/*
 * A child of rewind explore (or rewind report) ends with the process that
 * forked it: a `kill -9` of the night (a cron job's `timeout -s KILL`)
 * leaves no worker, afl-fuzz or tool running on its own. Each fork of
 * theirs (explore/, reports/, lib/spawn.c) calls this in the child, before
 * exec or the child's own work.
 */
#ifndef REWIND_PARENT_DEATH_H
#define REWIND_PARENT_DEATH_H

#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <unistd.h>

/*
 * In the child just after fork (async-signal-safe): asks for SIGTERM when
 * the parent ends. parent is the parent's getpid() taken before the fork:
 * a parent that ended before the prctl sends nothing, and getppid() no
 * longer names it. 0; -errno when prctl failed; -ESRCH when the parent has
 * ended already (the child should _exit quietly).
 */
static inline int parent_death_signal(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0)
		return -errno;
	return getppid() == parent ? 0 : -ESRCH;
}

#endif

/* SPDX-License-Identifier: MIT */
/* `rewind fuzz`'s children: waited for with word of a slow start; their logs. */
#include "harness/fuzz/fuzz.h"

#include "lib/file.h"
#include "lib/host_time.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define STILL_RUNNING_EVERY_S 15.0

int fuzz_wait_child(pid_t pid, const char *what)
{
	double start = host_time_seconds(), next = start + STILL_RUNNING_EVERY_S;
	double kill_at = 0;
	int status;

	for (;;) {
		pid_t got = waitpid(pid, &status, WNOHANG);
		double now = host_time_seconds();

		if (got == pid)
			return status;
		if (got < 0 && errno != EINTR)
			return -1;
		if (now >= next) {
			fuzz_say("%4.0fs  still waiting for %s (a guest boots first; a loaded "
				 "machine makes that slow)\n",
				 now - start, what);
			/* from now: after a stall of the whole machine (a box whose host
			 * cores were all busy), one line, not one for each 15 s missed */
			next = now + STILL_RUNNING_EVERY_S;
		}
		if (fuzz_stop_signal && !kill_at) {
			kill(pid, SIGTERM);
			kill_at = now + 10;
		} else if (kill_at && now > kill_at) {
			kill(pid, SIGKILL);
		}
		usleep(50 * 1000);
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * spin_wait: a thread spins on a flag that another thread sets after a
 * short sleep. Not a bug on a machine with two CPUs, nor with a preemptive
 * timer tick; on Rewind's one vCPU it shows what each mode does with a
 * thread that computes without system calls:
 *   - exit mode: the spinning thread makes no exit, so no timer interrupt
 *     ever reaches the guest and the sleeper never wakes: the run ends as
 *     "stuck in user space" (never a hang);
 *   - counter mode: the default time slice preempts the spinner every N
 *     basic blocks, virtual time moves with the blocks run, the sleeper's
 *     timer fires and sets the flag, and the program exits 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define LOAD(p)	    __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

static int ready;

static void *setter(void *arg)
{
	struct timespec nap = {.tv_sec = 0, .tv_nsec = 1000000}; /* 1 ms */

	(void)arg;
	nanosleep(&nap, NULL);
	STORE(&ready, 1);
	return NULL;
}

int main(void)
{
	pthread_t thread;
	unsigned long spins = 0;

	if (pthread_create(&thread, NULL, setter, NULL) != 0) {
		fputs("spin_wait: pthread_create failed\n", stderr);
		return 2;
	}
	while (!LOAD(&ready))
		spins++;
	pthread_join(thread, NULL);
	printf("spin_wait: the flag came after %s spins\n", spins ? "some" : "no");
	return 0;
}

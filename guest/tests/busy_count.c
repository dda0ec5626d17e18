/* SPDX-License-Identifier: MIT */
/*
 * busy_count: a correct program, no bug, that Rewind cannot rescue. main
 * waits for a thread it created to set a flag after a short sleep, and
 * counts its turns in a variable in memory while it waits: each turn
 * writes memory, so the spin is never at a fixed point. On a real machine
 * the tick preempts main, time passes and the thread sets the flag; on
 * Rewind's one vCPU, run without events (exit mode, a plain build),
 * nothing does, and the run ends stuck, its detail saying that the spin
 * was not a pure one. (The same wait with a pure spin is rescued:
 * guest/tests/spawn_queue.c.)
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static int flag;

static void *setter(void *arg)
{
	struct timespec nap = {.tv_sec = 0, .tv_nsec = 1000000}; /* 1 ms */

	(void)arg;
	nanosleep(&nap, NULL);
	__atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
	return NULL;
}

int main(void)
{
	volatile unsigned long turns = 0; /* in memory: every turn writes it */
	pthread_t thread;

	if (pthread_create(&thread, NULL, setter, NULL)) {
		perror("busy_count: pthread_create");
		return 2;
	}
	while (!__atomic_load_n(&flag, __ATOMIC_ACQUIRE))
		turns = turns + 1;
	pthread_join(thread, NULL);
	printf("busy_count: the flag came after %s turns\n", turns ? "some" : "no");
	return 0;
}

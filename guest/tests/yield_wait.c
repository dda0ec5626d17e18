/* SPDX-License-Identifier: MIT */
/*
 * yield_wait: a correct program, no bug. A producer hands 8 jobs to a
 * consumer through a one-slot mailbox; each side waits for the slot with a
 * sched_yield() loop, as lock-free code and event loops do (libuv's
 * uv_async_send spins with sched_yield()). On a fair scheduler a yield lets
 * the other thread run, so it always ends with every job done, in order.
 * Not part of the suite (it has nothing to find): a search must never
 * report it as a failure.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#define JOBS 8

static int slot;  /* the job waiting in the mailbox, 0: empty */
static int total; /* written by the consumer only */

static int load(const int *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void store(int *p, int v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static void *consumer(void *arg)
{
	(void)arg;
	for (int expected = 1; expected <= JOBS; expected++) {
		int job;

		while ((job = load(&slot)) == 0)
			sched_yield();
		if (job != expected) {
			fprintf(stderr, "yield_wait: job %d came when %d was due\n", job, expected);
			return (void *)1;
		}
		total += job;
		store(&slot, 0);
	}
	return NULL;
}

int main(void)
{
	pthread_t thread;
	void *failed;

	if (pthread_create(&thread, NULL, consumer, NULL) != 0) {
		fputs("yield_wait: pthread_create failed\n", stderr);
		return 2;
	}
	for (int job = 1; job <= JOBS; job++) {
		while (load(&slot) != 0)
			sched_yield();
		store(&slot, job);
	}
	pthread_join(thread, &failed);
	if (failed)
		return 1;
	printf("yield_wait: %d jobs, total %d\n", JOBS, total);
	return total == JOBS * (JOBS + 1) / 2 ? 0 : 1;
}

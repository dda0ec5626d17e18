/* SPDX-License-Identifier: MIT */
/*
 * flag_wait: a correct program, no bug. A producer hands 8 jobs to a
 * consumer through a one-slot mailbox; each side busy-waits on the slot
 * with plain atomic loads (no sched_yield(), no futex), as spin locks,
 * spin barriers and thread pools' hand-offs do. On a fair scheduler the
 * other thread runs sooner or later, so it always ends with every job done,
 * in order. Not part of the suite (it has nothing to find): a search must
 * never report it as a failure, and a spin must not cost a run much.
 */
#include <pthread.h>
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
			;
		if (job != expected) {
			fprintf(stderr, "flag_wait: job %d came when %d was due\n", job, expected);
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
		fputs("flag_wait: pthread_create failed\n", stderr);
		return 2;
	}
	for (int job = 1; job <= JOBS; job++) {
		while (load(&slot) != 0)
			;
		store(&slot, job);
	}
	pthread_join(thread, &failed);
	if (failed)
		return 1;
	printf("flag_wait: %d jobs, total %d\n", JOBS, total);
	return total == JOBS * (JOBS + 1) / 2 ? 0 : 1;
}

/* SPDX-License-Identifier: MIT */
/*
 * poll_slots: a correct program, no bug. A main thread starts six workers,
 * which wait for its go with sched_yield(), hands each one chunk of a sum,
 * says go, and then polls the workers' result slots until every slot says
 * done, as a small thread pool without condition variables does; then it
 * adds the results. The poll reads six flags in turn, so no single
 * location is waited on. On a fair scheduler every worker runs sooner or
 * later, so it always ends with the right total. Not
 * part of the suite (it has nothing to find): a search must never report
 * it as a failure, whatever priorities it gives the threads.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#define WORKERS 6
#define CHUNK	2000

struct slot {
	long first; /* the chunk: first .. first + CHUNK - 1 */
	long sum;
	int done;
};

static struct slot slots[WORKERS];
static int go;

static void *worker(void *arg)
{
	struct slot *s = arg;
	long sum = 0;

	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		sched_yield();
	for (long i = s->first; i < s->first + CHUNK; i++)
		sum += i;
	s->sum = sum;
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int all_done(void)
{
	int done = 0;

	for (int i = 0; i < WORKERS; i++)
		done += __atomic_load_n(&slots[i].done, __ATOMIC_ACQUIRE);
	return done == WORKERS;
}

int main(void)
{
	pthread_t threads[WORKERS];
	long total = 0, n = (long)WORKERS * CHUNK;

	for (int i = 0; i < WORKERS; i++) {
		if (pthread_create(&threads[i], NULL, worker, &slots[i]) != 0) {
			fputs("poll_slots: pthread_create failed\n", stderr);
			return 2;
		}
	}
	for (int i = 0; i < WORKERS; i++)
		slots[i].first = (long)i * CHUNK;
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	while (!all_done())
		;
	for (int i = 0; i < WORKERS; i++) {
		total += slots[i].sum;
		pthread_join(threads[i], NULL);
	}
	printf("poll_slots: %d workers, total %ld\n", WORKERS, total);
	return total == n * (n - 1) / 2 ? 0 : 1;
}

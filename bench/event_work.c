/* SPDX-License-Identifier: MIT */
/*
 * The program bench/event-cost times: two threads share a table and a
 * mutex-protected total, touching shared memory in a loop, with no bug (so
 * every execution is the same run). Built three ways by bench/event-cost.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 20000
#define SLOTS  64

static volatile int table[SLOTS];
static long total;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	long mine = 0;
	int id = (int)(long)arg;

	for (int i = 0; i < ROUNDS; i++) {
		int slot = (i * 7 + id) % SLOTS;

		table[slot] = table[slot] + 1; /* shared, unlocked, harmless for the total */
		mine += slot;
		if (i % 100 == 0) {
			pthread_mutex_lock(&lock);
			total += mine;
			mine = 0;
			pthread_mutex_unlock(&lock);
		}
	}
	pthread_mutex_lock(&lock);
	total += mine;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, worker, (void *)1);
	pthread_create(&b, NULL, worker, (void *)2);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("event_work: total %ld\n", total);
	return 0;
}

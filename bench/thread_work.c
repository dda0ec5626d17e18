/* SPDX-License-Identifier: MIT */
/*
 * The program bench/event-cost and bench/thread-cost time: THREADS threads
 * (argv[1], default 2) share a table and a mutex-protected total and do,
 * together, the same work whatever their number: 40,000 shared
 * read-modify-writes and a lock/unlock pair every 100 of them, with no bug
 * (so every execution is the same run).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS_TOTAL 40000
#define SLOTS	     64
#define THREADS_MAX  256

static volatile int table[SLOTS];
static long total;
static int rounds_each;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	long mine = 0;
	int id = (int)(long)arg;

	for (int i = 0; i < rounds_each; i++) {
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

int main(int argc, char **argv)
{
	static pthread_t threads[THREADS_MAX];
	int n = argc > 1 ? atoi(argv[1]) : 2;

	if (n < 1 || n > THREADS_MAX) {
		fprintf(stderr, "thread_work: THREADS must be 1..%d\n", THREADS_MAX);
		return 2;
	}
	rounds_each = ROUNDS_TOTAL / n;
	for (int i = 0; i < n; i++)
		if (pthread_create(&threads[i], NULL, worker, (void *)(long)(i + 1)) != 0) {
			perror("thread_work: pthread_create");
			return 1;
		}
	for (int i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	printf("thread_work: %d threads, total %ld\n", n, total);
	return 0;
}

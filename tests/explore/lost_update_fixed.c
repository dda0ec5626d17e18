/* SPDX-License-Identifier: MIT */
/*
 * lost_update, fixed: guest/tests/lost_update.c with its counter updated by
 * an atomic increment. tests/explore/test-explore puts it in the guest in
 * place of /tests/lost_update for a second night, which must mark the
 * lost-update bucket fixed.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 20000

static int counter;

static void *worker(void *arg)
{
	int id = *(const int *)arg;

	fprintf(stderr, "worker %d starting\n", id);
	for (int i = 0; i < ROUNDS; i++)
		__atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
	return NULL;
}

int main(void)
{
	static const int ids[2] = {1, 2};
	pthread_t threads[2];

	for (int i = 0; i < 2; i++) {
		if (pthread_create(&threads[i], NULL, worker, (void *)&ids[i]) != 0) {
			fputs("lost_update: pthread_create failed\n", stderr);
			return 2;
		}
	}
	for (int i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
	if (counter != 2 * ROUNDS) {
		fprintf(stderr, "lost_update: counter is %d, expected %d\n", counter, 2 * ROUNDS);
		abort();
	}
	printf("lost_update: counter is %d\n", counter);
	return 0;
}

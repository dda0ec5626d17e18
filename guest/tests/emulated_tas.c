/* SPDX-License-Identifier: MIT */
/*
 * emulated_tas: a correct program, no bug. Four threads count under a spin
 * lock built from a test-and-set that is emulated with a mutex, as a
 * portable atomics library does where the machine has no such instruction
 * (libatomic_ops with AO_USE_PTHREAD_DEFS): the test-and-set locks the
 * mutex, reads the flag, writes SET and unlocks, and a waiter calls it in
 * a loop until it reads CLEAR. So a waiter writes the flag it polls in
 * every turn of its spin, with the value it found there. On a fair
 * scheduler the holder runs sooner or later and clears the flag, so it
 * always ends with every increment counted. Not part of the suite (it has
 * nothing to find): a search must never report it as a failure.
 */
#include <pthread.h>
#include <stdio.h>

#define THREADS 4
#define ROUNDS	200

enum { CLEAR, SET };

static pthread_mutex_t emulation = PTHREAD_MUTEX_INITIALIZER;
static volatile int flag = CLEAR;
static long count; /* guarded by flag */

/* The old value of *f, which is SET afterwards, as one step under the mutex. */
static int test_and_set(volatile int *f)
{
	int old;

	pthread_mutex_lock(&emulation);
	old = *f;
	*f = SET;
	pthread_mutex_unlock(&emulation);
	return old;
}

static void clear(volatile int *f)
{
	pthread_mutex_lock(&emulation);
	*f = CLEAR;
	pthread_mutex_unlock(&emulation);
}

static void *counter(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		while (test_and_set(&flag) != CLEAR)
			;
		count++;
		if (count % 2 == 0) /* an even count in between: two holders at once */
			count = -1000000;
		else
			count++;
		clear(&flag);
	}
	return NULL;
}

int main(void)
{
	pthread_t threads[THREADS];

	for (int t = 0; t < THREADS; t++)
		if (pthread_create(&threads[t], NULL, counter, NULL)) {
			perror("emulated_tas: pthread_create");
			return 2;
		}
	for (int t = 0; t < THREADS; t++)
		pthread_join(threads[t], NULL);
	if (count != 2L * THREADS * ROUNDS) {
		fprintf(stderr, "emulated_tas: the count is %ld, not %d\n", count,
			2 * THREADS * ROUNDS);
		return 1;
	}
	printf("emulated_tas: %d threads, %d rounds each: %ld\n", THREADS, ROUNDS, count);
	return 0;
}

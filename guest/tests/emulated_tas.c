/* SPDX-License-Identifier: MIT */
/*
 * emulated_tas [THREADS [ROUNDS]]: a correct program, no bug. THREADS
 * threads (4 by default) count ROUNDS times each (200 by default) under a
 * spin lock built from a test-and-set that is emulated with a mutex, as a
 * portable atomics library does where the machine has no such instruction
 * (libatomic_ops with AO_USE_PTHREAD_DEFS): the test-and-set locks the
 * mutex, reads the flag, writes SET and unlocks, and a waiter calls it in
 * a loop until it reads CLEAR. So a waiter writes the flag it polls in
 * every turn of its spin, with the value it found there: a turn is four
 * schedule events (the lock, the load, the store, the unlock), three of
 * them with the mutex held. On a fair scheduler the holder runs sooner or
 * later and clears the flag, so it always ends with every increment
 * counted. `emulated_tas 5 10000` is the test-and-set part of
 * libatomic_ops' test_atomic_pthreads (five threads, 10,000 rounds each).
 * Not part of the suite (it has nothing to find): a search must never
 * report it as a failure.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 64

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

/* arg: the rounds, as a value (no shared read in the loop: no schedule event) */
static void *counter(void *arg)
{
	long rounds = (long)(intptr_t)arg;

	for (long i = 0; i < rounds; i++) {
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

/* argv[i] as a count in 1..max, else def if absent; -1 if it is no such count. */
static long count_arg(int argc, char **argv, int i, long def, long max)
{
	char *end;
	long v;

	if (i >= argc)
		return def;
	v = strtol(argv[i], &end, 10);
	return end != argv[i] && *end == '\0' && v >= 1 && v <= max ? v : -1;
}

int main(int argc, char **argv)
{
	pthread_t threads[MAX_THREADS];
	long nthreads = count_arg(argc, argv, 1, 4, MAX_THREADS),
	     rounds = count_arg(argc, argv, 2, 200, 1000000);

	if (argc > 3 || nthreads < 0 || rounds < 0) {
		fprintf(stderr, "usage: emulated_tas [THREADS (1..%d) [ROUNDS (1..1000000)]]\n",
			MAX_THREADS);
		return 2;
	}
	for (long t = 0; t < nthreads; t++)
		if (pthread_create(&threads[t], NULL, counter, (void *)(intptr_t)rounds)) {
			perror("emulated_tas: pthread_create");
			return 2;
		}
	for (long t = 0; t < nthreads; t++)
		pthread_join(threads[t], NULL);
	if (count != 2 * nthreads * rounds) {
		fprintf(stderr, "emulated_tas: the count is %ld, not %ld\n", count,
			2 * nthreads * rounds);
		return 1;
	}
	printf("emulated_tas: %ld threads, %ld rounds each: %ld\n", nthreads, rounds, count);
	return 0;
}

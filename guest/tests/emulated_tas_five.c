/* SPDX-License-Identifier: MIT */
/*
 * emulated_tas_five: a correct program, no bug. The test-and-set part of
 * libatomic_ops' test_atomic_pthreads: five threads take a spin lock
 * 10,000 times each, and the lock's test-and-set is emulated under a mutex
 * (AO_USE_PTHREAD_DEFS): it locks the mutex, reads the lock word, writes
 * SET and unlocks, so a turn of a waiter's spin is four schedule events
 * (the lock, the load, the store, the unlock), three of them with the
 * mutex held. The holder checks that it is alone, clears the word under
 * the same mutex, and spends a little time outside the lock. On a fair
 * scheduler, whose ticks land anywhere in a turn, the holder gets the
 * mutex sooner or later: every run passes. Not part of the suite (it has
 * nothing to find): no run may end in anything but a pass.
 * guest/tests/emulated_tas.c is the same kind of lock with four threads
 * and 200 rounds.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 5
#define ROUNDS	10000

enum { CLEAR, SET };

static pthread_mutex_t emulation = PTHREAD_MUTEX_INITIALIZER;
static unsigned long lock_word = CLEAR;
static unsigned long holders; /* threads inside the spin lock: 1 at most */
static volatile unsigned long outside = 13;

/* The old value of *word, which is SET afterwards, as one step under the mutex. */
static unsigned long test_and_set(unsigned long *word)
{
	unsigned long old;

	pthread_mutex_lock(&emulation);
	old = *word;
	*word = SET;
	pthread_mutex_unlock(&emulation);
	return old;
}

static void clear(unsigned long *word)
{
	pthread_mutex_lock(&emulation);
	*word = CLEAR;
	pthread_mutex_unlock(&emulation);
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		while (test_and_set(&lock_word) != CLEAR)
			;
		++holders;
		if (holders != 1) {
			fprintf(stderr, "emulated_tas_five: %lu holders at once\n", holders);
			abort();
		}
		holders = 0;
		clear(&lock_word);
		outside *= 17; /* a little work outside the lock */
		outside *= 19;
	}
	return NULL;
}

int main(void)
{
	pthread_t threads[THREADS];

	for (int t = 0; t < THREADS; t++)
		if (pthread_create(&threads[t], NULL, worker, NULL)) {
			perror("emulated_tas_five: pthread_create");
			return 2;
		}
	for (int t = 0; t < THREADS; t++)
		pthread_join(threads[t], NULL);
	printf("emulated_tas_five: %d threads, %d rounds each\n", THREADS, ROUNDS);
	return 0;
}

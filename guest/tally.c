/* SPDX-License-Identifier: MIT */
/*
 * tally: a lost update in plain memory, in an ordinary binary (built
 * without guest/rewind-cc): the example for single-step offsets
 * (preempt-insns), which preempt code that makes no system call without
 * instrumenting it.
 *
 * Two threads each announce themselves with a write() (a system call: an
 * exit, a step of the schedule) and then add 1 to a shared counter 300
 * times with an unlocked load, add and store.
 *
 * The bug: a store overwrites whatever the other thread stored since this
 * thread's load. On one CPU that needs the first thread to lose the CPU
 * between a load and its store while the other thread is runnable; the
 * loop makes no system call, so only a preemption counted in instructions
 * can land there: `preempt-insns` at the step of the first thread's
 * announcement, with the instruction count that ends right after a load.
 * The other thread then counts to the end and the first one stores a stale
 * value.
 *
 * Detection: main joins the worker and checks tally == 2 * ROUNDS; a lost
 * update prints the shortfall and aborts (SIGABRT). Natively both loops take
 * about a microsecond and do not overlap.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Relaxed atomics: every load and store happens where the source says,
 * and the race is a logical one, not undefined behaviour. */
#define LOAD(p)	    __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

#define ROUNDS 300

static unsigned long tally; /* shared, unprotected: the bug under test */

static void announce(const char *who)
{
	char line[64];
	int len = snprintf(line, sizeof(line), "tally: %s counting\n", who);

	if (write(STDOUT_FILENO, line, (size_t)len) != len)
		abort();
}

static void count(void)
{
	for (int i = 0; i < ROUNDS; i++)
		STORE(&tally, LOAD(&tally) + 1); /* read, add, write back */
}

static void *worker(void *arg)
{
	(void)arg;
	announce("worker");
	count();
	return NULL;
}

int main(void)
{
	pthread_t thread;
	unsigned long got;

	if (pthread_create(&thread, NULL, worker, NULL) != 0) {
		fputs("tally: pthread_create failed\n", stderr);
		return 2;
	}
	announce("main");
	count();
	if (pthread_join(thread, NULL) != 0) {
		fputs("tally: pthread_join failed\n", stderr);
		return 2;
	}
	got = LOAD(&tally);
	printf("tally: %lu\n", got);
	if (got != 2 * ROUNDS) {
		fprintf(stderr, "tally: lost %lu updates\n", 2 * ROUNDS - got);
		abort();
	}
	return 0;
}

/*
 * lost_update: two threads count events into one shared counter with an
 * unlocked read-modify-write in plain memory.
 *
 * The bug: `hits = hits + 1` is three steps (load, add, store). Whatever
 * another thread stores between this thread's load and its store is
 * overwritten by the store, which writes back a value computed from the
 * stale load.
 *
 * The interleaving (one preemption, bug depth 2): the thread that runs
 * first (say main) is preempted in count_hits() after its load of `hits`
 * and before its store (the window marked below); the other thread then
 * runs at least one whole increment (on one CPU it runs all its remaining
 * increments: nothing in its loop blocks). When main resumes it stores its
 * stale value + 1 and wipes out every increment made meanwhile. Any of the
 * first thread's 200 windows will do, whichever thread runs first; a
 * preemption anywhere else is harmless, and so is every schedule in which
 * the two loops do not interleave. The window holds no system call: under
 * Rewind only counter mode can preempt there, with a `preempt` injection at
 * the first basic block of race_window().
 *
 * Detection: after joining the worker, main checks hits == 2 * ROUNDS; a
 * lost update prints the shortfall and aborts (SIGABRT).
 *
 * Natively (2 cores) the loops could also overlap by running in parallel,
 * but main's loop takes about a microsecond and the worker starts running
 * tens of microseconds after pthread_create() returns: 0 failures in 1000
 * runs (`bench/native-runs 1000 guest/tests/lost_update.c`, see README.md).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * Shared variables are accessed with relaxed atomic loads and stores: the
 * compiler must make every access where the program makes it (it may not
 * fold the loop into one addition or keep the counter in a register), and
 * the race is a logical one between separate accesses, not undefined
 * behaviour. The bug is in the program's order of accesses, not left to the
 * optimiser.
 */
#define LOAD(p)	    __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

/*
 * race_window() marks the race window. Rewind's counter mode can preempt a
 * thread only at the start of an instrumented basic block, and at -O2 a
 * load, a little arithmetic and a store make one block: with no block
 * boundary between them, no preemption could land in the window. A call to
 * this function, which the compiler may not inline, puts one there (the
 * function's own first block). Its compiler barrier also keeps the
 * compiler from moving shared accesses across the call. Natively it costs
 * a few nanoseconds.
 */
static __attribute__((noinline)) void race_window(void)
{
	__asm__ __volatile__("" ::: "memory");
}

#define ROUNDS 200

static unsigned long hits; /* shared, unprotected: the bug under test */

static void count_hits(unsigned long weight)
{
	for (int i = 0; i < ROUNDS; i++) {
		unsigned long seen = LOAD(&hits); /* read */
		/* The race window: a store by the other thread from here on is lost. */
		unsigned long next = seen + weight;

		race_window();
		STORE(&hits, next); /* write back */
	}
}

static void *worker(void *arg)
{
	(void)arg;
	count_hits(1);
	return NULL;
}

int main(void)
{
	pthread_t thread;
	unsigned long got;

	if (pthread_create(&thread, NULL, worker, NULL) != 0) {
		fputs("lost_update: pthread_create failed\n", stderr);
		return 2;
	}
	count_hits(1);
	pthread_join(thread, NULL);
	got = LOAD(&hits);
	if (got != 2 * ROUNDS) {
		fprintf(stderr, "lost_update: lost %lu of %d updates\n", 2 * ROUNDS - got,
			2 * ROUNDS);
		abort();
	}
	printf("lost_update: %lu hits\n", got);
	return 0;
}

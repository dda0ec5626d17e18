/*
 * check_then_act: an atomicity violation. Two threads open sessions in a
 * shared table of slots; each looks for a free slot (check) and then takes
 * it (act), without a lock.
 *
 * The bug: the check and the act are separate steps. A slot that looked
 * free when it was checked can be taken by another thread before the act;
 * both threads then own it.
 *
 * The interleaving (one preemption, bug depth 2): the thread that runs
 * first (say main) is preempted in open_session() after it saw slot k free
 * and before it stores itself as the owner (the window marked below); the
 * other thread then opens its sessions: its scan also finds slot k free and
 * takes it. When main resumes it takes slot k too. Any of the first
 * thread's four sessions will do, whichever thread runs first; a preemption
 * anywhere else is harmless (the other thread then finds slot k owned, or
 * main finds it owned at its next check), and so is every schedule in which
 * the two threads do not interleave. The window holds no system call: under
 * Rewind only counter mode can preempt there, with a `preempt` injection at
 * the first basic block of race_window() or of the code right after the
 * check.
 *
 * Detection: each slot counts its owners with an atomic increment (a check
 * added for the test, not part of the buggy protocol); an owner that finds
 * it is not the only one prints the slot and aborts (SIGABRT). A thread that
 * finds no free slot (impossible without the bug: there is one slot per
 * session) aborts too.
 *
 * Natively (2 cores) the threads could also meet by running in parallel, but
 * each scan takes well under a microsecond and the worker starts running
 * tens of microseconds after pthread_create() returns: 0 failures in 1000
 * runs (`bench/native-runs 1000 guest/tests/check_then_act.c`, see
 * README.md).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * Shared variables are accessed with relaxed atomic loads and stores: the
 * compiler must make every access where the program makes it (it may not
 * merge, hoist or drop any of them), and the race is a logical one between
 * separate accesses, not undefined behaviour. The bug is in the program's
 * order of accesses, not left to the optimiser.
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

#define SLOTS	   8
#define PER_THREAD (SLOTS / 2)
#define FREE	   0

struct slot {
	int owner;	      /* FREE or the owning thread's id */
	unsigned long cookie; /* the session using the slot */
	int owners;	      /* test instrumentation: how many took it */
};

static struct slot table[SLOTS]; /* shared, unprotected: the bug under test */

static int open_session(int me, unsigned long session)
{
	for (int i = 0; i < SLOTS; i++) {
		struct slot *s = &table[i];

		if (LOAD(&s->owner) != FREE) /* check */
			continue;
		/* The race window: slot i looked free; set up the session, then take it. */
		unsigned long cookie = (session * 2654435761UL) ^ (unsigned long)i;

		race_window();
		STORE(&s->owner, me); /* act */
		STORE(&s->cookie, cookie);
		if (__atomic_add_fetch(&s->owners, 1, __ATOMIC_RELAXED) != 1) {
			fprintf(stderr, "check_then_act: slot %d has two owners\n", i);
			abort();
		}
		return i;
	}
	fprintf(stderr, "check_then_act: thread %d found no free slot\n", me);
	abort();
}

static unsigned long open_sessions(int me)
{
	unsigned long mask = 0;

	for (int n = 0; n < PER_THREAD; n++)
		mask |= 1UL << open_session(me, (unsigned long)(me * PER_THREAD + n));
	return mask;
}

static unsigned long worker_slots;

static void *worker(void *arg)
{
	(void)arg;
	worker_slots = open_sessions(2);
	return NULL;
}

int main(void)
{
	pthread_t thread;
	unsigned long main_slots;

	if (pthread_create(&thread, NULL, worker, NULL) != 0) {
		fputs("check_then_act: pthread_create failed\n", stderr);
		return 2;
	}
	main_slots = open_sessions(1);
	pthread_join(thread, NULL);
	printf("check_then_act: main slots %#lx, worker slots %#lx\n", main_slots, worker_slots);
	return 0;
}

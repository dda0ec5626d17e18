/*
 * broken_dcl: broken double-checked locking. A lazily created singleton
 * (the server settings) is looked up without the lock when it already
 * exists; the thread that creates it publishes the pointer before it has
 * filled the object.
 *
 * The bug: get_settings() stores the pointer to the new object in the
 * global `instance` first and writes the object's fields after it, in that
 * order in the C source (this is a program-order bug, not a reordering by
 * the compiler or the CPU: it shows on one CPU too). Between the two, a
 * reader's unlocked first check sees a non-NULL pointer, skips the lock and
 * reads fields that are still zero.
 *
 * The interleaving (one preemption, bug depth 2): the thread that runs
 * first (say main) takes the lock, creates the object and is preempted
 * after publishing the pointer and before filling the fields (the window
 * marked below); the other thread then calls get_settings(), sees the
 * pointer, returns it without locking and reads a zero field. Any other
 * preemption is harmless: before the publication the other thread finds
 * the pointer NULL and waits on the lock (then finds the object filled),
 * after the fields are written it reads them filled. Whichever thread runs
 * first, there is one such window per run, after each thread has checked
 * its share of a request log (check_log(), about a thousand basic blocks of
 * other work). The window holds no system call:
 * under Rewind only counter mode can preempt there, with a `preempt`
 * injection at the first basic block of race_window().
 *
 * Detection: every caller checks the fields it reads against the values
 * the creator writes; a zero field prints what was read and aborts
 * (SIGABRT).
 *
 * Natively (2 cores) the window is a few nanoseconds once per run, and the
 * worker starts running tens of microseconds after pthread_create() returns,
 * long after main filled the object: 0 failures in 1000 runs
 * (`bench/native-runs 1000 guest/tests/broken_dcl.c`, see README.md).
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

#define ROUNDS	    20
#define MAX_CLIENTS 64
#define TIMEOUT_MS  250

struct settings {
	int max_clients;
	int timeout_ms;
};

static struct settings storage; /* the singleton's memory: zero until filled */
static struct settings *instance;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static const struct settings *get_settings(void)
{
	struct settings *s = LOAD(&instance);

	if (s != NULL) /* first check, without the lock: the fast path */
		return s;
	pthread_mutex_lock(&lock);
	s = LOAD(&instance);
	if (s == NULL) { /* second check, under the lock */
		s = &storage;
		STORE(&instance, s); /* published too early: the bug */
		/* The race window: `instance` is set, the fields are not. */
		race_window();
		STORE(&s->max_clients, MAX_CLIENTS);
		STORE(&s->timeout_ms, TIMEOUT_MS);
	}
	pthread_mutex_unlock(&lock);
	return s;
}

static long use_settings(const char *who)
{
	long total = 0;

	for (int i = 0; i < ROUNDS; i++) {
		const struct settings *s = get_settings();
		int max_clients = LOAD(&s->max_clients), timeout_ms = LOAD(&s->timeout_ms);

		if (max_clients != MAX_CLIENTS || timeout_ms != TIMEOUT_MS) {
			fprintf(stderr,
				"broken_dcl: %s read unfilled settings (%d clients, %d ms)\n", who,
				max_clients, timeout_ms);
			abort();
		}
		total += (long)max_clients * timeout_ms;
	}
	return total;
}

/*
 * Work before the racy part, as in real programs: each thread first checks
 * its share of a request log (LOG_ENTRIES entries, two or three basic blocks
 * each). The race windows then come after about a thousand blocks of other
 * code: a preemption placed at a random block rarely lands in them, while a
 * search that notices new preemption sites (coverage) can walk to them.
 */
#define LOG_ENTRIES 400

static __attribute__((noinline)) int entry_ok(unsigned int entry)
{
	return entry % 97 != 0;
}

static unsigned int check_log(unsigned int seed)
{
	unsigned int bad = 0, entry = seed;

	for (int i = 0; i < LOG_ENTRIES; i++) {
		entry = entry * 1103515245u + 12345u;
		if (!entry_ok(entry))
			bad++;
	}
	return bad;
}

static long worker_total;
static unsigned int worker_bad;

static void *worker(void *arg)
{
	(void)arg;
	worker_bad = check_log(2);
	worker_total = use_settings("worker");
	return NULL;
}

int main(void)
{
	pthread_t thread;
	long main_total;
	unsigned int main_bad;

	if (pthread_create(&thread, NULL, worker, NULL) != 0) {
		fputs("broken_dcl: pthread_create failed\n", stderr);
		return 2;
	}
	main_bad = check_log(1);
	main_total = use_settings("main");
	pthread_join(thread, NULL);
	printf("broken_dcl: totals %ld and %ld (log entries flagged: %u and %u)\n", main_total,
	       worker_total, main_bad, worker_bad);
	return 0;
}

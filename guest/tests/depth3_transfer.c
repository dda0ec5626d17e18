/*
 * depth3_transfer: a lost update that needs two preemptions (bug depth 3).
 * Two tellers each make ROUNDS transfers between the two accounts of their
 * own branch (no sharing there). While a transfer is under way its amount
 * is counted in the bank-wide `in_flight` total, which the tellers update
 * with an unlocked read-modify-write: book() adds the amount before the
 * transfer and subtracts it after.
 *
 * The bug: book() can overwrite another teller's update of `in_flight`
 * with a value computed from a stale read, like lost_update.c. But every
 * transfer adds and then subtracts the same amount, so when the other
 * teller's updates in between sum to zero, the stale value is still the
 * right one and nothing is lost.
 *
 * Before its transfers each teller checks its share of a request log
 * (check_log(), about a thousand basic blocks of other work).
 *
 * Why one preemption is not enough: if teller A is preempted inside book()
 * (between its load and its store of `in_flight`), teller B runs all its
 * remaining transfers before A continues (one CPU, nothing in B's loop
 * blocks), and each of them adds and subtracts the same amount: B's net
 * effect is zero, A's stale value is exact. Preempting A anywhere else
 * loses nothing either.
 *
 * The interleaving (two preemptions): (1) teller A (whichever runs first)
 * is preempted inside book() between its load and its store (the window
 * marked below); (2) teller B is preempted while one of its own transfers
 * is in flight: after its book(+amount) stored and before its
 * book(-amount) loads. A then resumes and stores its stale value, which
 * misses B's amount, and finishes its transfers; when B resumes, its
 * book(-amount) would take `in_flight` below zero. (Other pairs work too:
 * (1) in A's book(-amount) and (2) in B's book(+amount) window leaves A's
 * amount counted twice, which the final check finds.) Neither point is at a
 * system call: under Rewind only counter mode can preempt there, with two
 * `preempt` injections: at race_window() in one of A's book() calls, then
 * at the first basic block of one of B's book(-amount) calls (before its
 * load).
 *
 * Detection: book() aborts (SIGABRT) if `in_flight` would go negative (in a
 * correct run it is the sum of the amounts in flight), and main checks
 * after the join that `in_flight` is back to zero and each branch kept its
 * money.
 *
 * Natively (2 cores) the tellers could also meet by running in parallel, but
 * main's transfers take about a microsecond and the worker starts running
 * tens of microseconds after pthread_create() returns: 0 failures in 1000
 * runs (`bench/native-runs 1000 guest/tests/depth3_transfer.c`, see
 * README.md).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * Shared variables are accessed with relaxed atomic loads and stores: the
 * compiler must make every access where the program makes it (it may not
 * merge the add and the subtract of a transfer, which would hide the bug),
 * and the race is a logical one between separate accesses, not undefined
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

#define ROUNDS	20
#define BALANCE 1000

struct branch {
	const char *name;
	long amount; /* per transfer */
	long from, to;
	unsigned int flagged; /* request log entries flagged when it opened */
};

static long in_flight; /* shared, unprotected: the bug under test */

static void book(const struct branch *b, long delta)
{
	long seen = LOAD(&in_flight); /* read */
	/* The race window: a store by the other teller from here on is lost. */
	long next = seen + delta;

	race_window();
	if (next < 0) {
		fprintf(stderr, "depth3_transfer: %s: in-flight total %ld - %ld < 0\n", b->name,
			seen, -delta);
		abort();
	}
	STORE(&in_flight, next); /* write back */
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

static void run_branch(struct branch *b)
{
	b->flagged = check_log((unsigned int)b->amount);
	for (int i = 0; i < ROUNDS; i++) {
		book(b, b->amount);
		b->from -= b->amount;
		b->to += b->amount;
		book(b, -b->amount);
	}
}

static struct branch east = {"east", 5, BALANCE, BALANCE, 0};
static struct branch west = {"west", 3, BALANCE, BALANCE, 0};

static void *worker(void *arg)
{
	run_branch(arg);
	return NULL;
}

int main(void)
{
	pthread_t thread;
	long left;

	if (pthread_create(&thread, NULL, worker, &west) != 0) {
		fputs("depth3_transfer: pthread_create failed\n", stderr);
		return 2;
	}
	run_branch(&east);
	pthread_join(thread, NULL);
	left = LOAD(&in_flight);
	if (left != 0 || east.from + east.to != 2 * BALANCE || west.from + west.to != 2 * BALANCE) {
		fprintf(stderr, "depth3_transfer: %ld still in flight after all transfers\n", left);
		abort();
	}
	printf("depth3_transfer: east %ld/%ld, west %ld/%ld (log entries flagged: %u and %u)\n",
	       east.from, east.to, west.from, west.to, east.flagged, west.flagged);
	return 0;
}

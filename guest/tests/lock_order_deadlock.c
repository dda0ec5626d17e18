/*
 * lock_order_deadlock: two threads take the same two mutexes in opposite
 * orders. Main moves money from checking to savings (locks checking, then
 * savings); the worker moves money from savings to checking (locks
 * savings, then checking).
 *
 * The bug: a lock-order inversion. If each thread holds its first mutex
 * and waits for its second, each waits for the other forever.
 *
 * The interleaving (one preemption, bug depth 2): the thread that runs
 * first (say main) is preempted in transfer() after it locked its first
 * mutex and before it locks its second (the window marked below); the
 * other thread then locks its first mutex (main's second) and blocks on
 * its second (held by main); main resumes and blocks on its second (held by
 * the other thread). Any of the first thread's 50 transfers will do,
 * whichever thread runs first; any other preemption is harmless: the other
 * thread then finds both mutexes free or waits until the preempted thread
 * has finished its transfer. The window holds no system call (an
 * uncontended lock is an atomic operation in user space): under Rewind only
 * counter mode can preempt there, with a `preempt` injection at the first
 * basic block of race_window(). The blocking that follows is in futex()
 * system calls.
 *
 * Detection: none in the program, on purpose. Under Rewind both threads
 * and main (in pthread_join) are then blocked with no timer armed, which
 * the VMM reports as the `deadlock` outcome. There is no timeout inside the
 * program: it would turn the deadlock into an ordinary exit. Natively a
 * deadlock is a hang, so the native measurement runs each execution under
 * `timeout 2` and counts a hang (status 124) as a failure, like any other
 * non-zero exit (bench/native-runs has no timeout; see README.md).
 *
 * Natively (2 cores) a deadlock needs both threads inside their windows at
 * once; main's transfers take about a microsecond and the worker starts
 * running tens of microseconds after pthread_create() returns: 0 hangs in
 * 1000 runs (the `timeout 2` loop in README.md).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 50

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

struct account {
	pthread_mutex_t lock;
	long balance;
};

static struct account checking = {PTHREAD_MUTEX_INITIALIZER, 1000};
static struct account savings = {PTHREAD_MUTEX_INITIALIZER, 1000};

/* Locks `from`, then `to`: the order depends on the direction, which is the bug. */
static void transfer(struct account *from, struct account *to, long amount)
{
	pthread_mutex_lock(&from->lock);
	/* The window: `from` is held, `to` is not yet. */
	long fee = amount / 10;

	race_window();
	pthread_mutex_lock(&to->lock);
	from->balance -= amount + fee;
	to->balance += amount + fee;
	pthread_mutex_unlock(&to->lock);
	pthread_mutex_unlock(&from->lock);
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++)
		transfer(&savings, &checking, 3);
	return NULL;
}

int main(void)
{
	pthread_t thread;

	if (pthread_create(&thread, NULL, worker, NULL) != 0) {
		fputs("lock_order_deadlock: pthread_create failed\n", stderr);
		return 2;
	}
	for (int i = 0; i < ROUNDS; i++)
		transfer(&checking, &savings, 5);
	pthread_join(thread, NULL);
	if (checking.balance + savings.balance != 2000) {
		fputs("lock_order_deadlock: money was created or lost\n", stderr);
		abort();
	}
	printf("lock_order_deadlock: checking %ld, savings %ld\n", checking.balance,
	       savings.balance);
	return 0;
}

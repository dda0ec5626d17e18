/*
 * use_before_init: an order violation. The main thread starts a worker,
 * hands it its first job at once (so the worker can get going), and only
 * then sets up the configuration the worker needs to do the job.
 *
 * The bug: the program assumes the main thread's next few instructions
 * (publishing `config`) come before the worker's first use of it, because
 * the worker still has to start up and wake up for the job. Nothing orders
 * them: once the job is in the pipe, the worker may run.
 *
 * The interleaving (one preemption, bug depth 2): main is preempted after
 * its write() of the job and before its store to `config` (the window
 * marked below); the worker then runs, reads the job and finds `config`
 * still NULL. Any other preemption is harmless: before the write() the
 * worker can only wait in read(), after the store it finds the config set.
 * Whichever thread runs first after pthread_create(), the unperturbed run
 * passes: if the worker runs first it blocks in read() and main gets the
 * CPU back before the job exists. (A simpler version, where the worker uses
 * `config` as soon as it starts, would depend on the scheduler letting the
 * creating thread run first after clone(); natively it failed 2-10% of the
 * time here, pinned to one CPU too, and under Rewind its unperturbed run
 * would hinge on the guest scheduler's choice.) The window holds no system
 * call: under Rewind only counter mode can preempt there, with a `preempt`
 * injection at the first basic block of race_window().
 *
 * Detection: the real program would dereference the NULL pointer and crash;
 * the worker checks it first, prints what happened and aborts (SIGABRT),
 * which keeps the program free of undefined behaviour.
 *
 * Natively (2 cores) the initialisation wins by a wide margin: it takes
 * nanoseconds after the write(), while waking the worker or starting it
 * takes microseconds: 6, 2 and 0 failures in three sets of 1000 runs
 * (`bench/native-runs 1000 guest/tests/use_before_init.c`, see README.md).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/*
 * Shared variables are accessed with relaxed atomic loads and stores: the
 * compiler must make every access where the program makes it, and the race
 * is a logical one between separate accesses, not undefined behaviour. The
 * bug is in the program's order of accesses, not left to the optimiser.
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

#define ITEMS 64

struct config {
	unsigned long scale;
	unsigned long offset;
};

static struct config *config; /* set by main after the job was sent: the bug */
static int jobs[2];	      /* a pipe: main writes jobs, the worker reads them */

static void *worker(void *arg)
{
	unsigned long *sum = arg, items;
	const struct config *c;

	if (read(jobs[0], &items, sizeof(items)) != (ssize_t)sizeof(items)) {
		fputs("use_before_init: worker: read failed\n", stderr);
		exit(2);
	}
	c = LOAD(&config);
	if (c == NULL) {
		fputs("use_before_init: worker got a job before main set up the config\n", stderr);
		abort();
	}
	for (unsigned long i = 0; i < items; i++)
		*sum += i * LOAD(&c->scale) + LOAD(&c->offset);
	return NULL;
}

int main(void)
{
	static struct config defaults;
	unsigned long sum = 0, items = ITEMS;
	pthread_t thread;

	if (pipe(jobs) != 0 || pthread_create(&thread, NULL, worker, &sum) != 0) {
		fputs("use_before_init: pipe or pthread_create failed\n", stderr);
		return 2;
	}
	if (write(jobs[1], &items, sizeof(items)) != (ssize_t)sizeof(items)) {
		fputs("use_before_init: write failed\n", stderr);
		return 2;
	}
	/* The window: the worker has its job, the config does not exist yet. */
	race_window();
	STORE(&defaults.scale, 3);
	STORE(&defaults.offset, 1);
	STORE(&config, &defaults);
	pthread_join(thread, NULL);
	printf("use_before_init: sum %lu\n", sum);
	return 0;
}

/*
 * aba_stack: the ABA problem on a lock-free Treiber stack. A pool of four
 * message buffers is kept on a stack whose head pointer is updated with
 * compare-and-swap; buffers are popped, used and pushed back (recycled).
 *
 * The bug: pop() reads the head node A and its successor B, then swaps the
 * head from A to B with a CAS. The CAS only checks that the head is still
 * A, not that the stack is unchanged: if meanwhile A was popped, B was
 * popped and A was pushed back, the head is A again (ABA), the CAS succeeds
 * and installs B as the head although B is in use by someone else.
 *
 * Each thread (main and one worker) handles ROUNDS small jobs, popping a
 * buffer and pushing it back, then one request: it pops a scratch buffer
 * and a reply buffer, pushes the scratch buffer back and keeps the reply.
 *
 * The interleaving (one preemption, bug depth 2): the thread that runs
 * first (say main) is preempted in pop() after it read head A and A->next B
 * and before its CAS (the window marked below). The other thread then runs
 * all its work: its jobs pop and push back A (leaving the stack as it
 * was), then its request pops A as scratch and B as reply and pushes A
 * back: the head is A again, now followed by C, and B is held. When main
 * resumes its CAS succeeds and makes B, the other thread's reply, the head
 * of the free stack. Any of the first thread's 102 pops will do (its 100
 * jobs and the two pops of its request), whichever thread runs first;
 * preemptions elsewhere are harmless. The window holds no system call:
 * under Rewind only counter mode can preempt there, with a `preempt`
 * injection at the first basic block of race_window().
 *
 * Detection: every buffer records its owner (set by pop, cleared before
 * push); pop() aborts if it hands out a buffer that already has an owner
 * or finds the stack empty, and after the join main walks the free stack
 * and aborts (SIGABRT) if a buffer appears twice, is on the stack while
 * owned or held as a reply, or if free and held buffers do not add up to
 * the pool.
 *
 * Natively (2 cores) the threads could also meet by running in parallel, but
 * main's work takes a few microseconds and the worker starts running tens of
 * microseconds after pthread_create() returns: 0 failures in 1000 runs
 * (`bench/native-runs 1000 guest/tests/aba_stack.c`, see README.md).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * Shared variables are accessed with atomic loads, stores and CAS (relaxed
 * where no ordering is needed): the compiler must make every access where
 * the program makes it, and the race is a logical one between separate
 * accesses, not undefined behaviour. The bug is in the program's order of
 * accesses, not left to the optimiser.
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

#define BUFFERS 4
#define ROUNDS	100
#define NOBODY	0
#define MAIN	1
#define WORKER	2

struct buffer {
	struct buffer *next; /* the next free buffer while on the stack */
	int owner;	     /* NOBODY while free */
	unsigned long data;
};

static struct buffer pool[BUFFERS];
static struct buffer *head; /* the free stack */

static void push(struct buffer *b)
{
	struct buffer *old = LOAD(&head);

	STORE(&b->owner, NOBODY);
	do
		STORE(&b->next, old);
	while (!__atomic_compare_exchange_n(&head, &old, b, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

static struct buffer *pop(int me)
{
	struct buffer *old = __atomic_load_n(&head, __ATOMIC_ACQUIRE), *next;

	do {
		if (old == NULL) {
			fprintf(stderr, "aba_stack: pool empty (thread %d)\n", me);
			abort();
		}
		next = LOAD(&old->next);
		/* The race window: the head may change and change back before the CAS. */
		race_window();
	} while (!__atomic_compare_exchange_n(&head, &old, next, 0, __ATOMIC_ACQUIRE,
					      __ATOMIC_ACQUIRE));
	if (__atomic_exchange_n(&old->owner, me, __ATOMIC_RELAXED) != NOBODY) {
		fprintf(stderr, "aba_stack: buffer %d handed out twice\n", (int)(old - pool));
		abort();
	}
	return old;
}

/*
 * A thread's work: ROUNDS small jobs with one buffer each, then one request
 * that needs a scratch buffer and a reply buffer; the reply is kept (held)
 * until main has printed it.
 */
static struct buffer *serve(int me)
{
	struct buffer *scratch, *reply;

	for (int i = 0; i < ROUNDS; i++) {
		struct buffer *b = pop(me);

		STORE(&b->data, (unsigned long)i);
		push(b);
	}
	scratch = pop(me);
	reply = pop(me);
	STORE(&scratch->data, (unsigned long)me * 6);
	STORE(&reply->data, LOAD(&scratch->data) * 7);
	push(scratch);
	return reply;
}

static void *worker(void *arg)
{
	(void)arg;
	return serve(WORKER);
}

/* Walks the free stack: each buffer once, none owned or held, free + held == the pool. */
static void check_pool(const struct buffer *held1, const struct buffer *held2)
{
	int seen[BUFFERS] = {0}, free = 0;

	for (struct buffer *b = LOAD(&head); b != NULL; b = LOAD(&b->next)) {
		int i = (int)(b - pool);

		if (seen[i]++ || LOAD(&b->owner) != NOBODY || b == held1 || b == held2) {
			fprintf(stderr, "aba_stack: free stack corrupt at buffer %d\n", i);
			abort();
		}
		free++;
	}
	if (held1 == held2 || free + 2 != BUFFERS) {
		fprintf(stderr, "aba_stack: %d free + 2 held of %d buffers\n", free, BUFFERS);
		abort();
	}
}

int main(void)
{
	struct buffer *mine, *theirs;
	pthread_t thread;
	void *ret;

	for (int i = BUFFERS - 1; i >= 0; i--)
		push(&pool[i]);
	if (pthread_create(&thread, NULL, worker, NULL) != 0) {
		fputs("aba_stack: pthread_create failed\n", stderr);
		return 2;
	}
	mine = serve(MAIN);
	pthread_join(thread, &ret);
	theirs = ret;
	check_pool(mine, theirs);
	printf("aba_stack: replies %lu and %lu in buffers %d and %d\n", LOAD(&mine->data),
	       LOAD(&theirs->data), (int)(mine - pool), (int)(theirs - pool));
	return 0;
}

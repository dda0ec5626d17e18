/* SPDX-License-Identifier: MIT */
/*
 * lost_wakeup: a client library's "wait for the reply" call. The caller
 * sends a request to a worker thread and waits for its completion. The wait
 * has a fast path: when the reply is already there (the flag `done`), it
 * returns without touching the lock. Otherwise it takes the lock and waits
 * on the condition variable, which the worker signals, under the lock,
 * after it set `done`.
 *
 * The bug: the fast path reads `done` without the lock, and the slow path
 * does not read it again under the lock before waiting. When the worker
 * finishes between the two (takes the lock, sets done, signals nobody,
 * unlocks), the caller then waits for a signal that already came: the
 * wakeup is lost and the caller sleeps for ever.
 *
 * The interleaving (one preemption, bug depth 2): the caller is preempted
 * after its unlocked read of `done` (which said 0) and before its
 * pthread_mutex_lock(); the worker then runs its whole reply (on one CPU
 * nothing in it blocks). Any other schedule passes: the worker either
 * finishes before the caller reads `done` (fast path) or signals while the
 * caller waits.
 *
 * Detection: the caller blocks for ever while the worker has exited: every
 * thread blocked and no timer armed, a deadlock, which Rewind reports as
 * one (natively the test hangs until a CI timeout kills it).
 *
 * Native failures: see README.md. lost_wakeup_fixed.c is the fixed twin.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct call {
	pthread_mutex_t lock;
	pthread_cond_t replied;
	volatile int done; /* set under the lock by the worker */
	char request[64];
	unsigned long reply;
};

/* The worker's job: a checksum of the request, then the reply. */
static void *worker(void *arg)
{
	struct call *c = arg;
	unsigned long sum = 5381;

	for (size_t i = 0; c->request[i]; i++)
		sum = sum * 33 + (unsigned char)c->request[i];
	pthread_mutex_lock(&c->lock);
	c->reply = sum;
	c->done = 1;
	pthread_cond_signal(&c->replied);
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* Waits for the reply: the fast path, then the lock and the condition. */
static unsigned long wait_reply(struct call *c)
{
	if (!c->done) {
		pthread_mutex_lock(&c->lock);
		pthread_cond_wait(&c->replied, &c->lock);
		pthread_mutex_unlock(&c->lock);
	}
	return c->reply;
}

int main(void)
{
	static struct call call = {.lock = PTHREAD_MUTEX_INITIALIZER,
				   .replied = PTHREAD_COND_INITIALIZER};
	pthread_t thread;

	snprintf(call.request, sizeof(call.request), "GET /status");
	if (pthread_create(&thread, NULL, worker, &call)) {
		fputs("lost_wakeup: cannot start the worker\n", stderr);
		return 2;
	}
	printf("lost_wakeup: reply %lu\n", wait_reply(&call));
	pthread_join(thread, NULL);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * lost_wakeup_fixed: lost_wakeup.c's fixed twin. The same call and worker,
 * but the slow path reads `done` again under the lock and waits in a loop
 * while it is 0 (the condition variable's rule), so a reply that came
 * between the fast path and the lock is seen. No bug: no schedule may fail
 * it or leave the caller blocked.
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
		while (!c->done)
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
		fputs("lost_wakeup_fixed: cannot start the worker\n", stderr);
		return 2;
	}
	printf("lost_wakeup_fixed: reply %lu\n", wait_reply(&call));
	pthread_join(thread, NULL);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * start_wait: a correct program, no bug. main keeps a worker's start
 * signal in a struct on its own stack, hands the worker its address, and
 * spins until the worker says it has started (GLib's thread-pool tests
 * wait for a new pool thread this way), then waits for its result. The
 * spin starts before the worker has run at all: a search must never call a
 * run stuck, in either build.
 */
#include <pthread.h>
#include <stdio.h>

struct start {
	int started;
	long result;
};

static void *worker(void *arg)
{
	struct start *s = arg;

	__atomic_store_n(&s->started, 1, __ATOMIC_RELEASE);
	s->result = 42;
	return NULL;
}

int main(void)
{
	struct start s = {0, 0};
	pthread_t thread;

	if (pthread_create(&thread, NULL, worker, &s)) {
		perror("start_wait: pthread_create");
		return 2;
	}
	while (__atomic_load_n(&s.started, __ATOMIC_ACQUIRE) == 0)
		;
	if (pthread_join(thread, NULL)) {
		perror("start_wait: pthread_join");
		return 2;
	}
	if (s.result != 42) {
		fprintf(stderr, "start_wait: the worker's result is %ld\n", s.result);
		return 1;
	}
	printf("start_wait: the worker started, result %ld\n", s.result);
	return 0;
}

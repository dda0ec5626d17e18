/* SPDX-License-Identifier: MIT */
/*
 * broken_dcl: two request handlers share the database connection
 * settings, created on first use by get_settings() with double-checked
 * locking: an unlocked check of the `settings` pointer, then the mutex
 * and a second check before creating them.
 *
 * The bug: the creating thread publishes the pointer before it fills in
 * the fields (it stores `settings` right after the allocation, then sets
 * the port, the timeout and the retry count). A thread that takes the
 * unlocked fast path in that gap gets a pointer to zeroed settings.
 *
 * The interleaving (one preemption, bug depth 2): the thread that calls
 * get_settings() first (whichever it is) is preempted after storing
 * `settings` and before its last field store; the other thread then
 * handles its requests, finds the pointer set, skips the mutex and reads
 * a zero field. This can happen only once per run, on the first request;
 * a preemption anywhere else is harmless.
 *
 * Detection: a real handler would try to connect to port 0 (or time out
 * at once); the handler checks the settings first, prints
 * "broken_dcl: handler 2 got port 0, timeout 0 ms, 0 retries" and aborts.
 *
 * Native failures: 0, 0 and 0 in three sets of 1000 runs (2026-11-30, 2 cores,
 * Debian 12; see README.md).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define REQUESTS 10

struct db_settings {
	volatile int port;
	volatile int timeout_ms;
	volatile int retries;
};

static struct db_settings *volatile settings;
static pthread_mutex_t settings_lock = PTHREAD_MUTEX_INITIALIZER;

static struct db_settings *get_settings(void)
{
	if (settings == NULL) {
		pthread_mutex_lock(&settings_lock);
		if (settings == NULL) {
			struct db_settings *s = calloc(1, sizeof *s);

			if (s == NULL) {
				fputs("broken_dcl: out of memory\n", stderr);
				exit(2);
			}
			settings = s;
			s->port = 5432;
			s->timeout_ms = 250;
			s->retries = 3;
		}
		pthread_mutex_unlock(&settings_lock);
	}
	return settings;
}

static void *handler(void *arg)
{
	int me = *(const int *)arg;
	long budget = 0;

	for (int i = 1; i <= REQUESTS; i++) {
		struct db_settings *s = get_settings();
		int port = s->port, timeout_ms = s->timeout_ms, retries = s->retries;

		if (port == 0 || timeout_ms == 0 || retries == 0) {
			fprintf(stderr,
				"broken_dcl: handler %d got port %d, timeout %d ms, %d retries\n",
				me, port, timeout_ms, retries);
			abort();
		}
		budget += (long)timeout_ms * (retries + 1);
	}
	return (void *)budget;
}

int main(void)
{
	static const int ids[2] = {1, 2};
	pthread_t threads[2];
	long budget = 0;

	for (int i = 0; i < 2; i++) {
		if (pthread_create(&threads[i], NULL, handler, (void *)&ids[i]) != 0) {
			fputs("broken_dcl: pthread_create failed\n", stderr);
			return 2;
		}
	}
	for (int i = 0; i < 2; i++) {
		void *ret;

		pthread_join(threads[i], &ret);
		budget += (long)ret;
	}
	printf("broken_dcl: 2 handlers, %d requests, %ld ms of timeout budget\n", 2 * REQUESTS,
	       budget);
	return 0;
}

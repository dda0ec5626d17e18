/* SPDX-License-Identifier: MIT */
/*
 * log_ring: twenty request threads each log one line into a shared ring:
 * a logger reserves the next slot with an atomic fetch-and-add on `tail`,
 * fills it and marks it ready. A flusher thread, started after the
 * loggers, writes the ready slots out in order as they come and polls
 * (yielding the CPU) while the next one is not ready yet.
 *
 * The bug: a logger marks its slot ready before it writes the line's
 * length and text (flag before data). A flusher that reads the slot in
 * between writes out an empty line.
 *
 * The interleaving (one preemption, bug depth 2): any of the twenty
 * loggers is preempted between its store of `ready` and its store of
 * `len`, and the flusher runs before that logger resumes (the other
 * loggers running there change nothing). Without preemptions each logger
 * fills its slot whole.
 *
 * Detection: the flusher aborts on a ready slot with no text
 * ("log_ring: slot 7 flushed empty"), and main checks the bytes written.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#define LOGGERS 20

struct slot {
	int ready;
	int len;
	char text[40];
};

static struct slot ring[LOGGERS];
static unsigned int tail;

static void *logger(void *arg)
{
	int request = *(const int *)arg;
	unsigned int i = __atomic_fetch_add(&tail, 1, __ATOMIC_RELAXED);
	struct slot *s = &ring[i];

	__atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
	s->len = snprintf(s->text, sizeof s->text, "request %d served", request);
	return NULL;
}

static void *flusher(void *arg)
{
	long written = 0;

	(void)arg;
	for (unsigned int next = 0; next < LOGGERS;) {
		struct slot *s = &ring[next];

		if (!__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE)) {
			sched_yield();
			continue;
		}
		if (s->len == 0) {
			fprintf(stderr, "log_ring: slot %u flushed empty\n", next);
			abort();
		}
		written += s->len + 1;
		next++;
	}
	return (void *)written;
}

int main(void)
{
	static int ids[LOGGERS];
	pthread_t loggers[LOGGERS], flush;
	long expected = 0;
	void *written;

	for (int i = 0; i < LOGGERS; i++) {
		ids[i] = 100 + i;
		expected += snprintf(NULL, 0, "request %d served", ids[i]) + 1;
		if (pthread_create(&loggers[i], NULL, logger, &ids[i]) != 0) {
			fputs("log_ring: pthread_create failed\n", stderr);
			return 2;
		}
	}
	if (pthread_create(&flush, NULL, flusher, NULL) != 0) {
		fputs("log_ring: pthread_create failed\n", stderr);
		return 2;
	}
	for (int i = 0; i < LOGGERS; i++)
		pthread_join(loggers[i], NULL);
	pthread_join(flush, &written);
	if ((long)written != expected) {
		fprintf(stderr, "log_ring: %ld bytes written, expected %ld\n", (long)written,
			expected);
		abort();
	}
	printf("log_ring: %d lines, %ld bytes\n", LOGGERS, expected);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * done_poll: a correct program, no bug. main splits a batch of records
 * over a few workers and waits until every worker has said it is done by
 * polling a count in its own frame: a volatile int, no atomics and no
 * condition variable, that each worker adds one to under a mutex when its
 * slice is checked (hand-written pools from before C11 wait this way).
 * It always ends with every record checked: a search of its plain build
 * must never report it as a failure, nor call a run stuck, in either
 * build.
 */
#include <pthread.h>
#include <stdio.h>

#define WORKERS 3
#define RECORDS 48

struct slice {
	const int *records;
	int from, to;
	int bad; /* records of the slice that fail the check */
	pthread_mutex_t *lock;
	volatile int *done;
};

static void *check_slice(void *arg)
{
	struct slice *s = arg;

	for (int i = s->from; i < s->to; i++)
		if (s->records[i] % 7 == 0)
			s->bad++;
	pthread_mutex_lock(s->lock);
	(*s->done)++;
	pthread_mutex_unlock(s->lock);
	return NULL;
}

int main(void)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	int records[RECORDS];
	struct slice slices[WORKERS];
	pthread_t workers[WORKERS];
	volatile int done = 0;
	int bad = 0;

	for (int i = 0; i < RECORDS; i++)
		records[i] = i + 1;
	for (int w = 0; w < WORKERS; w++) {
		slices[w] = (struct slice){
			records, w * RECORDS / WORKERS, (w + 1) * RECORDS / WORKERS, 0, &lock,
			&done};
		if (pthread_create(&workers[w], NULL, check_slice, &slices[w])) {
			perror("done_poll: pthread_create");
			return 2;
		}
	}
	while (done < WORKERS)
		;
	for (int w = 0; w < WORKERS; w++)
		pthread_join(workers[w], NULL);
	for (int w = 0; w < WORKERS; w++)
		bad += slices[w].bad;
	if (bad != RECORDS / 7) {
		fprintf(stderr, "done_poll: %d bad records, %d expected\n", bad, RECORDS / 7);
		return 1;
	}
	printf("done_poll: %d records in %d slices, %d bad\n", RECORDS, WORKERS, bad);
	return 0;
}

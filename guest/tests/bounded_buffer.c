/* SPDX-License-Identifier: MIT */
/*
 * bounded_buffer: a print spooler. Main queues 60 print jobs into a
 * four-slot ring; two printer threads take jobs out and print them (add
 * up their pages). The ring is guarded by one mutex with two condition
 * variables. Main signals `not_empty` after it queued a job into an empty
 * ring, a printer signals `not_full` after it took a job from a full one;
 * both signal after unlocking the mutex (so that the woken thread does
 * not block on it at once). A printer that finds the ring empty waits on
 * `not_empty`.
 *
 * The bug: the printers wait with `if (count == 0) pthread_cond_wait()`
 * instead of `while`. A woken printer takes a job without looking again,
 * but the other printer may have taken the job between main's unlock and
 * its signal, or before the woken printer got the mutex back.
 *
 * The interleaving (one preemption, bug depth 2): printer B waits on an
 * empty ring and printer A is ready to run, not waiting (it has not run
 * yet, or is printing its last job). Main queues a job and is preempted
 * after unlocking the ring and before pthread_cond_signal(); A then takes
 * the job and, finding the ring empty, waits too. Main's signal wakes one
 * of them, which goes on to take a job from the empty ring. In a run
 * without preemptions a woken printer always finds the job it was woken
 * for, whichever thread runs first (jobs go to a printer one at a time, or
 * the ring stays full while main refills it).
 *
 * Detection: a taken slot is cleared to 0 (jobs are numbered from 1); a
 * printer that takes a 0 prints
 * "bounded_buffer: printer 2 took an empty slot (0 jobs queued)" and
 * aborts. After the join main checks that every job was printed once.
 *
 * Natively, on two cores, a printer that is not waiting often gets the
 * mutex before the woken one, more often the busier the machine: 110, 8
 * and 17 failures in three sets of 1000 runs (2026-11-30, 2 cores, Debian
 * 12; see README.md).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define SLOTS	 4
#define JOBS	 60
#define PRINTERS 2

static pthread_mutex_t ring_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static int ring[SLOTS]; /* job numbers, 0 = empty slot */
static int head, tail, count, closed;

static int printed[JOBS + 1]; /* per job: times printed (job numbers are 1..JOBS) */
static long pages[PRINTERS];

static void queue_job(int job)
{
	int was_empty;

	pthread_mutex_lock(&ring_lock);
	if (count == SLOTS)
		pthread_cond_wait(&not_full, &ring_lock);
	if (ring[tail] != 0) {
		fprintf(stderr, "bounded_buffer: main overwrote job %d (%d jobs queued)\n",
			ring[tail], count);
		abort();
	}
	ring[tail] = job;
	tail = (tail + 1) % SLOTS;
	was_empty = count++ == 0;
	pthread_mutex_unlock(&ring_lock);
	if (was_empty)
		pthread_cond_signal(&not_empty);
}

static void *printer(void *arg)
{
	int me = *(const int *)arg;

	for (;;) {
		int job, was_full;

		pthread_mutex_lock(&ring_lock);
		if (count == 0 && !closed)
			pthread_cond_wait(&not_empty, &ring_lock);
		if (count == 0 && closed) {
			pthread_mutex_unlock(&ring_lock);
			return NULL;
		}
		job = ring[head];
		if (job == 0) {
			fprintf(stderr,
				"bounded_buffer: printer %d took an empty slot (%d jobs queued)\n",
				me, count);
			abort();
		}
		ring[head] = 0;
		head = (head + 1) % SLOTS;
		was_full = count-- == SLOTS;
		pthread_mutex_unlock(&ring_lock);
		if (was_full)
			pthread_cond_signal(&not_full);

		printed[job]++;
		pages[me - 1] += job % 7 + 1;
	}
}

int main(void)
{
	static const int ids[PRINTERS] = {1, 2};
	pthread_t printers[PRINTERS];

	for (int i = 0; i < PRINTERS; i++) {
		if (pthread_create(&printers[i], NULL, printer, (void *)&ids[i]) != 0) {
			fputs("bounded_buffer: pthread_create failed\n", stderr);
			return 2;
		}
	}
	for (int job = 1; job <= JOBS; job++)
		queue_job(job);
	pthread_mutex_lock(&ring_lock);
	closed = 1;
	pthread_cond_broadcast(&not_empty);
	pthread_mutex_unlock(&ring_lock);
	for (int i = 0; i < PRINTERS; i++)
		pthread_join(printers[i], NULL);
	for (int job = 1; job <= JOBS; job++) {
		if (printed[job] != 1) {
			fprintf(stderr, "bounded_buffer: job %d printed %d times\n", job,
				printed[job]);
			abort();
		}
	}
	printf("bounded_buffer: %d jobs, %ld pages printed\n", JOBS, pages[0] + pages[1]);
	return 0;
}

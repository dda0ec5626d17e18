/* SPDX-License-Identifier: MIT */
/*
 * work_steal: a work-stealing pool. Main owns a deque of task ids: for
 * each of eight batches it pushes eight tasks at the bottom, wakes the
 * idle helpers, then pops and runs tasks from the bottom until the deque
 * is empty. Two helpers steal from the top (a CAS on `top` settles races
 * between thieves) and sleep until the next batch when they find nothing.
 *
 * The bug: pop() reads `top`, takes the bottom task, and only then
 * publishes the new `bottom`; a thief that steals in between still sees
 * the old bottom, and both run the task. (A correct deque publishes the
 * new bottom first, then reads `top`, and CASes for the last task.)
 *
 * The interleaving (one preemption, bug depth 2): main is preempted in
 * pop() between its load of `top` and its store of `bottom` while a helper
 * is ready to run (not started yet, or woken for this batch); the helper
 * steals every task left, the one main is taking included. Main resumes
 * and runs it again; `bottom` now lies below `top`, so later tasks can be
 * lost too. (So does a helper preempted before its CAS while main pops
 * down to its task.) Without preemptions each pop and steal runs whole.
 *
 * Detection: each thread counts the tasks it ran; main checks that every
 * task ran once: "work_steal: task 7 ran 2 times" (or 0), then abort().
 *
 * Native failures: 0, 0 and 3 in three sets of 1000 runs (2026-11-30, 2 cores,
 * Debian 12; see README.md).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define BATCHES 8
#define BATCH	8
#define TASKS	(BATCHES * BATCH)
#define HELPERS 2
#define DEQ_SZ	16 /* a power of two, at least BATCH */

static volatile int deque[DEQ_SZ]; /* task ids */
static long top, bottom;	   /* atomic; the tasks are in [top, bottom) */

static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t new_batch = PTHREAD_COND_INITIALIZER;
static int batch_no, shutting_down; /* idle_lock */

static int ran[HELPERS + 1][TASKS]; /* per thread (0: main): times each task ran */
static long result[TASKS];

static void push(int task) /* owner only */
{
	long b = __atomic_load_n(&bottom, __ATOMIC_RELAXED);

	deque[b % DEQ_SZ] = task;
	__atomic_store_n(&bottom, b + 1, __ATOMIC_SEQ_CST);
}

static int pop(void) /* owner only: a task id, or -1 when empty */
{
	long b = __atomic_load_n(&bottom, __ATOMIC_RELAXED);
	long t = __atomic_load_n(&top, __ATOMIC_SEQ_CST);
	int task;

	if (b <= t)
		return -1;
	task = deque[(b - 1) % DEQ_SZ];
	__atomic_store_n(&bottom, b - 1, __ATOMIC_SEQ_CST);
	return task;
}

static int steal(void) /* helpers: a task id, or -1 when empty */
{
	long t;
	int task;

	do {
		long b;

		t = __atomic_load_n(&top, __ATOMIC_SEQ_CST);
		b = __atomic_load_n(&bottom, __ATOMIC_SEQ_CST);
		if (t >= b)
			return -1;
		task = deque[t % DEQ_SZ];
	} while (!__atomic_compare_exchange_n(&top, &t, t + 1, 0, __ATOMIC_SEQ_CST,
					      __ATOMIC_SEQ_CST));
	return task;
}

static void run_task(int worker, int task)
{
	ran[worker][task]++;
	result[task] = (long)task * task % 1009;
}

static void wake_helpers(int quit) /* owner only */
{
	pthread_mutex_lock(&idle_lock);
	batch_no++;
	shutting_down = quit;
	pthread_cond_broadcast(&new_batch);
	pthread_mutex_unlock(&idle_lock);
}

static void *helper(void *arg)
{
	int me = *(const int *)arg, seen = 0, quit = 0;

	while (!quit) {
		for (int task = steal(); task >= 0; task = steal())
			run_task(me, task);
		pthread_mutex_lock(&idle_lock);
		if (batch_no == seen)
			pthread_cond_wait(&new_batch, &idle_lock);
		seen = batch_no;
		quit = shutting_down;
		pthread_mutex_unlock(&idle_lock);
	}
	return NULL;
}

int main(void)
{
	static const int ids[HELPERS] = {1, 2};
	pthread_t helpers[HELPERS];
	long total = 0;

	for (int i = 0; i < HELPERS; i++) {
		if (pthread_create(&helpers[i], NULL, helper, (void *)&ids[i]) != 0) {
			fputs("work_steal: pthread_create failed\n", stderr);
			return 2;
		}
	}
	for (int n = 0; n < BATCHES; n++) {
		for (int i = 0; i < BATCH; i++)
			push(n * BATCH + i);
		wake_helpers(0);
		for (int task = pop(); task >= 0; task = pop())
			run_task(0, task);
	}
	wake_helpers(1);
	for (int i = 0; i < HELPERS; i++)
		pthread_join(helpers[i], NULL);
	for (int t = 0; t < TASKS; t++) {
		int times = ran[0][t] + ran[1][t] + ran[2][t]; /* main and the 2 helpers */

		if (times != 1) {
			fprintf(stderr, "work_steal: task %d ran %d times\n", t, times);
			abort();
		}
		total += result[t];
	}
	printf("work_steal: %d tasks ran once each, results add up to %ld\n", TASKS, total);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * deque_state: a work-stealing pool whose tasks carry a state field, and a
 * caller that cancels the tasks it no longer needs. Main owns a deque of
 * tasks: for each of eight batches it pushes eight tasks at the bottom,
 * wakes the two helpers, cancels the batch's odd tasks (their results are
 * not wanted any more), and pops tasks from the bottom until the deque is
 * empty; the helpers steal from the top (Chase-Lev: a CAS on `top` settles
 * races between thieves and the owner's last pop). Whoever takes a task
 * claims it by moving its state from QUEUED to RUNNING with a CAS, and
 * marks it DONE after running it; a task whose claim fails was cancelled.
 *
 * The bug: cancel() checks that the task is still QUEUED and then stores
 * CANCELLED, two plain accesses, where a thief's CAS may claim the task in
 * between: the task runs, and the caller believes it cancelled.
 *
 * The interleaving (bug depth 2, one preemption): main is preempted in
 * cancel() between its load of the state (QUEUED) and its store of
 * CANCELLED while a woken helper can run; the helper steals and claims
 * that task. Main resumes and counts the task as cancelled.
 *
 * Detection: every task counts its runs; main checks that no cancelled task
 * ran and every other task ran once: "deque_state: task 5 was cancelled
 * but ran 1 times", then abort().
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#define BATCHES 8
#define BATCH	8
#define TASKS	(BATCHES * BATCH)
#define HELPERS 2
#define DEQ_SZ	16 /* a power of two, at least BATCH */

enum task_state { QUEUED, RUNNING, DONE, CANCELLED };

struct task {
	int id;
	int state;     /* enum task_state */
	int cancelled; /* the caller counted it cancelled */
	int runs;      /* atomic: how often it ran */
	long result;
};

static struct task tasks[TASKS];
static struct task *deque[DEQ_SZ];
static long top, bottom; /* atomic; the tasks are in [top, bottom) */

static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_ready = PTHREAD_COND_INITIALIZER;
static int batch_posted; /* batches pushed so far, under idle_lock */
static int quitting;

#define LOAD(p)	    __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)

static void run_task(struct task *t)
{
	long sum = 0;

	for (int i = 1; i <= t->id + 1; i++)
		sum += (long)i * i;
	t->result = sum;
	__atomic_fetch_add(&t->runs, 1, __ATOMIC_SEQ_CST);
	STORE(&t->state, DONE);
}

static void push(struct task *t)
{
	long b = LOAD(&bottom);

	deque[b % DEQ_SZ] = t;
	STORE(&bottom, b + 1);
}

/* The owner's end: the bottom task, or NULL when the deque is empty. */
static struct task *pop(void)
{
	long b = LOAD(&bottom) - 1, t;
	struct task *task;

	STORE(&bottom, b);
	t = LOAD(&top);
	if (t > b) { /* empty: put bottom back */
		STORE(&bottom, t);
		return NULL;
	}
	task = deque[b % DEQ_SZ];
	if (t == b) { /* the last one: race the thieves for it on top */
		if (!__atomic_compare_exchange_n(&top, &t, t + 1, 0, __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST))
			task = NULL;
		STORE(&bottom, b + 1);
	}
	return task;
}

/* The thieves' end: the top task, or NULL when the deque is empty. */
static struct task *steal(void)
{
	for (;;) {
		long t = LOAD(&top), b = LOAD(&bottom);
		struct task *task;

		if (t >= b)
			return NULL;
		task = deque[t % DEQ_SZ];
		if (__atomic_compare_exchange_n(&top, &t, t + 1, 0, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			return task;
	}
}

/* Owner and thieves alike: a task is run by whoever moves it out of QUEUED. */
static int claim(struct task *t)
{
	int expected = QUEUED;

	return __atomic_compare_exchange_n(&t->state, &expected, RUNNING, 0, __ATOMIC_SEQ_CST,
					   __ATOMIC_SEQ_CST);
}

/* The bug: a check and a store, where a thief may claim the task in between. */
static void cancel(struct task *t)
{
	if (LOAD(&t->state) != QUEUED)
		return; /* already running or done: too late */
	STORE(&t->state, CANCELLED);
	t->cancelled = 1;
}

static void *helper(void *arg)
{
	int seen = 0;

	(void)arg;
	for (;;) {
		struct task *t;

		pthread_mutex_lock(&idle_lock);
		while (batch_posted == seen && !quitting)
			pthread_cond_wait(&work_ready, &idle_lock);
		if (batch_posted == seen && quitting) {
			pthread_mutex_unlock(&idle_lock);
			return NULL;
		}
		seen = batch_posted;
		pthread_mutex_unlock(&idle_lock);
		while ((t = steal()) != NULL)
			if (claim(t))
				run_task(t);
	}
}

int main(void)
{
	pthread_t helpers[HELPERS];

	for (int i = 0; i < TASKS; i++)
		tasks[i] = (struct task){.id = i, .state = QUEUED};
	for (int i = 0; i < HELPERS; i++)
		if (pthread_create(&helpers[i], NULL, helper, NULL) != 0) {
			perror("deque_state: pthread_create");
			return 1;
		}
	for (int batch = 0; batch < BATCHES; batch++) {
		struct task *t;

		for (int i = 0; i < BATCH; i++)
			push(&tasks[batch * BATCH + i]);
		pthread_mutex_lock(&idle_lock);
		batch_posted++;
		pthread_cond_broadcast(&work_ready);
		pthread_mutex_unlock(&idle_lock);
		for (int i = 1; i < BATCH; i += 2)
			cancel(&tasks[batch * BATCH + i]);
		while ((t = pop()) != NULL)
			if (claim(t))
				run_task(t);
		/* the helpers may still be running stolen tasks: wait for them */
		for (int i = 0; i < BATCH; i++) {
			struct task *w = &tasks[batch * BATCH + i];

			while (LOAD(&w->state) == RUNNING)
				sched_yield();
		}
	}
	pthread_mutex_lock(&idle_lock);
	quitting = 1;
	pthread_cond_broadcast(&work_ready);
	pthread_mutex_unlock(&idle_lock);
	for (int i = 0; i < HELPERS; i++)
		pthread_join(helpers[i], NULL);
	for (int i = 0; i < TASKS; i++) {
		if (tasks[i].cancelled && tasks[i].runs) {
			printf("deque_state: task %d was cancelled but ran %d times\n", i,
			       tasks[i].runs);
			abort();
		}
		if (!tasks[i].cancelled && tasks[i].runs != 1) {
			printf("deque_state: task %d ran %d times\n", i, tasks[i].runs);
			abort();
		}
	}
	printf("deque_state: %d tasks, the cancelled ones never ran, the others once\n", TASKS);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * spawn_queue: a correct program, no bug. A small work queue in the shape
 * of GLib's thread pool: a spawner thread creates each worker when main
 * asks for one, and main, after it pushed a job, spins until a worker has
 * counted it, on a counter in its own stack frame, with no system call:
 * the shape of GLib's /thread_pool/create_full test. The worker that sets
 * the counter was created by the spawner, not by main, and later jobs go
 * to a worker that has run already. A search must never call a run stuck.
 */
#include <pthread.h>
#include <stdio.h>

#define JOBS 3

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int spawn_requests; /* workers main asked the spawner for */
	int pending;	    /* jobs pushed and not taken */
	int quit;
	int *started; /* where workers count (main's frame) */
};

static void *worker(void *arg)
{
	struct pool *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->pending && !p->quit)
			pthread_cond_wait(&p->wake, &p->lock);
		if (!p->pending)
			break;
		p->pending--;
		__atomic_fetch_add(p->started, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Creates a worker for each request: the workers are its children, not main's. */
static void *spawner(void *arg)
{
	struct pool *p = arg;
	pthread_t workers[JOBS];
	int made = 0;

	pthread_mutex_lock(&p->lock);
	while (!p->quit) {
		if (p->spawn_requests > made && made < JOBS) {
			pthread_mutex_unlock(&p->lock);
			if (pthread_create(&workers[made], NULL, worker, p)) {
				perror("spawn_queue: pthread_create");
				return NULL;
			}
			pthread_mutex_lock(&p->lock);
			made++;
			continue;
		}
		pthread_cond_wait(&p->wake, &p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	for (int i = 0; i < made; i++)
		pthread_join(workers[i], NULL);
	return NULL;
}

int main(void)
{
	struct pool p = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, NULL};
	int started = 0; /* main's own frame, as GLib's test_data */
	pthread_t spawn;

	p.started = &started;
	if (pthread_create(&spawn, NULL, spawner, &p)) {
		perror("spawn_queue: pthread_create");
		return 2;
	}
	for (int job = 1; job <= JOBS; job++) {
		pthread_mutex_lock(&p.lock);
		if (job == 1)
			p.spawn_requests++;
		p.pending++;
		pthread_cond_broadcast(&p.wake);
		pthread_mutex_unlock(&p.lock);
		while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < job)
			;
	}
	pthread_mutex_lock(&p.lock);
	p.quit = 1;
	pthread_cond_broadcast(&p.wake);
	pthread_mutex_unlock(&p.lock);
	pthread_join(spawn, NULL);
	printf("spawn_queue: %d jobs started\n", started);
	return 0;
}

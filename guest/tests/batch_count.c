/* SPDX-License-Identifier: MIT */
/*
 * A batch of work split over a few worker threads. The caller keeps the
 * count of parts still running on its own stack, hands each worker a
 * pointer to it, and waits until the count reaches zero (the workers are
 * short, so it spins rather than sleeps), then adds up the parts. Pools
 * written by hand and GLib's thread-pool tests wait this way. Correct: it
 * never fails, and no schedule may call it stuck.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#define WORKERS 4
#define ITEMS	64

struct part {
	const int *items;
	int from, to;
	long sum;
	atomic_int *running;
};

static void *sum_part(void *arg)
{
	struct part *p = arg;

	for (int i = p->from; i < p->to; i++)
		p->sum += p->items[i];
	atomic_fetch_sub(p->running, 1);
	return NULL;
}

int main(void)
{
	int items[ITEMS];
	struct part parts[WORKERS];
	pthread_t workers[WORKERS];
	atomic_int running = WORKERS;
	long total = 0;

	for (int i = 0; i < ITEMS; i++)
		items[i] = i + 1;
	for (int w = 0; w < WORKERS; w++) {
		parts[w] = (struct part){items, w * ITEMS / WORKERS, (w + 1) * ITEMS / WORKERS, 0,
					 &running};
		if (pthread_create(&workers[w], NULL, sum_part, &parts[w])) {
			perror("batch_count: pthread_create");
			return 2;
		}
	}
	while (atomic_load(&running) > 0)
		;
	for (int w = 0; w < WORKERS; w++)
		total += parts[w].sum;
	for (int w = 0; w < WORKERS; w++)
		pthread_join(workers[w], NULL);
	if (total != (long)ITEMS * (ITEMS + 1) / 2) {
		fprintf(stderr, "batch_count: the parts add up to %ld\n", total);
		return 1;
	}
	printf("batch_count: %d items in %d parts: %ld\n", ITEMS, WORKERS, total);
	return 0;
}

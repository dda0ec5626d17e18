/* SPDX-License-Identifier: MIT */
/*
 * lock_order_deadlock: a shop's catalogue (stock levels, under
 * catalog_lock) and its statistics (under stats_lock). A restock thread
 * adds stock and counts the restock in the statistics; a report thread
 * takes a statistics snapshot that includes the total stock.
 *
 * The bug: lock-order inversion. restock() takes catalog_lock, then
 * stats_lock; report() takes stats_lock, then catalog_lock.
 *
 * The interleaving (one preemption, bug depth 2): the restock thread is
 * preempted in restock() between locking catalog_lock and locking
 * stats_lock, in any of its rounds; the report thread then locks
 * stats_lock and blocks on catalog_lock; the restock thread resumes and
 * blocks on stats_lock. (Or the mirror image: the report thread preempted
 * between its two locks, the restock thread runs up to its second lock.)
 * Neither thread ever wakes up. In any schedule where no thread is
 * preempted while holding its first lock, the program passes.
 *
 * Detection: none in the program; it hangs, with both threads blocked
 * (natively `timeout 2` kills it).
 *
 * Native hangs: 0, 1 and 0 in three sets of 1000 runs (2026-11-30, 2
 * cores, Debian 12; see README.md).
 */
#include <pthread.h>
#include <stdio.h>

#define ITEMS  8
#define ROUNDS 40

static pthread_mutex_t catalog_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static int stock[ITEMS]; /* catalog_lock */
static int restocks;	 /* stats_lock */
static int reports;	 /* stats_lock */
static long last_total;	 /* stats_lock */

static void restock(int item, int quantity)
{
	pthread_mutex_lock(&catalog_lock);
	stock[item] += quantity;
	pthread_mutex_lock(&stats_lock);
	restocks++;
	pthread_mutex_unlock(&stats_lock);
	pthread_mutex_unlock(&catalog_lock);
}

static void report(void)
{
	long total = 0;

	pthread_mutex_lock(&stats_lock);
	reports++;
	pthread_mutex_lock(&catalog_lock);
	for (int i = 0; i < ITEMS; i++)
		total += stock[i];
	pthread_mutex_unlock(&catalog_lock);
	last_total = total;
	pthread_mutex_unlock(&stats_lock);
}

static void *restock_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++)
		restock(i % ITEMS, 5);
	return NULL;
}

static void *report_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++)
		report();
	return NULL;
}

int main(void)
{
	pthread_t t1, t2;

	if (pthread_create(&t1, NULL, restock_thread, NULL) != 0 ||
	    pthread_create(&t2, NULL, report_thread, NULL) != 0) {
		fputs("lock_order_deadlock: pthread_create failed\n", stderr);
		return 2;
	}
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	report();
	printf("lock_order_deadlock: %d restocks, %d reports, %ld items in stock\n", restocks,
	       reports, last_total);
	return 0;
}

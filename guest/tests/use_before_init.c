/* SPDX-License-Identifier: MIT */
/*
 * use_before_init: a shipping-cost service. Main starts a worker that
 * answers 40 price lookups, then sets up a cache of precomputed prices
 * (a table of 64 entries). A lookup uses the cache when it is up (its
 * size is not 0) and computes the price itself otherwise; both give the
 * same answer, the cache only saves time.
 *
 * The bug: an order violation. cache_init() stores the cache's size
 * before it has built the table and stored the table pointer, so "the
 * size is set" does not mean "the table is there". A lookup in between
 * sees a cache that is up and uses its table pointer while it is still
 * NULL.
 *
 * The interleaving (one preemption, bug depth 2): main is preempted in
 * cache_init() after storing `cache_size` and before storing
 * `cache_table` (while it fills the table); the worker then runs a lookup
 * (on one CPU: all its remaining lookups). In a run without preemptions
 * the worker either finishes before main sets up the cache (it computes
 * every price) or runs after it (it finds the whole cache), whichever
 * thread runs first.
 *
 * Detection: the real program would index the NULL table and crash; the
 * worker checks the pointer first, prints
 * "use_before_init: lookup 0 found the cache up (64 entries) but no
 * table" and aborts.
 *
 * Native failures: 0, 1 and 0 in three sets of 1000 runs (2026-11-30, 2 cores,
 * Debian 12; see README.md).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define LOOKUPS	   40
#define CACHE_SIZE 64

static volatile int cache_size;
static const long *volatile cache_table;

/* The price of shipping `weight` grams, the slow way. */
static long compute_price(int weight)
{
	long price = 450;

	for (int g = 500; g < weight; g += 250)
		price += 80 + price / 40;
	return price;
}

static void cache_init(int size)
{
	long *table;

	cache_size = size;
	table = malloc(size * sizeof *table);
	if (table == NULL) {
		fputs("use_before_init: out of memory\n", stderr);
		exit(2);
	}
	for (int i = 0; i < size; i++)
		table[i] = compute_price(i * 100);
	cache_table = table;
}

static long lookup(int n, int weight)
{
	int size = cache_size;
	const long *table;

	if (size == 0 || weight / 100 >= size)
		return compute_price(weight);
	table = cache_table;
	if (table == NULL) {
		fprintf(stderr,
			"use_before_init: lookup %d found the cache up (%d entries) but no table\n",
			n, size);
		abort();
	}
	return table[weight / 100];
}

static void *worker(void *arg)
{
	long *total = arg;

	for (int n = 0; n < LOOKUPS; n++)
		*total += lookup(n, (n * 37 % 50) * 100);
	return NULL;
}

int main(void)
{
	static long total;
	pthread_t thread;

	if (pthread_create(&thread, NULL, worker, &total) != 0) {
		fputs("use_before_init: pthread_create failed\n", stderr);
		return 2;
	}
	cache_init(CACHE_SIZE);
	pthread_join(thread, NULL);
	printf("use_before_init: %d lookups, total %ld\n", LOOKUPS, total);
	free((void *)cache_table);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * hit_counter: a price cache's statistics. Two request threads look each
 * requested product up in the cache (a read-only table, filled before the
 * threads start) and count the requests it answered in one global counter,
 * `hits++`, with no lock and no atomic: a statistic, so nobody bothered.
 *
 * The bug: built with gcc -O2, `hits++` is a single `addq $1, hits(%rip)`
 * (the counter is an ordinary global and the lookup calls strcmp(), so it
 * is neither kept in a register nor summed up after the loop): a
 * read-modify-write without LOCK. On a multi-core machine the two threads'
 * increments can interleave inside that instruction (both load 41, both
 * store 42) and a hit is lost. On one CPU no preemption lands inside an
 * instruction, so only a scheduler that treats the instruction as its load
 * and its store can show it (pct mode does for a plain build,
 * docs/harness.md; an instrumented build makes the load and the store
 * separate events anyway).
 *
 * The interleaving (one preemption, bug depth 2): a thread is preempted
 * between the load and the store of an increment; the other thread then
 * counts at least one hit (on one CPU: all its remaining ones) before the
 * first stores its stale value + 1.
 *
 * Detection: main joins both threads and checks the counter against the
 * hits the requests must make; on a shortfall it prints
 * "hit_counter: 139 hits counted, 140 served from the cache" and aborts.
 *
 * Native failures: see README.md. hit_counter_fixed.c is the fixed twin.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REQUESTS 100

struct price {
	const char *product;
	long cents;
};

static const struct price cache[] = {
	{"apple", 45},	 {"bread", 210}, {"butter", 189}, {"cheese", 520},
	{"coffee", 699}, {"eggs", 289},	 {"flour", 99},	  {"milk", 115},
};

static const char *const wanted[] = {"milk", "eggs",   "tea",	 "bread", "apple",
				     "rice", "coffee", "butter", "jam",	  "flour"};
#define WANTED (sizeof(wanted) / sizeof(wanted[0]))

static unsigned long hits; /* requests the cache answered: shared, unprotected */

static long cached_price(const char *product)
{
	for (size_t i = 0; i < sizeof(cache) / sizeof(cache[0]); i++)
		if (!strcmp(cache[i].product, product)) {
			hits++;
			return cache[i].cents;
		}
	return -1;
}

struct requests {
	size_t first;
	long total; /* what the thread's customers pay for what the cache had */
};

static void *serve(void *arg)
{
	struct requests *r = arg;

	for (size_t i = 0; i < REQUESTS; i++) {
		long cents = cached_price(wanted[(r->first + i) % WANTED]);

		if (cents > 0)
			r->total += cents;
	}
	return NULL;
}

/* Hits the requests make: the products of wanted[] the cache holds. */
static unsigned long expected_hits(const struct requests *r, size_t n)
{
	unsigned long want = 0;

	for (size_t t = 0; t < n; t++)
		for (size_t i = 0; i < REQUESTS; i++)
			for (size_t c = 0; c < sizeof(cache) / sizeof(cache[0]); c++)
				want += !strcmp(cache[c].product,
						wanted[(r[t].first + i) % WANTED]);
	return want;
}

int main(void)
{
	struct requests reqs[2] = {{.first = 0}, {.first = 5}};
	pthread_t threads[2];
	unsigned long want;

	for (int i = 0; i < 2; i++)
		if (pthread_create(&threads[i], NULL, serve, &reqs[i])) {
			fputs("hit_counter: cannot start a thread\n", stderr);
			return 2;
		}
	for (int i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
	want = expected_hits(reqs, 2);
	if (hits != want) {
		fprintf(stderr, "hit_counter: %lu hits counted, %lu served from the cache\n", hits,
			want);
		abort();
	}
	printf("hit_counter: %lu hits of %d requests\n", hits, 2 * REQUESTS);
	return 0;
}

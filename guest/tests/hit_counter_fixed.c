/* SPDX-License-Identifier: MIT */
/*
 * hit_counter_fixed: hit_counter.c's fixed twin. The same price cache and
 * requests, but each hit is counted with an atomic increment (`lock addq`
 * in an -O2 build: atomic on every machine). No bug: no schedule may fail
 * it, and a plain build's single-instruction increment must not be split
 * into a load and a store, as hit_counter's plain `addq` is.
 *
 * Detection, should it ever fail: "hit_counter_fixed: N hits counted, M
 * served from the cache" and abort().
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

static unsigned long hits; /* requests the cache answered: shared, counted atomically */

static long cached_price(const char *product)
{
	for (size_t i = 0; i < sizeof(cache) / sizeof(cache[0]); i++)
		if (!strcmp(cache[i].product, product)) {
			__atomic_fetch_add(&hits, 1, __ATOMIC_RELAXED);
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
			fputs("hit_counter_fixed: cannot start a thread\n", stderr);
			return 2;
		}
	for (int i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
	want = expected_hits(reqs, 2);
	if (hits != want) {
		fprintf(stderr, "hit_counter_fixed: %lu hits counted, %lu served from the cache\n",
			hits, want);
		abort();
	}
	printf("hit_counter_fixed: %lu hits of %d requests\n", hits, 2 * REQUESTS);
	return 0;
}

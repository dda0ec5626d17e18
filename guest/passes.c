/* SPDX-License-Identifier: MIT */
/*
 * /bin/passes: a link checker's crawl in passes. A warm-up pass fetches
 * the first page with one worker; each later pass fetches with two
 * workers at once. Every worker adds the links it found to a shared total
 * with a plain `total += found` (no lock: one instruction, `addq`, which
 * two cores can interleave and lose), and the main thread checks the
 * total after each pass: "passes: 200 links, expected 300" and abort()
 * when an update was lost.
 *
 * Between passes the process has one thread; in pct mode the kernel then
 * makes no events and opens the pages main touches (linux/patches/0016).
 * The next pass's workers must make events again (the pages closed before
 * they run), or the later passes' race is out of reach.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define LINKS_PER_PAGE 100

static long total; /* links found so far, all workers */

static void *fetch(void *arg)
{
	long found = LINKS_PER_PAGE; /* what parsing a page found */

	total += found;
	return arg;
}

static void crawl(int workers)
{
	pthread_t t[2];

	for (int i = 0; i < workers; i++) {
		if (pthread_create(&t[i], NULL, fetch, NULL) != 0) {
			fputs("passes: pthread_create failed\n", stderr);
			exit(2);
		}
	}
	for (int i = 0; i < workers; i++)
		pthread_join(t[i], NULL);
}

int main(void)
{
	long expected = 0;

	for (int pass = 0; pass < 3; pass++) {
		int workers = pass == 0 ? 1 : 2; /* the warm-up pass: one worker */

		crawl(workers);
		expected += (long)LINKS_PER_PAGE * workers;
		if (total != expected) {
			fprintf(stderr, "passes: %ld links, expected %ld\n", total, expected);
			abort();
		}
	}
	printf("passes: %ld links\n", total);
	return 0;
}

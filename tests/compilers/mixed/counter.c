/* SPDX-License-Identifier: MIT */
/* A counter behind a mutex: the C library under test. */
#include "counter.h"

#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

void counter_add(long n)
{
	pthread_mutex_lock(&lock);
	total += n;
	pthread_mutex_unlock(&lock);
}

long counter_total(void)
{
	long t;

	pthread_mutex_lock(&lock);
	t = total;
	pthread_mutex_unlock(&lock);
	return t;
}

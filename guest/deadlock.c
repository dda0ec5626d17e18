/* SPDX-License-Identifier: MIT */
/*
 * deadlock: two threads take two mutexes in opposite orders (a barrier and a
 * sched_yield between the two locks make the deadlock certain), and the main
 * thread joins them, so every task waits forever with no timer armed: the
 * VMM must end the run as a deadlock (idle with nothing that can wake it).
 */
#include "guest/util.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>

struct locker {
	pthread_t thread;
	const char *name;
	pthread_mutex_t *first, *second;
	const char *first_name, *second_name;
	pthread_barrier_t *both_hold_one;
};

static void check(int rc, const char *what)
{
	if (rc != 0) {
		errno = rc;
		gu_die_errno("%s", what);
	}
}

static void *take_both(void *arg)
{
	struct locker *l = arg;
	int rc;

	check(pthread_mutex_lock(l->first), "pthread_mutex_lock");
	gu_say("deadlock: %s holds %s\n", l->name, l->first_name);
	rc = pthread_barrier_wait(l->both_hold_one);
	if (rc != 0 && rc != PTHREAD_BARRIER_SERIAL_THREAD)
		check(rc, "pthread_barrier_wait");
	if (sched_yield() < 0)
		gu_die_errno("sched_yield");
	gu_say("deadlock: %s waits for %s\n", l->name, l->second_name);
	check(pthread_mutex_lock(l->second), "pthread_mutex_lock");
	gu_die("%s got both mutexes: no deadlock", l->name);
}

int main(void)
{
	static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
	pthread_barrier_t barrier;
	struct locker lockers[2] = {
		{.name = "thread 1",
		 .first = &a,
		 .second = &b,
		 .first_name = "A",
		 .second_name = "B"},
		{.name = "thread 2",
		 .first = &b,
		 .second = &a,
		 .first_name = "B",
		 .second_name = "A"},
	};

	check(pthread_barrier_init(&barrier, NULL, 2), "pthread_barrier_init");
	for (int i = 0; i < 2; i++) {
		lockers[i].both_hold_one = &barrier;
		check(pthread_create(&lockers[i].thread, NULL, take_both, &lockers[i]),
		      "pthread_create");
	}
	gu_say("deadlock: main thread joins; nothing can wake anyone now\n");
	for (int i = 0; i < 2; i++)
		check(pthread_join(lockers[i].thread, NULL), "pthread_join");
	gu_die("the threads finished: no deadlock");
}

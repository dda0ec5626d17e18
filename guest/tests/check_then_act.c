/* SPDX-License-Identifier: MIT */
/*
 * check_then_act: two sign-up threads register user names in a shared
 * registry. The registry is thread-safe: lookup and insertion each take
 * its mutex. A sign-up first looks the name up and, if nobody has it yet,
 * inserts it.
 *
 * The bug: the lookup and the insertion are two critical sections, not
 * one. Between "nobody has this name" and the insertion, another thread
 * can register the same name, and both sign-ups succeed.
 *
 * Both threads get a batch of five requests, and one name ("carol") is in
 * both batches. Whichever thread comes second finds it taken and rejects
 * its request.
 *
 * The interleaving (one preemption, bug depth 2): the thread that handles
 * "carol" first is preempted in sign_up() after registry_find() returned
 * "not found" and before registry_add() stored the name; the other thread
 * then signs up its batch, "carol" included, before the first resumes
 * and adds "carol" a second time. Preempted anywhere else, or while
 * handling another name, the program passes.
 *
 * Detection: after joining both threads, main checks that no name is in
 * the registry twice; a duplicate prints
 * "check_then_act: carol registered twice (ids 5 and 8)" and aborts.
 *
 * Native failures: 0, 0 and 0 in three sets of 1000 runs (2026-11-30, 2 cores,
 * Debian 12; see README.md).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAPACITY 16

struct user {
	const char *name;
	int id;
};

static struct user registry[CAPACITY];
static int nusers;
static int next_id = 1;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

/* Returns the user's id, or 0 when nobody has that name. */
static int registry_find(const char *name)
{
	int id = 0;

	pthread_mutex_lock(&registry_lock);
	for (int i = 0; i < nusers; i++) {
		if (strcmp(registry[i].name, name) == 0)
			id = registry[i].id;
	}
	pthread_mutex_unlock(&registry_lock);
	return id;
}

static int registry_add(const char *name)
{
	int id;

	pthread_mutex_lock(&registry_lock);
	id = next_id++;
	registry[nusers].name = name;
	registry[nusers].id = id;
	nusers++;
	pthread_mutex_unlock(&registry_lock);
	return id;
}

/* Returns the new user's id, or 0 when the name is taken. */
static int sign_up(const char *name)
{
	if (registry_find(name) != 0)
		return 0;
	return registry_add(name);
}

struct batch {
	const char *names[5];
	int accepted;
};

static void *signup_thread(void *arg)
{
	struct batch *b = arg;

	for (int i = 0; i < 5; i++) {
		if (sign_up(b->names[i]) != 0)
			b->accepted++;
	}
	return NULL;
}

/* Aborts if a name is in the registry twice. */
static void check_unique(void)
{
	for (int i = 0; i < nusers; i++) {
		for (int j = i + 1; j < nusers; j++) {
			if (strcmp(registry[i].name, registry[j].name) != 0)
				continue;
			fprintf(stderr, "check_then_act: %s registered twice (ids %d and %d)\n",
				registry[i].name, registry[i].id, registry[j].id);
			abort();
		}
	}
}

int main(void)
{
	static struct batch web = {{"alice", "bob", "carol", "dave", "erin"}, 0};
	static struct batch app = {{"frank", "grace", "carol", "heidi", "ivan"}, 0};
	pthread_t t1, t2;

	if (pthread_create(&t1, NULL, signup_thread, &web) != 0 ||
	    pthread_create(&t2, NULL, signup_thread, &app) != 0) {
		fputs("check_then_act: pthread_create failed\n", stderr);
		return 2;
	}
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	check_unique();
	printf("check_then_act: %d users registered, %d of 10 sign-ups refused\n", nusers,
	       10 - web.accepted - app.accepted);
	return 0;
}

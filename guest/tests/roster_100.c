/* SPDX-License-Identifier: MIT */
/*
 * roster_100: a hundred client threads join a meeting. Each takes the
 * next badge number under badge_lock, then adds itself to the roster under
 * roster_lock; the meeting's minutes list the roster in order and rely on
 * the badge numbers in it being 1, 2, 3, ... in that order.
 *
 * The bug: a two-stage atomicity violation. Each stage is properly locked,
 * but nothing keeps another client from taking a badge and joining the
 * roster between a client's two stages.
 *
 * The interleaving (one preemption, bug depth 2): any of the hundred
 * clients is preempted after it took badge n and before it added itself,
 * and any other client then takes a badge and joins first. Without
 * preemptions each client joins whole.
 *
 * Detection: after the join, main checks that roster entry i holds badge
 * i + 1 ("roster_100: roster entry 41 has badge 43").
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define CLIENTS 100

static pthread_mutex_t badge_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t roster_lock = PTHREAD_MUTEX_INITIALIZER;
static int next_badge = 1;
static int roster[CLIENTS];
static int joined;

static void *client(void *arg)
{
	int badge;

	(void)arg;
	pthread_mutex_lock(&badge_lock);
	badge = next_badge++;
	pthread_mutex_unlock(&badge_lock);

	pthread_mutex_lock(&roster_lock);
	roster[joined++] = badge;
	pthread_mutex_unlock(&roster_lock);
	return NULL;
}

int main(void)
{
	static pthread_t clients[CLIENTS];

	for (int i = 0; i < CLIENTS; i++) {
		if (pthread_create(&clients[i], NULL, client, NULL) != 0) {
			fputs("roster_100: pthread_create failed\n", stderr);
			return 2;
		}
	}
	for (int i = 0; i < CLIENTS; i++)
		pthread_join(clients[i], NULL);
	for (int i = 0; i < joined; i++) {
		if (roster[i] != i + 1) {
			fprintf(stderr, "roster_100: roster entry %d has badge %d\n", i, roster[i]);
			abort();
		}
	}
	printf("roster_100: %d clients joined in badge order\n", joined);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * aba_stack: two relay threads share a pool of six packet buffers kept on
 * a lock-free free list (a Treiber stack: the head pointer is swapped
 * with compare-and-swap). Each relayed message takes an input buffer and
 * an output buffer, releases the input once it is converted and the
 * output once it is sent. After its messages each relay takes one more
 * buffer pair for its summary: it releases the scratch buffer and keeps
 * the summary buffer, which main prints and releases after the join.
 *
 * The bug: the ABA problem. buf_get() reads the head A and its successor
 * B, then swaps the head from A to B with a CAS, which only checks that
 * the head is still A. If meanwhile A and B were taken and A was released
 * again, the head is A again, the CAS succeeds and installs B as the head
 * although B is in use.
 *
 * The interleaving (one preemption, bug depth 2): one relay (whichever
 * runs first) is preempted in buf_get() after reading the head A and
 * A->next B and before its CAS, in any of its buffer requests; the other
 * relay then runs all its work. Each of its messages takes the top two
 * buffers and releases them in the same order, which swaps them; it
 * relays an even number of messages, so the free list is as before, and
 * its summary then takes A and B, releases A and keeps B. The first relay
 * resumes, its CAS succeeds and makes B, held by the other relay, the
 * head of the free list. Preemptions elsewhere are harmless.
 *
 * Detection: every buffer has an owner (set by buf_get(), cleared by
 * buf_put()); buf_get() aborts when it hands out a buffer that is still
 * owned ("aba_stack: buffer 2 handed to relay 1 while relay 2 holds it")
 * or finds the list empty, and main, after the join, checks that the free
 * list holds each free buffer once and no held one.
 *
 * Native failures: 0, 0 and 0 in three sets of 1000 runs (2026-11-30, 2 cores,
 * Debian 12; see README.md).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NBUF	 6
#define MESSAGES 40 /* per relay; even */

struct buffer {
	struct buffer *next; /* while on the free list */
	int owner;	     /* 0 while free */
	int len;
	char data[32];
};

static struct buffer pool[NBUF];
static struct buffer *free_list;

static struct buffer *buf_get(int relay)
{
	struct buffer *head = __atomic_load_n(&free_list, __ATOMIC_ACQUIRE);
	struct buffer *next;
	int was;

	do {
		if (head == NULL) {
			fprintf(stderr, "aba_stack: relay %d found the pool empty\n", relay);
			abort();
		}
		next = __atomic_load_n(&head->next, __ATOMIC_RELAXED);
	} while (!__atomic_compare_exchange_n(&free_list, &head, next, 0, __ATOMIC_ACQUIRE,
					      __ATOMIC_ACQUIRE));
	was = __atomic_exchange_n(&head->owner, relay, __ATOMIC_RELAXED);
	if (was != 0) {
		fprintf(stderr, "aba_stack: buffer %d handed to relay %d while relay %d holds it\n",
			(int)(head - pool), relay, was);
		abort();
	}
	return head;
}

static void buf_put(struct buffer *b)
{
	struct buffer *head = __atomic_load_n(&free_list, __ATOMIC_RELAXED);

	__atomic_store_n(&b->owner, 0, __ATOMIC_RELAXED);
	do
		__atomic_store_n(&b->next, head, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&free_list, &head, b, 0, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED));
}

static void *relay(void *arg)
{
	int me = *(const int *)arg;
	struct buffer *in, *summary;
	int sent = 0;

	for (int i = 0; i < MESSAGES; i++) {
		struct buffer *out;

		in = buf_get(me);
		out = buf_get(me);
		in->len = snprintf(in->data, sizeof in->data, "msg %d.%d", me, i);
		out->len = snprintf(out->data, sizeof out->data, "<%s>", in->data);
		buf_put(in);
		sent += out->len;
		buf_put(out);
	}
	in = buf_get(me);
	summary = buf_get(me);
	in->len = snprintf(in->data, sizeof in->data, "%d bytes", sent);
	summary->len = snprintf(summary->data, sizeof summary->data, "relay %d: %s", me, in->data);
	buf_put(in);
	return summary;
}

int main(void)
{
	static const int ids[2] = {1, 2};
	pthread_t threads[2];
	struct buffer *summary[2];
	int on_list = 0;

	for (int i = 0; i < NBUF; i++)
		buf_put(&pool[i]);
	for (int i = 0; i < 2; i++) {
		if (pthread_create(&threads[i], NULL, relay, (void *)&ids[i]) != 0) {
			fputs("aba_stack: pthread_create failed\n", stderr);
			return 2;
		}
	}
	for (int i = 0; i < 2; i++) {
		void *ret;

		pthread_join(threads[i], &ret);
		summary[i] = ret;
	}
	for (struct buffer *b = free_list; b != NULL && on_list <= NBUF; b = b->next, on_list++) {
		if (b->owner != 0 || b == summary[0] || b == summary[1]) {
			fprintf(stderr, "aba_stack: buffer %d is on the free list while in use\n",
				(int)(b - pool));
			abort();
		}
	}
	if (on_list != NBUF - 2) {
		fprintf(stderr, "aba_stack: %d buffers on the free list, expected %d\n", on_list,
			NBUF - 2);
		abort();
	}
	printf("aba_stack: %s, %s\n", summary[0]->data, summary[1]->data);
	buf_put(summary[0]);
	buf_put(summary[1]);
	return 0;
}

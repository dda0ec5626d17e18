/* SPDX-License-Identifier: MIT */
/*
 * yield_pool: three encoder threads share four frame buffers kept on a
 * lock-free free list (a Treiber stack: the head pointer is swapped with
 * compare-and-swap). Each job encodes a raw frame on the encoder's own
 * stack, stages the raw frame and its encoding in two pool buffers for
 * the sender, and returns the destination, then the source. Four buffers
 * for three encoders that take two each: an encoder that finds the list
 * empty waits for a buffer with a sched_yield() loop, as pools with a
 * lock-free fast path do.
 *
 * The bug: the ABA problem, reachable only through a third thread.
 * frame_get() reads the head A and its successor B, then swaps the head
 * from A to B with a CAS that only checks the head is still A. One
 * encoder's own job returns its buffers in the order that leaves the list
 * as it found it, so a single other encoder running in the window does no
 * harm: it takes more than that.
 *
 * The interleaving (two preemptions, bug depth 3): encoder 1 is preempted
 * in frame_get() after reading the head A and A->next B and before its
 * CAS; encoder 2 takes A and B for a job and is preempted between
 * returning B and returning A; encoder 3 then takes B; encoder 2 returns
 * A, whose next is now no longer B. Encoder 1 resumes, its CAS succeeds
 * and makes B, which encoder 3 holds, the head of the free list: the next
 * frame_get() hands B out twice.
 *
 * Detection: each buffer has an owner (set by frame_get(), cleared by
 * frame_put()); frame_get() aborts when it hands out a buffer that is
 * still owned ("yield_pool: frame 2 handed to encoder 1 while encoder 3
 * holds it"), and main checks the free list after the join.
 * yield_pool_fixed.c is the same pool with a versioned head: no bug.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FRAMES	 4
#define ENCODERS 3
#define JOBS	 6 /* per encoder */

struct frame {
	struct frame *next; /* while on the free list */
	int owner;	    /* 0 while free */
	int len;
	unsigned char data[48];
};

static struct frame frames[FRAMES];
static struct frame *free_frames;

static struct frame *frame_get(int encoder)
{
	struct frame *head, *next;
	int was;

	for (;;) {
		head = __atomic_load_n(&free_frames, __ATOMIC_ACQUIRE);
		if (head == NULL) { /* all in use: wait for one to come back */
			sched_yield();
			continue;
		}
		next = __atomic_load_n(&head->next, __ATOMIC_RELAXED);
		if (__atomic_compare_exchange_n(&free_frames, &head, next, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			break;
	}
	was = __atomic_exchange_n(&head->owner, encoder, __ATOMIC_RELAXED);
	if (was != 0) {
		fprintf(stderr,
			"yield_pool: frame %d handed to encoder %d while encoder %d holds it\n",
			(int)(head - frames), encoder, was);
		abort();
	}
	return head;
}

static void frame_put(struct frame *f)
{
	struct frame *head = __atomic_load_n(&free_frames, __ATOMIC_RELAXED);

	__atomic_store_n(&f->owner, 0, __ATOMIC_RELAXED);
	do
		__atomic_store_n(&f->next, head, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&free_frames, &head, f, 0, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED));
}

/* Run-length encodes the n bytes at raw into packed (room for 2n); its length. */
static int encode(const unsigned char *raw, int n, unsigned char *packed)
{
	int out = 0;

	for (int i = 0; i < n;) {
		int run = 1;

		while (i + run < n && raw[i + run] == raw[i] && run < 255)
			run++;
		packed[out++] = (unsigned char)run;
		packed[out++] = raw[i];
		i += run;
	}
	return out;
}

/* Each job: a raw frame and its encoding, staged in two pool frames for the sender. */
static void *encoder(void *arg)
{
	int me = *(const int *)arg;
	long sent = 0;

	for (int job = 0; job < JOBS; job++) {
		unsigned char raw[24], packed[48];
		struct frame *src, *dst;
		int n;

		for (int i = 0; i < (int)sizeof raw; i++)
			raw[i] = (unsigned char)((me * 7 + job + i / 6) & 0xff);
		n = encode(raw, (int)sizeof raw, packed);
		src = frame_get(me);
		dst = frame_get(me);
		memcpy(src->data, raw, sizeof raw);
		src->len = (int)sizeof raw;
		memcpy(dst->data, packed, (size_t)n);
		dst->len = n;
		sent += dst->len;
		frame_put(dst);
		frame_put(src);
	}
	return (void *)sent;
}

int main(void)
{
	static const int ids[ENCODERS] = {1, 2, 3};
	pthread_t threads[ENCODERS];
	long sent = 0;
	int on_list = 0;

	for (int i = 0; i < FRAMES; i++)
		frame_put(&frames[i]);
	for (int i = 0; i < ENCODERS; i++) {
		if (pthread_create(&threads[i], NULL, encoder, (void *)&ids[i]) != 0) {
			fputs("yield_pool: pthread_create failed\n", stderr);
			return 2;
		}
	}
	for (int i = 0; i < ENCODERS; i++) {
		void *ret;

		pthread_join(threads[i], &ret);
		sent += (long)ret;
	}
	for (struct frame *f = free_frames; f != NULL && on_list <= FRAMES;
	     f = f->next, on_list++) {
		if (f->owner != 0) {
			fprintf(stderr, "yield_pool: frame %d is on the free list while in use\n",
				(int)(f - frames));
			abort();
		}
	}
	if (on_list != FRAMES) {
		fprintf(stderr, "yield_pool: %d frames on the free list, expected %d\n", on_list,
			FRAMES);
		abort();
	}
	printf("yield_pool: %d jobs, %ld bytes sent\n", ENCODERS * JOBS, sent);
	return 0;
}

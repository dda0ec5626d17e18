/* SPDX-License-Identifier: MIT */
/*
 * yield_pool_fixed: yield_pool.c with its ABA bug fixed, as such pools fix
 * it: the free list's head is a frame number and a version, swapped
 * together in one 64-bit compare-and-swap, and every push and pop makes a
 * new version, so a CAS that read the head before other encoders took and
 * returned frames fails and retries. The rest is the same: three encoders,
 * four frames, two a job, a sched_yield() loop while the list is empty.
 * No bug: a search must never report it (pct and counter modes).
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
	unsigned int next; /* while on the free list: the next frame's number + 1, 0 for none */
	int owner;	   /* 0 while free */
	int len;
	unsigned char data[48];
};

static struct frame frames[FRAMES];
/* the head: the version in the high 32 bits, the first frame's number + 1 in the low */
static unsigned long long free_head;

static unsigned long long head_of(unsigned long long version, unsigned int first)
{
	return version << 32 | first;
}

static struct frame *frame_get(int encoder)
{
	unsigned long long head, next;
	struct frame *f;
	int was;

	for (;;) {
		head = __atomic_load_n(&free_head, __ATOMIC_ACQUIRE);
		if ((unsigned int)head == 0) { /* all in use: wait for one to come back */
			sched_yield();
			continue;
		}
		f = &frames[(unsigned int)head - 1];
		next = head_of((head >> 32) + 1, __atomic_load_n(&f->next, __ATOMIC_RELAXED));
		if (__atomic_compare_exchange_n(&free_head, &head, next, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			break;
	}
	was = __atomic_exchange_n(&f->owner, encoder, __ATOMIC_RELAXED);
	if (was != 0) {
		fprintf(stderr,
			"yield_pool_fixed: frame %d handed to encoder %d while encoder %d holds "
			"it\n",
			(int)(f - frames), encoder, was);
		abort();
	}
	return f;
}

static void frame_put(struct frame *f)
{
	unsigned long long head = __atomic_load_n(&free_head, __ATOMIC_RELAXED);

	__atomic_store_n(&f->owner, 0, __ATOMIC_RELAXED);
	do
		__atomic_store_n(&f->next, (unsigned int)head, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(
		&free_head, &head, head_of((head >> 32) + 1, (unsigned int)(f - frames) + 1), 0,
		__ATOMIC_RELEASE, __ATOMIC_RELAXED));
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
			fputs("yield_pool_fixed: pthread_create failed\n", stderr);
			return 2;
		}
	}
	for (int i = 0; i < ENCODERS; i++) {
		void *ret;

		pthread_join(threads[i], &ret);
		sent += (long)ret;
	}
	for (unsigned int n = (unsigned int)free_head; n != 0 && on_list <= FRAMES;
	     n = frames[n - 1].next, on_list++) {
		if (frames[n - 1].owner != 0) {
			fprintf(stderr,
				"yield_pool_fixed: frame %u is on the free list while in use\n",
				n - 1);
			abort();
		}
	}
	if (on_list != FRAMES) {
		fprintf(stderr, "yield_pool_fixed: %d frames on the free list, expected %d\n",
			on_list, FRAMES);
		abort();
	}
	printf("yield_pool_fixed: %d jobs, %ld bytes sent\n", ENCODERS * JOBS, sent);
	return 0;
}

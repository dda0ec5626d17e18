/* SPDX-License-Identifier: MIT */
/*
 * /bin/imgstat [THREADS]: sharpens a small 8-bit grayscale image with
 * worker threads (each takes rows off a shared cursor under a lock), keeps
 * per-row statistics in packed records of 8-, 16-, 32- and 64-bit fields,
 * checks everything against the same work done by one thread, and prints
 * a checksum. A correct program: it fails (exit 1) only if a result
 * differs. Its memory is read and written at every width, signed and
 * unsigned, which is what plain pct mode must get exactly right
 * (linux/patches/0016 emulates these loads and stores).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH  48
#define HEIGHT 24

struct row_stat {
	uint8_t min, max; /* brightest and darkest output pixel */
	int8_t bias;	  /* mean change, clamped */
	uint16_t changed; /* pixels that moved */
	int16_t net;	  /* sum of changes */
	uint32_t sum;	  /* sum of output pixels */
	int64_t energy;	  /* sum of squared changes; -1: row not done */
	const char *who;  /* which worker did it */
};

struct image {
	uint8_t in[HEIGHT][WIDTH];
	int8_t kernel[3];
	uint8_t out[HEIGHT][WIDTH];
	int16_t delta[HEIGHT][WIDTH];
	struct row_stat stat[HEIGHT];
};

static struct image shared, expect;
static pthread_mutex_t cursor_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned next_row;

static uint8_t clamp_pixel(int v)
{
	return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v;
}

static void sharpen_row(struct image *img, unsigned y, const char *who)
{
	struct row_stat *st = &img->stat[y];

	st->min = 255;
	st->max = 0;
	st->changed = 0;
	st->net = 0;
	st->sum = 0;
	st->energy = 0;
	for (unsigned x = 0; x < WIDTH; x++) {
		int left = img->in[y][x ? x - 1 : x], right = img->in[y][x + 1 < WIDTH ? x + 1 : x];
		int v = img->kernel[0] * left + img->kernel[1] * img->in[y][x] +
			img->kernel[2] * right;
		uint8_t px = clamp_pixel(v);

		img->out[y][x] = px;
		img->delta[y][x] = (int16_t)(px - img->in[y][x]);
		if (px < st->min)
			st->min = px;
		if (px > st->max)
			st->max = px;
		if (img->delta[y][x]) {
			st->changed++;
			st->net = (int16_t)(st->net + img->delta[y][x]);
			st->energy += (int64_t)img->delta[y][x] * img->delta[y][x];
		}
		st->sum += px;
	}
	int mean = st->net / (int)WIDTH;
	st->bias = (int8_t)(mean < -128 ? -128 : mean > 127 ? 127 : mean);
	st->who = who;
}

static void *worker(void *arg)
{
	const char *who = arg;

	for (;;) {
		pthread_mutex_lock(&cursor_lock);
		unsigned y = next_row < HEIGHT ? next_row++ : HEIGHT;
		pthread_mutex_unlock(&cursor_lock);
		if (y == HEIGHT)
			return NULL;
		sharpen_row(&shared, y, who);
	}
}

static void make_image(struct image *img)
{
	uint32_t s = 12345;

	for (unsigned y = 0; y < HEIGHT; y++)
		for (unsigned x = 0; x < WIDTH; x++) {
			s = s * 1103515245u + 12345u;
			img->in[y][x] = (uint8_t)(s >> 16);
		}
	img->kernel[0] = -1;
	img->kernel[1] = 3;
	img->kernel[2] = -1;
	for (unsigned y = 0; y < HEIGHT; y++)
		img->stat[y].energy = -1;
}

static int same_results(const struct image *a, const struct image *b)
{
	if (memcmp(a->out, b->out, sizeof(a->out)) || memcmp(a->delta, b->delta, sizeof(a->delta)))
		return 0;
	for (unsigned y = 0; y < HEIGHT; y++) {
		const struct row_stat *p = &a->stat[y], *q = &b->stat[y];

		if (p->min != q->min || p->max != q->max || p->bias != q->bias ||
		    p->changed != q->changed || p->net != q->net || p->sum != q->sum ||
		    p->energy != q->energy || !p->who) {
			fprintf(stderr, "imgstat: row %u differs\n", y);
			return 0;
		}
	}
	return 1;
}

int main(int argc, char **argv)
{
	static const char *names[] = {"w0", "w1", "w2", "w3"};
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t tid[4];
	uint64_t check = 0;

	if (threads < 1 || threads > 4) {
		fprintf(stderr, "usage: imgstat [THREADS 1-4]\n");
		return 2;
	}
	make_image(&shared);
	make_image(&expect);
	for (unsigned y = 0; y < HEIGHT; y++)
		sharpen_row(&expect, y, "main");
	for (int i = 0; i < threads; i++)
		if (pthread_create(&tid[i], NULL, worker, (void *)names[i])) {
			perror("imgstat: pthread_create");
			return 2;
		}
	for (int i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	if (!same_results(&shared, &expect)) {
		fprintf(stderr, "imgstat: the threads' image differs from one thread's\n");
		return 1;
	}
	for (unsigned y = 0; y < HEIGHT; y++)
		check = check * 31 + (uint64_t)shared.stat[y].energy + shared.stat[y].sum +
			(uint64_t)(int64_t)shared.stat[y].bias;
	printf("imgstat: %d rows, checksum %016llx\n", HEIGHT, (unsigned long long)check);
	return 0;
}

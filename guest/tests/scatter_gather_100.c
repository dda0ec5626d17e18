/* SPDX-License-Identifier: MIT */
/*
 * scatter_gather_100: a two-stage pipeline of 100 threads answering
 * QUERIES queries. Each query is scattered over two shards: stage 1 is one
 * thread a shard (60), each computing its shard's partial result. The
 * shard that finishes last hands the query to stage 2 through a queue,
 * where MERGERS merger threads (40) gather the two partial results into
 * the answer. When stage 1 is done, main closes the queue and the idle
 * mergers leave.
 *
 * The bug: the hand-off counter between the stages, a query's
 * shards_left, is decremented by its two shards with a plain
 * `--shards_left` (a load and a store), not atomically and not under a
 * lock. When both shards load 2 before either stores, both store 1, and
 * neither hands the query on: it never reaches stage 2.
 *
 * The interleaving (one preemption, bug depth 2): a shard is preempted
 * between its load and its store of shards_left, and the other shard of
 * the same query (one particular thread of the hundred) runs its
 * decrement before the first one resumes. Without preemptions each
 * decrement is whole, and the second shard of every query sees 0.
 *
 * Detection: after the pipeline has drained, main checks every query's
 * answer ("scatter_gather_100: query 17 never reached stage 2").
 *
 * Native failures: see README.md.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define QUERIES	     30
#define SHARDS	     2 /* per query */
#define SHARDERS     (QUERIES * SHARDS)
#define MERGERS	     40
#define SHARD_VALUES 2000 /* the values one shard sums */

struct query {
	volatile int shards_left;
	volatile long partial[SHARDS]; /* stored before the shard counts down */
	long answer;
	volatile int answered;
};

static struct query queries[QUERIES];

/* Stage 1 to stage 2: the queries whose shards are all done. */
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_ready = PTHREAD_COND_INITIALIZER;
static struct query *queue[QUERIES]; /* queue_lock */
static int queue_head, queue_tail;   /* queue_lock */
static int queue_closed;	     /* queue_lock */

static void queue_put(struct query *q)
{
	pthread_mutex_lock(&queue_lock);
	queue[queue_tail++] = q;
	pthread_cond_signal(&queue_ready);
	pthread_mutex_unlock(&queue_lock);
}

/* The next ready query, or NULL once the queue is closed and empty. */
static struct query *queue_get(void)
{
	struct query *q = NULL;

	pthread_mutex_lock(&queue_lock);
	while (queue_head == queue_tail && !queue_closed)
		pthread_cond_wait(&queue_ready, &queue_lock);
	if (queue_head < queue_tail)
		q = queue[queue_head++];
	pthread_mutex_unlock(&queue_lock);
	return q;
}

static void queue_close(void)
{
	pthread_mutex_lock(&queue_lock);
	queue_closed = 1;
	pthread_cond_broadcast(&queue_ready);
	pthread_mutex_unlock(&queue_lock);
}

/* The partial result of shard s of query q: a sum of its values. */
static long shard_sum(int q, int s)
{
	long sum = 0;

	for (int i = 0; i < SHARD_VALUES; i++)
		sum += (long)(q + 1) * (s * SHARD_VALUES + i) % 1009;
	return sum;
}

static void *sharder(void *arg)
{
	int id = *(const int *)arg, q = id / SHARDS, s = id % SHARDS;
	struct query *query = &queries[q];

	query->partial[s] = shard_sum(q, s);
	if (--query->shards_left == 0) /* the last shard hands the query on */
		queue_put(query);
	return NULL;
}

static void *merger(void *arg)
{
	struct query *q;

	(void)arg;
	while ((q = queue_get()) != NULL) {
		long answer = 0;

		for (int s = 0; s < SHARDS; s++)
			answer += q->partial[s];
		q->answer = answer;
		q->answered = 1;
	}
	return NULL;
}

int main(void)
{
	static int ids[SHARDERS];
	static pthread_t sharders[SHARDERS], mergers[MERGERS];

	for (int q = 0; q < QUERIES; q++)
		queries[q].shards_left = SHARDS;
	for (int i = 0; i < MERGERS; i++) {
		if (pthread_create(&mergers[i], NULL, merger, NULL) != 0) {
			fputs("scatter_gather_100: pthread_create failed\n", stderr);
			return 2;
		}
	}
	for (int i = 0; i < SHARDERS; i++) {
		ids[i] = i;
		if (pthread_create(&sharders[i], NULL, sharder, &ids[i]) != 0) {
			fputs("scatter_gather_100: pthread_create failed\n", stderr);
			return 2;
		}
	}
	for (int i = 0; i < SHARDERS; i++)
		pthread_join(sharders[i], NULL);
	queue_close();
	for (int i = 0; i < MERGERS; i++)
		pthread_join(mergers[i], NULL);
	for (int q = 0; q < QUERIES; q++) {
		long expected = 0;

		if (!queries[q].answered) {
			fprintf(stderr, "scatter_gather_100: query %d never reached stage 2\n", q);
			abort();
		}
		for (int s = 0; s < SHARDS; s++)
			expected += shard_sum(q, s);
		if (queries[q].answer != expected) {
			fprintf(stderr, "scatter_gather_100: query %d answered %ld, expected %ld\n",
				q, queries[q].answer, expected);
			abort();
		}
	}
	printf("scatter_gather_100: %d queries answered by %d threads\n", QUERIES,
	       SHARDERS + MERGERS);
	return 0;
}

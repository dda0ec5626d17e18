/* SPDX-License-Identifier: MIT */
/*
 * pool_shutdown: a worker pool that starts, works and shuts down the way
 * thread pools in servers and benchmarks do. The main thread starts
 * sixteen workers and names each one ("sum-3", pthread_setname_np on
 * another thread writes /proc/self/task/TID/comm), the workers sum their
 * share of a table, read their own CPU time from /proc/thread-self/stat
 * as a benchmark would, and all leave at once when the main thread opens
 * the gate. It does that three times, then forks a child that runs one
 * more pool and exits while its workers are still finishing (exit() ends
 * them all together), as a test script's second process would.
 *
 * No bug: it must pass under every schedule. Threads that exit together
 * make the kernel flush their /proc entries at once: a task that finds
 * another's entry half released waits for it in a kernel loop
 * (shrink_dcache_parent), which on real hardware the timer tick ends.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORKERS 16
#define ROUNDS	3
#define CELLS	4096

static unsigned int table[CELLS];

struct pool {
	pthread_t threads[WORKERS];
	unsigned long long sums[WORKERS];
	pthread_mutex_t lock;
	pthread_cond_t gate_opened;
	int gate_open;
};

struct worker_arg {
	struct pool *pool;
	int index;
};

static struct worker_arg args[WORKERS];

/* The worker's own CPU time in clock ticks (utime + stime), or -1. */
static long own_cpu_ticks(void)
{
	char line[512];
	long utime, stime;
	ssize_t n;
	char *end;
	int fd = open("/proc/thread-self/stat", O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	line[n] = '\0';
	end = strrchr(line, ')');
	if (!end || sscanf(end + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &utime,
			   &stime) != 2)
		return -1;
	return utime + stime;
}

static void *worker(void *arg)
{
	struct worker_arg *me = arg;
	struct pool *pool = me->pool;
	unsigned long long sum = 0;

	for (int i = me->index; i < CELLS; i += WORKERS)
		sum += table[i];
	if (own_cpu_ticks() < 0) {
		perror("pool_shutdown: /proc/thread-self/stat");
		exit(2);
	}
	pool->sums[me->index] = sum;
	pthread_mutex_lock(&pool->lock);
	while (!pool->gate_open)
		pthread_cond_wait(&pool->gate_opened, &pool->lock);
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

static void pool_start(struct pool *pool)
{
	char name[16];

	memset(pool, 0, sizeof(*pool));
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->gate_opened, NULL);
	for (int i = 0; i < WORKERS; i++) {
		args[i] = (struct worker_arg){pool, i};
		if (pthread_create(&pool->threads[i], NULL, worker, &args[i])) {
			fprintf(stderr, "pool_shutdown: cannot start worker %d\n", i);
			exit(2);
		}
		snprintf(name, sizeof(name), "sum-%d", i);
		if (pthread_setname_np(pool->threads[i], name)) {
			fprintf(stderr, "pool_shutdown: cannot name worker %d\n", i);
			exit(2);
		}
	}
}

static void pool_open_gate(struct pool *pool)
{
	pthread_mutex_lock(&pool->lock);
	pool->gate_open = 1;
	pthread_cond_broadcast(&pool->gate_opened);
	pthread_mutex_unlock(&pool->lock);
}

static unsigned long long pool_join(struct pool *pool)
{
	unsigned long long total = 0;

	for (int i = 0; i < WORKERS; i++) {
		pthread_join(pool->threads[i], NULL);
		total += pool->sums[i];
	}
	return total;
}

/* The child's pool: the process exits while its workers are leaving. */
static void child_pool(void)
{
	static struct pool pool;

	pool_start(&pool);
	pool_open_gate(&pool);
	exit(0);
}

int main(void)
{
	static struct pool pool;
	unsigned long long expected = 0;
	int status;
	pid_t child;

	for (int i = 0; i < CELLS; i++) {
		table[i] = (unsigned int)i * 2654435761u >> 20;
		expected += table[i];
	}
	for (int round = 0; round < ROUNDS; round++) {
		unsigned long long total;

		pool_start(&pool);
		pool_open_gate(&pool);
		total = pool_join(&pool);
		if (total != expected) {
			fprintf(stderr, "pool_shutdown: round %d summed %llu, expected %llu\n",
				round, total, expected);
			return 1;
		}
	}
	child = fork();
	if (child < 0) {
		perror("pool_shutdown: fork");
		return 2;
	}
	if (child == 0)
		child_pool();
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "pool_shutdown: the child pool ended with status %#x\n", status);
		return 1;
	}
	printf("pool_shutdown: %d rounds of %d workers, total %llu\n", ROUNDS, WORKERS, expected);
	return 0;
}

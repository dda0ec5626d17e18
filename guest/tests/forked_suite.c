/* SPDX-License-Identifier: MIT */
/*
 * forked_suite: a test program with its own runner, as libuv's, Check's and
 * many C projects' suites are. With no argument it runs each of its tests
 * in a child process (fork, then exec of itself with the test's name, so
 * that a crash takes down one test and not the suite) and prints TAP; with
 * a test's name it runs that test in this process.
 *
 * Both tests drain a queue of jobs with two workers. "queue" checks that
 * every job ran exactly once; "stats" checks the number of jobs done that
 * the workers count.
 *
 * The bug (in "stats"): a worker takes a job under queue_lock, runs it,
 * and counts it in jobs_done after unlocking: a plain read-modify-write
 * that loses a count when the other worker's increment lands between its
 * load and its store.
 *
 * The interleaving (one preemption, bug depth 2): a worker is preempted
 * between its load and its store of jobs_done++, in any of its jobs, and
 * the other worker takes and counts at least one job before it runs again.
 *
 * Detection: "stats" prints "forked_suite: stats: 47 of 48 jobs counted"
 * and aborts; the runner prints "not ok 2 - stats" and exits with 1.
 *
 * Native failures: 2, 0 and 0 in three sets of 1000 runs (2026-12-03, 2
 * cores, Debian 12; see README.md).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define JOBS 48

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static int next_job;	    /* queue_lock */
static int runs_of[JOBS];   /* each job's runs: its worker's alone */
static long checksum[JOBS]; /* each job's result */
static long jobs_done;	    /* the bug: no lock */

static int take_job(void)
{
	int job = -1;

	pthread_mutex_lock(&queue_lock);
	if (next_job < JOBS)
		job = next_job++;
	pthread_mutex_unlock(&queue_lock);
	return job;
}

static void *worker(void *arg)
{
	long seed = (long)(intptr_t)arg;
	int job;

	while ((job = take_job()) >= 0) {
		runs_of[job]++;
		checksum[job] = (job + 1) * 7919L + seed;
		jobs_done++;
	}
	return NULL;
}

static void run_workers(void)
{
	pthread_t threads[2];

	for (long i = 0; i < 2; i++)
		if (pthread_create(&threads[i], NULL, worker, (void *)(intptr_t)(i + 1)) != 0) {
			fprintf(stderr, "forked_suite: pthread_create failed\n");
			exit(2);
		}
	for (int i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
}

static int test_queue(void)
{
	run_workers();
	for (int job = 0; job < JOBS; job++)
		if (runs_of[job] != 1 || checksum[job] == 0) {
			fprintf(stderr, "forked_suite: queue: job %d ran %d times\n", job,
				runs_of[job]);
			abort();
		}
	return 0;
}

static int test_stats(void)
{
	run_workers();
	if (jobs_done != JOBS) {
		fprintf(stderr, "forked_suite: stats: %ld of %d jobs counted\n", jobs_done, JOBS);
		abort();
	}
	return 0;
}

static const struct test {
	const char *name;
	int (*run)(void);
} tests[] = {{"queue", test_queue}, {"stats", test_stats}};
#define TESTS (sizeof(tests) / sizeof(tests[0]))

/* The test in a child process of its own: 0 if it passed. */
static int run_in_child(const char *self, const struct test *t)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("forked_suite: fork");
		return -1;
	}
	if (pid == 0) {
		execl(self, self, t->name, (char *)NULL);
		perror(self);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("forked_suite: waitpid");
		return -1;
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	int failed = 0;

	if (argc == 2) {
		for (size_t i = 0; i < TESTS; i++)
			if (strcmp(argv[1], tests[i].name) == 0)
				return tests[i].run();
		fprintf(stderr, "forked_suite: no test named %s\n", argv[1]);
		return 2;
	}
	printf("1..%zu\n", TESTS);
	fflush(stdout);
	for (size_t i = 0; i < TESTS; i++) {
		int ok = run_in_child(argv[0], &tests[i]) == 0;

		printf("%s %zu - %s\n", ok ? "ok" : "not ok", i + 1, tests[i].name);
		fflush(stdout);
		failed += !ok;
	}
	return failed ? 1 : 0;
}

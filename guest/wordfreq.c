/* SPDX-License-Identifier: MIT */
/*
 * wordfreq: a correct multithreaded program that forks, the shape of many
 * test drivers: two worker threads count words of a text into one table
 * under a mutex, main joins them, then forks a child that checks the table
 * (the parent's memory, copied) and reports through its exit status.
 *
 * No bug: it must pass under every schedule. In pct mode the guest kernel
 * traps the pages the threads share (linux/patches/0016); the child's copy
 * of those pages must work as plain memory (its first access to each opens
 * it), and the parent's traps must go on after the fork.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORDS 64

static const char *const text[] = {"the", "cat", "sat", "on", "the", "mat", "and",
				   "the", "dog", "sat", "on", "the", "cat"};
#define TEXT_WORDS (sizeof(text) / sizeof(text[0]))

static struct {
	pthread_mutex_t lock;
	char word[WORDS][16];
	int count[WORDS];
	int used;
} table = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void add_word(const char *w)
{
	int i;

	pthread_mutex_lock(&table.lock);
	for (i = 0; i < table.used && strcmp(table.word[i], w); i++)
		;
	if (i == table.used && table.used < WORDS)
		snprintf(table.word[table.used++], sizeof(table.word[0]), "%s", w);
	if (i < WORDS)
		table.count[i]++;
	pthread_mutex_unlock(&table.lock);
}

/* Each worker counts every other word, from its own start. */
static void *worker(void *arg)
{
	for (size_t i = *(const size_t *)arg; i < TEXT_WORDS; i += 2)
		add_word(text[i]);
	return NULL;
}

static int count_of(const char *w)
{
	for (int i = 0; i < table.used; i++)
		if (!strcmp(table.word[i], w))
			return table.count[i];
	return 0;
}

/* The child: the table it inherited must hold every word of the text. */
static int check_in_child(void)
{
	int total = 0;

	for (int i = 0; i < table.used; i++)
		total += table.count[i];
	return total == (int)TEXT_WORDS && count_of("the") == 4 && count_of("sat") == 2 ? 0 : 1;
}

int main(void)
{
	static const size_t starts[2] = {0, 1};
	pthread_t threads[2];
	int status;
	pid_t child;

	for (int i = 0; i < 2; i++)
		if (pthread_create(&threads[i], NULL, worker, (void *)&starts[i])) {
			fprintf(stderr, "wordfreq: cannot start a thread\n");
			return 2;
		}
	for (int i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
	child = fork();
	if (child < 0) {
		perror("wordfreq: fork");
		return 2;
	}
	if (child == 0)
		_exit(check_in_child());
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "wordfreq: the child found a wrong table\n");
		return 1;
	}
	add_word("end"); /* the parent's pages after the fork */
	printf("wordfreq: %d words, %d distinct, \"the\" %d times\n", (int)TEXT_WORDS + 1,
	       table.used, count_of("the"));
	return 0;
}

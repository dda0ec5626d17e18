/* SPDX-License-Identifier: MIT */
/*
 * ledger: the bundled racy example, a lost update across a system call.
 *
 * A ledger keeps a balance that two threads update with deposit(): read the
 * balance, journal the transaction (a write() to stdout: a system call),
 * store balance + amount. The read-modify-write is not atomic and the
 * journal write in the middle of it is a point where the thread can lose
 * the CPU.
 *
 * The teller (main thread) deposits 100 every 20 ms, five times (t = 0, 20,
 * 40, 60, 80 ms); the auditor thread sleeps until t = 50 ms and deposits 7
 * of interest. Each deposit takes microseconds, so the two never overlap
 * and the final balance is 507: on an ordinary machine, and in Rewind's
 * unperturbed schedule, the test always passes.
 *
 * The bug: if the teller is held up for more than 10 ms inside its deposit
 * at t = 40 ms (after reading the balance, before storing it), the
 * auditor's deposit lands in between and is overwritten; the same if the
 * auditor is held up past t = 60 ms inside its own deposit. The balance
 * check then fails and the test aborts (SIGABRT). rewind-harness finds it
 * with a "stall" injection at the exit of the right journal write.
 *
 * Plain C and pthreads: it also builds and runs natively (bench/ledger
 * counts native failures).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TELLER_DEPOSITS	 5
#define TELLER_AMOUNT	 100
#define TELLER_PERIOD_MS 20
#define AUDITOR_AT_MS	 50
#define INTEREST	 7

static volatile long balance; /* shared, unprotected: the bug under test */
static struct timespec start;

static void journal(const char *who, long before, long amount)
{
	char line[96];
	int len = snprintf(line, sizeof(line), "%s: %ld + %ld\n", who, before, amount);

	if (write(STDOUT_FILENO, line, (size_t)len) != len)
		abort();
}

static void deposit(const char *who, long amount)
{
	long before = balance; /* read */

	journal(who, before, amount); /* a system call in the middle */
	balance = before + amount;    /* write back: may overwrite another deposit */
}

/* Sleeps until ms after the start (absolute, so work done in between does not add up). */
static void sleep_until_ms(long ms)
{
	struct timespec at = start;
	int rc;

	at.tv_sec += ms / 1000;
	at.tv_nsec += (ms % 1000) * 1000000L;
	if (at.tv_nsec >= 1000000000L) {
		at.tv_sec++;
		at.tv_nsec -= 1000000000L;
	}
	while ((rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL)) == EINTR)
		;
	if (rc) {
		fprintf(stderr, "ledger: clock_nanosleep: %s\n", strerror(rc));
		exit(2);
	}
}

static void *auditor(void *arg)
{
	(void)arg;
	sleep_until_ms(AUDITOR_AT_MS);
	deposit("auditor", INTEREST);
	return NULL;
}

int main(void)
{
	const long want = TELLER_DEPOSITS * TELLER_AMOUNT + INTEREST;
	pthread_t thread;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &start);
	rc = pthread_create(&thread, NULL, auditor, NULL);
	if (rc) {
		fprintf(stderr, "ledger: pthread_create: %s\n", strerror(rc));
		return 2;
	}
	for (int i = 0; i < TELLER_DEPOSITS; i++) {
		sleep_until_ms((long)i * TELLER_PERIOD_MS);
		deposit("teller", TELLER_AMOUNT);
	}
	pthread_join(thread, NULL);
	if (balance != want) {
		fprintf(stderr, "ledger: lost update: balance %ld, expected %ld\n", balance, want);
		abort();
	}
	printf("ledger: balance %ld\n", balance);
	return 0;
}

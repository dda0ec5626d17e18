/* SPDX-License-Identifier: MIT */
/*
 * wrong_lock: an account service keeps an audit trail (an array and its
 * length) that is meant to be protected by audit_lock. The session thread
 * logs logins under audit_lock. The payment thread books payments under
 * account_lock and, since it already holds a lock there, appends its
 * audit record under account_lock only.
 *
 * The bug: the two threads protect the same data with different mutexes,
 * so they do not exclude each other. An append reads the length, writes
 * the entry and stores length + 1; two appends that overlap write the
 * same slot and one record is lost.
 *
 * The interleaving (one preemption, bug depth 2): one thread is preempted
 * in audit_append() after it read `audit_len` and before it stored
 * `audit_len + 1`, in any of its appends; the other thread then appends
 * at least one record (it does not block: its lock is free) before the
 * first resumes and overwrites that slot and the length.
 *
 * Detection: after the join main checks that the trail holds every
 * payment and login record exactly once; otherwise it prints
 * "wrong_lock: audit trail has 79 records, expected 80" and aborts.
 *
 * Native failures: 0, 0 and 0 in three sets of 1000 runs (2026-11-30, 2 cores,
 * Debian 12; see README.md).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define PAYMENTS 40
#define LOGINS	 40
#define TRAIL_SZ (PAYMENTS + LOGINS)

static pthread_mutex_t account_lock = PTHREAD_MUTEX_INITIALIZER;
static long balance; /* account_lock */

static pthread_mutex_t audit_lock = PTHREAD_MUTEX_INITIALIZER;
static int audit_trail[TRAIL_SZ]; /* audit_lock */
static int audit_len;		  /* audit_lock */

/* The caller must hold audit_lock. */
static void audit_append(int record)
{
	int n = audit_len;

	if (n < TRAIL_SZ)
		audit_trail[n] = record;
	audit_len = n + 1;
}

static void *payment_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < PAYMENTS; i++) {
		pthread_mutex_lock(&account_lock);
		balance += 10 + i;
		audit_append(1000 + i); /* wrong lock: account_lock, not audit_lock */
		pthread_mutex_unlock(&account_lock);
	}
	return NULL;
}

static void *session_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < LOGINS; i++) {
		pthread_mutex_lock(&audit_lock);
		audit_append(2000 + i);
		pthread_mutex_unlock(&audit_lock);
	}
	return NULL;
}

static void check_once(const char *what, int n, int times)
{
	if (times != 1) {
		fprintf(stderr, "wrong_lock: %s %d is in the audit trail %d times\n", what, n,
			times);
		abort();
	}
}

int main(void)
{
	int paid[PAYMENTS] = {0}, logged_in[LOGINS] = {0};
	pthread_t t1, t2;

	if (pthread_create(&t1, NULL, payment_thread, NULL) != 0 ||
	    pthread_create(&t2, NULL, session_thread, NULL) != 0) {
		fputs("wrong_lock: pthread_create failed\n", stderr);
		return 2;
	}
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	if (audit_len != TRAIL_SZ) {
		fprintf(stderr, "wrong_lock: audit trail has %d records, expected %d\n", audit_len,
			TRAIL_SZ);
		abort();
	}
	for (int i = 0; i < TRAIL_SZ; i++) {
		int record = audit_trail[i];

		if (record >= 1000 && record < 1000 + PAYMENTS)
			paid[record - 1000]++;
		else if (record >= 2000 && record < 2000 + LOGINS)
			logged_in[record - 2000]++;
	}
	for (int i = 0; i < PAYMENTS; i++)
		check_once("payment", i, paid[i]);
	for (int i = 0; i < LOGINS; i++)
		check_once("login", i, logged_in[i]);
	printf("wrong_lock: %d payments (balance %ld), %d logins audited\n", PAYMENTS, balance,
	       LOGINS);
	return 0;
}

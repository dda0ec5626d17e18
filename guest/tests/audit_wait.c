/* SPDX-License-Identifier: MIT */
/*
 * audit_wait: a teller thread deposits 50 into a balance of 100 while the
 * main thread, the auditor, adds 10 of interest and then gives the teller
 * its go-ahead. The teller reads the balance, waits for the go-ahead in a
 * busy-wait on a flag (no lock, no system call), and stores the balance it
 * read plus its deposit.
 *
 * The bug: the teller read the balance before it waited. When the auditor
 * had not added the interest yet, the teller's store overwrites it: a lost
 * update across a spin-wait. Only a run where the auditor adds its
 * interest before the teller reads the balance passes.
 *
 * On Rewind's one vCPU, the plain build in steps mode: the new teller
 * runs first, reads the balance and spins. Its spin is pure (the same
 * instruction and registers again, no write between), so the VMM yields
 * it at its fixed point (vmm/spin_rescue.c); the auditor then runs, and
 * the run fails with no injection at all. `rewind explain` shows the
 * yield in its timeline.
 *
 * Detection: main checks the balance after the join; when the interest is
 * lost it prints "audit_wait: balance is 150, expected 160" and aborts.
 *
 * Natively it fails in most runs too: the new teller often reads the
 * balance before main adds the interest (284 of 300 runs failed, gcc -O2
 * and glibc, 2 cores, loaded).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define LOAD(p)	    __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

static volatile long balance = 100;
static int audited; /* the auditor's go-ahead */

static void *teller(void *arg)
{
	long seen = balance;

	(void)arg;
	while (!LOAD(&audited)) /* waits for the auditor's go-ahead */
		;
	balance = seen + 50; /* the deposit, on the balance read before the wait */
	return NULL;
}

int main(void)
{
	pthread_t thread;

	if (pthread_create(&thread, NULL, teller, NULL) != 0) {
		fputs("audit_wait: pthread_create failed\n", stderr);
		return 2;
	}
	balance += 10; /* the interest */
	STORE(&audited, 1);
	pthread_join(thread, NULL);
	if (balance != 160) {
		fprintf(stderr, "audit_wait: balance is %ld, expected 160\n", balance);
		abort();
	}
	puts("audit_wait: balance 160");
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * depth3_transfer: two tellers move money between the two accounts of
 * their own branch (nothing shared there). Every transfer goes through the
 * bank's clearing account: the amount is paid into it from the source
 * account, then paid out of it into the target account. The tellers update
 * the clearing balance with an unlocked read-modify-write, and a pay-out
 * refuses to overdraw it.
 *
 * The bug: an update of the clearing balance can overwrite the other
 * teller's update with a value computed from a stale read. But every
 * transfer pays in and then pays out the same amount: when the other
 * teller's updates in between add up to zero, the stale value is still
 * right and nothing is lost.
 *
 * Why one preemption is not enough: if teller A is preempted between its
 * load and its store of `clearing`, teller B runs all its remaining
 * transfers before A resumes (one CPU, nothing in B's loop blocks), and
 * their net effect on `clearing` is zero: A's stale value is exact.
 * Preempting A anywhere else loses nothing either, whichever teller runs
 * first.
 *
 * The interleaving (two preemptions, bug depth 3): (1) teller A is
 * preempted in pay_in() or pay_out() between its load and its store of
 * `clearing`; (2) teller B is preempted with one of its transfers half
 * done: after pay_in() stored its amount and before pay_out() loads the
 * balance. A resumes, stores its stale value, which misses B's amount,
 * and finishes its transfers; when B resumes, its pay-out finds the
 * clearing account short.
 *
 * Detection: pay_out() checks the balance before paying out (a real bank
 * would bounce the transfer and leave the books wrong); when it is short
 * it prints "depth3_transfer: west: clearing account holds 0, cannot pay
 * out 3" and aborts. After the join main also checks that the
 * clearing account is empty and each branch kept its money.
 *
 * Native failures: 0, 0 and 0 in three sets of 1000 runs (2026-11-30, 2 cores,
 * Debian 12; see README.md).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define TRANSFERS 25
#define OPENING	  1000

struct branch {
	const char *name;
	long amount; /* per transfer */
	volatile long from, to;
};

static volatile long clearing; /* money in transit, shared by the tellers */

static void pay_in(long amount)
{
	clearing = clearing + amount;
}

static void pay_out(const struct branch *b, long amount)
{
	long balance = clearing;

	if (balance < amount) {
		fprintf(stderr,
			"depth3_transfer: %s: clearing account holds %ld, cannot pay out %ld\n",
			b->name, balance, amount);
		abort();
	}
	clearing = balance - amount;
}

static void *teller(void *arg)
{
	struct branch *b = arg;

	for (int i = 0; i < TRANSFERS; i++) {
		b->from -= b->amount;
		pay_in(b->amount);
		pay_out(b, b->amount);
		b->to += b->amount;
	}
	return NULL;
}

int main(void)
{
	static struct branch east = {"east", 5, OPENING, OPENING};
	static struct branch west = {"west", 3, OPENING, OPENING};
	pthread_t t1, t2;

	if (pthread_create(&t1, NULL, teller, &east) != 0 ||
	    pthread_create(&t2, NULL, teller, &west) != 0) {
		fputs("depth3_transfer: pthread_create failed\n", stderr);
		return 2;
	}
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	if (clearing != 0 || east.from + east.to != 2 * OPENING ||
	    west.from + west.to != 2 * OPENING) {
		fprintf(stderr,
			"depth3_transfer: %ld left in the clearing account after all transfers\n",
			clearing);
		abort();
	}
	printf("depth3_transfer: east %ld/%ld, west %ld/%ld, clearing account empty\n", east.from,
	       east.to, west.from, west.to);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * A single-threaded computation: a sieve of Eratosthenes over a few MB,
 * with no system call between its start and its result. Nothing in it
 * waits for anything, and it passes on every machine. A test like this
 * (a benchmark, a long self-check) computes for a while without giving the
 * CPU away; no other task could run meanwhile or change what it reads, so
 * no run of it may be called stuck, however long it computes.
 */
#include <stdio.h>
#include <string.h>

#define LIMIT  (4u << 20) /* numbers sieved: 4 MiB of flags */
#define ROUNDS 16

static unsigned char composite[LIMIT];

static unsigned sieve(void)
{
	unsigned primes = 0;

	memset(composite, 0, sizeof(composite));
	for (unsigned n = 2; n < LIMIT; n++) {
		if (composite[n])
			continue;
		primes++;
		for (unsigned long m = (unsigned long)n * n; m < LIMIT; m += n)
			composite[m] = 1;
	}
	return primes;
}

int main(void)
{
	unsigned primes = 0;

	for (int round = 0; round < ROUNDS; round++)
		primes = sieve();
	printf("lone_sieve: %u primes below %u\n", primes, LIMIT);
	return primes == 295947 ? 0 : 1;
}

/*
 * The watchdog: a thread that watches a run's step counter and, only when it
 * has not moved for the budget, kicks the vCPU thread out of KVM_RUN with a
 * signal. A run that keeps making exits is never interrupted, so host timing
 * never reaches the guest (a periodic kick would, through every emulation
 * layer below us).
 *
 * The budget is CPU time of the vCPU thread, not wall time: on a loaded
 * host the thread may wait seconds for a CPU, and a guest that did not run
 * is not stuck. A guest that blocks the thread without using the CPU is
 * still caught, after WATCHDOG_WALL_FACTOR times the budget of wall time.
 */
#ifndef REWIND_WATCHDOG_H
#define REWIND_WATCHDOG_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define WATCHDOG_WALL_FACTOR 10

struct watchdog {
	pthread_t thread, target;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	const uint64_t *progress; /* read atomically; written by the vCPU thread */
	uint64_t budget_ms;
	clockid_t target_cpu; /* the vCPU thread's CPU-time clock */
	bool stop;
	bool fired; /* set before the kick; read by the vCPU thread after EINTR */
};

/* Starts watching *progress for the calling thread. */
int watchdog_start(struct watchdog *w, const uint64_t *progress, uint64_t budget_ms);

/* True once the budget ran out (KVM_RUN then returns EINTR). */
bool watchdog_fired(struct watchdog *w);

void watchdog_stop(struct watchdog *w);

#endif

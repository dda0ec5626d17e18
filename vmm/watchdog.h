/* SPDX-License-Identifier: MIT */
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
 *
 * One thread serves every run of a VM: vm_run arms it and disarms it, an
 * uncontended lock each, where starting and joining a thread per execution
 * cost 0.6-1.0 ms in the box. It ticks while armed and for one tick after;
 * disarmed longer, it sleeps until the next arming wakes it.
 */
#ifndef REWIND_WATCHDOG_H
#define REWIND_WATCHDOG_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define WATCHDOG_WALL_FACTOR 10

struct watchdog {
	bool running; /* the thread exists (started by the first watchdog_arm) */
	pthread_t thread, target;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	const uint64_t *progress; /* read atomically; written by the vCPU thread */
	uint64_t budget_ms;
	clockid_t target_cpu; /* the vCPU thread's CPU-time clock */
	bool armed, stop;
	bool sleeping;	   /* disarmed for a whole tick: waits for an arming, no ticks */
	uint64_t arms;	   /* watchdog_arm calls: a new arming starts a new quiet count */
	bool fired;	   /* set before the kick; read by the vCPU thread after EINTR */
	uint64_t quiet_ms; /* the quiet time counted at the last tick, toward the budget */
	/* the spin rescue (vmm/spin_rescue.c): a kick at rescue_ms of quiet, then
	 * at twice that after each look that found nothing; back to rescue_base_ms
	 * at the next exit */
	uint64_t rescue_base_ms; /* 0: no rescue */
	uint64_t rescue_ms;
	bool rescue_due; /* set before the rescue's kick; cleared by watchdog_rescue_done */
};

/*
 * Starts watching *progress for the calling thread until watchdog_disarm,
 * starting the thread on first use. 0, or -errno with the error reported.
 */
int watchdog_arm(struct watchdog *w, const uint64_t *progress, uint64_t budget_ms);

/* A new budget for the arming in force (the quiet time counted so far stays). */
void watchdog_set_budget(struct watchdog *w, uint64_t budget_ms);

/* True once the budget ran out (KVM_RUN then returns EINTR). */
bool watchdog_fired(struct watchdog *w);

/*
 * The run goes on although the budget ran out: watchdog_fired is false
 * again until the next tick, which, still quiet, kicks again.
 */
void watchdog_go_on(struct watchdog *w);

/* The rescue budget for every arming from now (0: no rescue kicks). */
void watchdog_set_rescue(struct watchdog *w, uint64_t rescue_ms);

/* True once the rescue budget passed without an exit (KVM_RUN then returns EINTR). */
bool watchdog_rescue_due(struct watchdog *w);

/* The look is over: found nothing, the next kick comes at twice the quiet time. */
void watchdog_rescue_done(struct watchdog *w, bool found);

/* How long the guest has made no exit, as counted toward the budget (ms). */
uint64_t watchdog_quiet_ms(struct watchdog *w);

/* Stops watching: no kick comes after this returns. */
void watchdog_disarm(struct watchdog *w);

/* Ends the thread (a watchdog never armed, or zeroed, is fine). */
void watchdog_close(struct watchdog *w);

#endif

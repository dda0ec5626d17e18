/* SPDX-License-Identifier: MIT */
#include "vmm/watchdog.h"

#include "lib/log.h"

#include <errno.h>
#include <signal.h>
#include <time.h>

#define WATCHDOG_TICK_MS 100
#define WATCHDOG_SIGNAL	 SIGUSR1

static void watchdog_kick(int sig)
{
	(void)sig; /* only there so the signal interrupts KVM_RUN */
}

static void deadline_after_tick(struct timespec *ts)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_nsec += WATCHDOG_TICK_MS * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static uint64_t cpu_ms(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* How long the guest has made no exit: CPU time of the vCPU thread, and wall time. */
struct quiet {
	uint64_t last_progress, last_cpu_ms, cpu_ms, wall_ms;
};

static bool quiet_too_long(struct watchdog *w, struct quiet *q)
{
	uint64_t now = __atomic_load_n(w->progress, __ATOMIC_RELAXED);
	uint64_t cpu = cpu_ms(w->target_cpu);

	if (now != q->last_progress) {
		q->cpu_ms = q->wall_ms = 0;
		w->rescue_ms = w->rescue_base_ms; /* a new quiet stretch */
	} else {
		q->cpu_ms += cpu > q->last_cpu_ms ? cpu - q->last_cpu_ms : 0;
		q->wall_ms += WATCHDOG_TICK_MS;
	}
	q->last_progress = now;
	q->last_cpu_ms = cpu;
	__atomic_store_n(&w->quiet_ms,
			 q->cpu_ms > q->wall_ms / WATCHDOG_WALL_FACTOR
				 ? q->cpu_ms
				 : q->wall_ms / WATCHDOG_WALL_FACTOR,
			 __ATOMIC_RELAXED);
	return q->cpu_ms >= w->budget_ms || q->wall_ms >= w->budget_ms * WATCHDOG_WALL_FACTOR;
}

/*
 * Waits one tick, or while disarmed for a whole tick already, until armed
 * (an arming wakes only a sleeping watchdog: waking it costs more than a
 * tick here and there). True when the tick passed armed; a new arming starts
 * the run's quiet count afresh (*q) at its first tick.
 */
static bool wait_for_tick(struct watchdog *w, struct quiet *q, uint64_t *counted_arms)
{
	struct timespec until;
	bool new_arming;

	if (!w->armed && *counted_arms == w->arms) {
		w->sleeping = true;
		while (!w->stop && !w->armed)
			pthread_cond_wait(&w->wake, &w->lock);
		w->sleeping = false;
	}
	deadline_after_tick(&until);
	while (!w->stop && pthread_cond_timedwait(&w->wake, &w->lock, &until) != ETIMEDOUT)
		;
	if (w->stop)
		return false;
	new_arming = *counted_arms != w->arms;
	*counted_arms = w->arms;
	if (!w->armed)
		return false;
	if (new_arming) {
		*q = (struct quiet){.last_progress = __atomic_load_n(w->progress, __ATOMIC_RELAXED),
				    .last_cpu_ms = cpu_ms(w->target_cpu)};
		return false;
	}
	return true;
}

/* The quiet time passed the rescue budget, and no look is asked for yet. */
static bool rescue_is_due(struct watchdog *w)
{
	return w->rescue_base_ms && !__atomic_load_n(&w->rescue_due, __ATOMIC_ACQUIRE) &&
	       w->quiet_ms >= w->rescue_ms;
}

static void *watchdog_main(void *arg)
{
	struct watchdog *w = arg;
	struct quiet q = {0};
	uint64_t counted_arms = 0;

	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		/* still quiet at the next tick: kick again (the last kick may have come
		 * between two KVM_RUNs, where it interrupts nothing) */
		if (!wait_for_tick(w, &q, &counted_arms))
			continue;
		if (quiet_too_long(w, &q)) {
			__atomic_store_n(&w->fired, true, __ATOMIC_RELEASE);
			pthread_kill(w->target, WATCHDOG_SIGNAL);
		} else if (rescue_is_due(w)) {
			__atomic_store_n(&w->rescue_due, true, __ATOMIC_RELEASE);
			pthread_kill(w->target, WATCHDOG_SIGNAL);
		}
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* The thread, its lock and the kick's handler, once per watchdog. */
static int watchdog_start(struct watchdog *w)
{
	struct sigaction sa = {.sa_handler = watchdog_kick, .sa_flags = SA_RESTART};
	pthread_condattr_t attr;
	int rc;

	if (sigaction(WATCHDOG_SIGNAL, &sa, NULL) < 0) {
		rw_err_errno(errno, "sigaction for the watchdog");
		return -EIO;
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&w->wake, &attr);
	pthread_condattr_destroy(&attr);
	rc = pthread_create(&w->thread, NULL, watchdog_main, w);
	if (rc) {
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->lock);
		rw_err_errno(rc, "cannot start the watchdog thread");
		return -rc;
	}
	w->running = true;
	return 0;
}

void watchdog_set_budget(struct watchdog *w, uint64_t budget_ms)
{
	pthread_mutex_lock(&w->lock);
	w->budget_ms = budget_ms ? budget_ms : WATCHDOG_TICK_MS;
	pthread_mutex_unlock(&w->lock);
}

int watchdog_arm(struct watchdog *w, const uint64_t *progress, uint64_t budget_ms)
{
	clockid_t cpu;
	int rc = pthread_getcpuclockid(pthread_self(), &cpu);

	if (rc) {
		rw_err_errno(rc, "cannot read this thread's CPU time for the watchdog");
		return -rc;
	}
	if (!w->running && (rc = watchdog_start(w)) < 0)
		return rc;
	pthread_mutex_lock(&w->lock);
	w->target = pthread_self();
	w->target_cpu = cpu;
	w->progress = progress;
	w->budget_ms = budget_ms ? budget_ms : WATCHDOG_TICK_MS;
	w->fired = false;
	w->quiet_ms = 0;
	w->rescue_ms = w->rescue_base_ms;
	w->rescue_due = false;
	w->armed = true;
	w->arms++;
	if (w->sleeping)
		pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

bool watchdog_fired(struct watchdog *w)
{
	return __atomic_load_n(&w->fired, __ATOMIC_ACQUIRE);
}

void watchdog_go_on(struct watchdog *w)
{
	__atomic_store_n(&w->fired, false, __ATOMIC_RELEASE);
}

void watchdog_set_rescue(struct watchdog *w, uint64_t rescue_ms)
{
	if (w->running)
		pthread_mutex_lock(&w->lock);
	w->rescue_base_ms = w->rescue_ms = rescue_ms;
	if (w->running)
		pthread_mutex_unlock(&w->lock);
}

bool watchdog_rescue_due(struct watchdog *w)
{
	return __atomic_load_n(&w->rescue_due, __ATOMIC_ACQUIRE);
}

void watchdog_rescue_done(struct watchdog *w, bool found)
{
	pthread_mutex_lock(&w->lock);
	if (!found)
		w->rescue_ms *= 2;
	__atomic_store_n(&w->rescue_due, false, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&w->lock);
}

uint64_t watchdog_quiet_ms(struct watchdog *w)
{
	return __atomic_load_n(&w->quiet_ms, __ATOMIC_RELAXED);
}

void watchdog_disarm(struct watchdog *w)
{
	if (!w->running)
		return;
	pthread_mutex_lock(&w->lock);
	w->armed = false;
	pthread_mutex_unlock(&w->lock); /* it notices at its next tick */
}

void watchdog_close(struct watchdog *w)
{
	if (!w->running)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	w->running = false;
}

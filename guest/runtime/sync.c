/* SPDX-License-Identifier: MIT */
/*
 * Synchronisation operations as schedule events. guest/rewind-cc links the
 * program with -Wl,--wrap=NAME for each function below, so the program's
 * calls come here first (the C library's own calls do not). Each operation
 * is an event before it happens: a preemption can land between
 * `lock(a)` and `lock(b)` although an uncontended mutex makes no system
 * call. A lock is also a read and a write of the mutex (reads-from feedback
 * sees which unlock a lock followed) and an edge of the lock order.
 *
 * pthread_create gives the new thread the SCHED_FIFO priority the VMM hands
 * out for it (PCT mode), from its first instruction on: the thread starts
 * with explicit scheduling attributes, so the C library sets its priority
 * before it runs.
 */
#include "guest/runtime/runtime.h"
#include "rewind/abi.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#define REAL(name) __real_##name
#define WRAP(name) __wrap_##name

int REAL(pthread_mutex_lock)(pthread_mutex_t *m);
int REAL(pthread_mutex_trylock)(pthread_mutex_t *m);
int REAL(pthread_mutex_unlock)(pthread_mutex_t *m);
int REAL(pthread_cond_wait)(pthread_cond_t *c, pthread_mutex_t *m);
int REAL(pthread_cond_timedwait)(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t);
int REAL(pthread_cond_signal)(pthread_cond_t *c);
int REAL(pthread_cond_broadcast)(pthread_cond_t *c);
int REAL(pthread_create)(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);
int REAL(pthread_join)(pthread_t t, void **ret);
int REAL(pthread_rwlock_rdlock)(pthread_rwlock_t *l);
int REAL(pthread_rwlock_wrlock)(pthread_rwlock_t *l);
int REAL(pthread_rwlock_unlock)(pthread_rwlock_t *l);
int REAL(pthread_spin_lock)(pthread_spinlock_t *l);
int REAL(pthread_spin_unlock)(pthread_spinlock_t *l);

/* The operation at pc on the object at obj: an event, and a read (and write) of obj. */
static void sync_event(uintptr_t pc, const volatile void *obj, int writes)
{
	rt_event(pc, (uintptr_t)obj, RT_EV_SYNC);
	rt_feedback_load(pc, (uintptr_t)obj);
	if (writes)
		rt_feedback_store(pc, (uintptr_t)obj);
}

static int locked(uintptr_t pc, const volatile void *lock, int rc)
{
	if (rc == 0) {
		rt_spin_locked();
		rt_feedback_store(pc, (uintptr_t)lock);
		rt_feedback_lock(pc, (uintptr_t)lock);
	}
	return rc;
}

static int unlocking(uintptr_t pc, const volatile void *lock)
{
	rt_event(pc, (uintptr_t)lock, RT_EV_SYNC);
	rt_feedback_store(pc, (uintptr_t)lock);
	rt_feedback_unlock((uintptr_t)lock);
	return 0;
}

#define LOCK_WRAPPER(name, type)                                                                   \
	int WRAP(name)(type * l);                                                                  \
	int WRAP(name)(type * l)                                                                   \
	{                                                                                          \
		uintptr_t pc = RT_CALLER();                                                        \
		int rc;                                                                            \
		sync_event(pc, l, 0);                                                              \
		rt_walk_wait(1);                                                                   \
		rc = REAL(name)(l);                                                                \
		rt_walk_wait(0);                                                                   \
		return locked(pc, l, rc);                                                          \
	}
#define UNLOCK_WRAPPER(name, type)                                                                 \
	int WRAP(name)(type * l);                                                                  \
	int WRAP(name)(type * l)                                                                   \
	{                                                                                          \
		int rc;                                                                            \
		unlocking(RT_CALLER(), l);                                                         \
		rc = REAL(name)(l);                                                                \
		rt_spin_unlocked(); /* after the release: a spin's yield may be due */             \
		return rc;                                                                         \
	}

LOCK_WRAPPER(pthread_mutex_lock, pthread_mutex_t)
LOCK_WRAPPER(pthread_mutex_trylock, pthread_mutex_t)
LOCK_WRAPPER(pthread_rwlock_rdlock, pthread_rwlock_t)
LOCK_WRAPPER(pthread_rwlock_wrlock, pthread_rwlock_t)
LOCK_WRAPPER(pthread_spin_lock, pthread_spinlock_t)
UNLOCK_WRAPPER(pthread_mutex_unlock, pthread_mutex_t)
UNLOCK_WRAPPER(pthread_rwlock_unlock, pthread_rwlock_t)
UNLOCK_WRAPPER(pthread_spin_unlock, pthread_spinlock_t)

/*
 * Waiting releases the mutex and takes it again: to feedback, an unlock
 * and a lock. To spin.c the mutex stays held (no rt_spin_unlocked, no
 * rt_spin_locked): the wait releases it only inside the C library, where
 * no yield can follow the release, and a yield before the wait would
 * come with the mutex still held. None is needed there: the wait blocks,
 * so the other threads run. A spin's yield still due when the wait
 * returns comes after the thread's next release of its locks (unless a
 * load sees progress first).
 */
static void relocked(uintptr_t pc, const volatile void *lock)
{
	rt_feedback_store(pc, (uintptr_t)lock);
	rt_feedback_lock(pc, (uintptr_t)lock);
}

int WRAP(pthread_cond_wait)(pthread_cond_t *c, pthread_mutex_t *m);
int WRAP(pthread_cond_wait)(pthread_cond_t *c, pthread_mutex_t *m)
{
	uintptr_t pc = RT_CALLER();
	int rc;

	unlocking(pc, m);
	rt_walk_wait(1);
	rc = REAL(pthread_cond_wait)(c, m);
	rt_walk_wait(0);
	if (rc == 0)
		relocked(pc, m);
	return rc;
}

int WRAP(pthread_cond_timedwait)(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t);
int WRAP(pthread_cond_timedwait)(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t)
{
	uintptr_t pc = RT_CALLER();
	int rc;

	unlocking(pc, m);
	rt_walk_wait(1);
	rc = REAL(pthread_cond_timedwait)(c, m, t);
	rt_walk_wait(0);
	if (rc == 0 || rc == ETIMEDOUT)
		relocked(pc, m);
	return rc;
}

int WRAP(pthread_cond_signal)(pthread_cond_t *c);
int WRAP(pthread_cond_signal)(pthread_cond_t *c)
{
	sync_event(RT_CALLER(), c, 1);
	return REAL(pthread_cond_signal)(c);
}

int WRAP(pthread_cond_broadcast)(pthread_cond_t *c);
int WRAP(pthread_cond_broadcast)(pthread_cond_t *c)
{
	sync_event(RT_CALLER(), c, 1);
	return REAL(pthread_cond_broadcast)(c);
}

int WRAP(pthread_join)(pthread_t t, void **ret);
int WRAP(pthread_join)(pthread_t t, void **ret)
{
	int rc;

	rt_event(RT_CALLER(), 0, RT_EV_SYNC);
	rt_walk_wait(1);
	rc = REAL(pthread_join)(t, ret);
	rt_walk_wait(0);
	return rc;
}

/* The new thread's attributes: the caller's, plus its priority from the VMM. */
static const pthread_attr_t *with_priority(const pthread_attr_t *attr, pthread_attr_t *own,
					   uint32_t prio)
{
	struct sched_param param = {.sched_priority = (int)prio};

	if (attr)
		memcpy(own, attr, sizeof(*own)); /* never destroyed: it shares the caller's parts */
	else if (pthread_attr_init(own) != 0)
		return attr;
	if (pthread_attr_setinheritsched(own, PTHREAD_EXPLICIT_SCHED) != 0 ||
	    pthread_attr_setschedpolicy(own, SCHED_FIFO) != 0 ||
	    pthread_attr_setschedparam(own, &param) != 0)
		return attr;
	return own;
}

int WRAP(pthread_create)(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);
int WRAP(pthread_create)(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	pthread_attr_t own;
	uint32_t prio;
	int rc;

	rt_event(RT_CALLER(), 0, RT_EV_SYNC);
	prio = rt_call(REWIND_RT_THREAD_PRIORITY, 0, 0);
	rt_walk_creating(&fn, &arg, &prio); /* a walk numbers and starts it (walk.c) */
	if (prio)
		attr = with_priority(attr, &own, prio);
	rt_thread_creating();
	rc = REAL(pthread_create)(t, attr, fn, arg);
	if (rc != 0)
		rt_thread_not_created();
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * A walk (pct mode, an input with the walk flag; include/rewind/abi.h):
 * a uniform random walk over the process's threads (URW, after SURW). At
 * each schedule event the next thread to run is drawn with probability
 * proportional to its remaining events: the events the job's profile run
 * saw it make, less those it made so far, at least 1 (a thread the profile
 * did not see weighs the profile's median; with no profile every thread
 * weighs the same). The draw stays out of rt_event's fast path: the
 * runtime keeps a countdown of its own beside the VMM's (counter.c), to
 * the walk's next point, drawn as the geometric number of events the
 * chosen thread keeps running, and there draws the next thread among the
 * others.
 *
 * Priorities do the switching on the one CPU: every thread rests at the
 * VMM's priority; the chosen one runs at REWIND_WALK_PRIO_RUN. A switch
 * lowers the thread that ran, then raises the chosen one, which then runs
 * unless it is blocked (the kernel then runs the highest runnable one).
 * Threads known to wait in the runtime's own wrappers (sync.c) are not
 * chosen. New threads are numbered in the order they are created: each
 * starts at REWIND_WALK_PRIO_START, registers its thread id, and rests.
 *
 * In the job's profile run (REWIND_WALK_COUNT) the same countdown, of one
 * event, counts each thread's events into the page, which the VMM reads
 * when the program exits. The walk stops at the fair continuation
 * (rt_pct_priorities 0): no thread is made SCHED_FIFO again.
 */
#include "guest/runtime/runtime.h"
#include "rewind/abi.h"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NONE	    UINT32_MAX
#define RUN_MAX	    (1u << 20) /* events a thread keeps running at most, before a new draw */
#define MAIN_THREAD 0u

struct walker {
	uint32_t tid;	 /* 0: not started */
	uint32_t rest;	 /* its priority when it is not chosen */
	uint64_t made;	 /* events it made so far (at the walk's points: its run's) */
	uint8_t live;	 /* started and not ended */
	uint8_t waiting; /* in a runtime wrapper that may block */
};

/* The page the VMM writes a walk's seed and weights to, or reads counts from. */
static struct rewind_walk page __attribute__((aligned(4096)));

int rt_walk_on;
int rt_walk_own_countdown;
static int counting; /* the profile run: each thread's events into page.events */

static struct walker walkers[REWIND_WALK_THREADS];
static uint32_t created = 1;	       /* threads numbered so far (the main thread is 0) */
static __thread uint32_t me_1;	       /* this thread's number + 1 (0: none) */
static uint64_t rng;		       /* splitmix64's state, from the walk's seed */
static uint32_t left = 1;	       /* events to the walk's next point */
static uint32_t running = MAIN_THREAD; /* the thread at REWIND_WALK_PRIO_RUN (or resting) */
static uint32_t due = NONE;	       /* the thread the next switch raises */
static uint32_t unseen_events;	       /* a thread the profile did not see: the median */

/* The trampolines of new threads: the program's start routine and argument. */
struct start_box {
	void *(*fn)(void *);
	void *arg;
};
static struct start_box boxes[REWIND_WALK_THREADS];

static uint64_t next_random(void)
{
	uint64_t x = (rng += 0x9e3779b97f4a7c15ull);

	x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ x >> 27) * 0x94d049bb133111ebull;
	return x ^ x >> 31;
}

/* The profile's threads the VMM wrote (behind the compiler's back: an atomic load). */
static uint32_t profiled_threads(void)
{
	uint32_t n = __atomic_load_n(&page.threads, __ATOMIC_RELAXED);

	return n < REWIND_WALK_THREADS ? n : REWIND_WALK_THREADS;
}

static long gettid_now(void)
{
	return syscall(SYS_gettid);
}

/* The median of the profile's events (insertion sort of a copy: at most REWIND_WALK_THREADS). */
static uint32_t profile_median(void)
{
	static uint32_t sorted[REWIND_WALK_THREADS];
	uint32_t n = profiled_threads();

	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = page.events[i], j = i;

		for (; j > 0 && sorted[j - 1] > v; j--)
			sorted[j] = sorted[j - 1];
		sorted[j] = v;
	}
	return n ? sorted[n / 2] : 1;
}

/* Thread i's weight: its remaining events, at least 1 (every thread 1 without a profile). */
static uint64_t weight(uint32_t i)
{
	uint32_t n = profiled_threads();
	uint64_t profiled;

	if (!n)
		return 1;
	profiled = i < n ? page.events[i] : unseen_events;
	return profiled > walkers[i].made ? profiled - walkers[i].made : 1;
}

static int may_run(uint32_t i)
{
	return walkers[i].live && walkers[i].tid && !walkers[i].waiting;
}

/* A thread other than not, drawn by weight; not itself when none other may run. */
static uint32_t draw_other(uint32_t not )
{
	uint64_t total = 0, r;

	for (uint32_t i = 0; i < created; i++)
		if (i != not &&may_run(i))
			total += weight(i);
	if (!total)
		return not ;
	r = next_random() % total;
	for (uint32_t i = 0; i < created; i++) {
		uint64_t w;

		if (i == not || !may_run(i))
			continue;
		w = weight(i);
		if (r < w)
			return i;
		r -= w;
	}
	return not ; /* not reached */
}

/*
 * How many events chosen keeps running: at each event URW draws chosen
 * again with probability weight / the weights of all that may run, so the
 * run is that geometric number (at least 1).
 */
static uint32_t run_length(uint32_t chosen)
{
	uint64_t total = 0, w = weight(chosen);
	uint32_t n = 1;

	for (uint32_t i = 0; i < created; i++)
		if (i != chosen && may_run(i))
			total += weight(i);
	total += w;
	while (n < RUN_MAX && next_random() % total < w)
		n++;
	return n;
}

uint32_t rt_walk_start(void)
{
	uint32_t answer, prio;

	/* resident before the VMM writes it: a fault here, no system call */
	__atomic_store_n(&page.reserved, 0, __ATOMIC_RELAXED);
	answer = rt_call(REWIND_RT_THREAD_PRIORITY, (uintptr_t)&page, (uint32_t)getpid());
	prio = answer & REWIND_WALK_PRIO_MASK;
	me_1 = MAIN_THREAD + 1;
	walkers[MAIN_THREAD] = (struct walker){.rest = prio, .live = 1};
	if (answer & REWIND_WALK_COUNT) {
		counting = 1;
		rt_walk_own_countdown = 1;
	} else if ((answer & REWIND_WALK_ON) && prio) {
		walkers[MAIN_THREAD].tid = (uint32_t)gettid_now();
		rng = page.seed;
		unseen_events = profile_median();
		rt_walk_on = 1;
		rt_walk_own_countdown = 1;
	}
	return prio;
}

void rt_walk_forked(void)
{
	/* the child's one thread goes on as a plain pct run */
	rt_walk_on = 0;
	rt_walk_own_countdown = 0;
	counting = 0;
}

uint32_t rt_walk_events(uint32_t made)
{
	uint32_t self = me_1 - 1;

	if (counting) {
		if (me_1 && self < REWIND_WALK_THREADS)
			page.events[self] += made;
		return 1;
	}
	if (!rt_walk_on || !rt_pct_priorities)
		return UINT32_MAX;
	if (me_1)
		walkers[self].made += made;
	if (made < left) {
		left -= made;
		return left;
	}
	due = draw_other(me_1 ? self : NONE);
	left = due == NONE ? RUN_MAX : run_length(due);
	return left;
}

/* A SCHED_FIFO priority for thread i (not the caller). */
static void set_other(uint32_t i, uint32_t prio)
{
	struct sched_param param = {.sched_priority = (int)prio};

	syscall(SYS_sched_setparam, (long)walkers[i].tid, &param);
}

void rt_walk_switch(void)
{
	uint32_t chosen = due, self = me_1 - 1, before = running;

	due = NONE;
	if (chosen == NONE || !rt_walk_on || !rt_pct_priorities || !me_1)
		return;
	running = chosen; /* before any system call: the next thread reads it */
	if (before != NONE && before != self && before != chosen && walkers[before].live)
		set_other(before, walkers[before].rest);
	if (chosen == self) {
		rt_set_priority(REWIND_WALK_PRIO_RUN);
		return;
	}
	rt_set_priority(walkers[self].rest);	 /* to the head of its queue: it runs on for now */
	set_other(chosen, REWIND_WALK_PRIO_RUN); /* which takes the CPU if it can run */
}

/* A new thread's first instructions: it registers, rests, and runs the program's routine. */
static void *walk_thread_start(void *arg)
{
	struct start_box *box = arg;
	uint32_t i = (uint32_t)(box - boxes);
	void *ret;

	me_1 = i + 1;
	if (rt_walk_on) {
		walkers[i].tid = (uint32_t)gettid_now();
		walkers[i].live = 1;
		if (rt_pct_priorities)
			rt_set_priority(walkers[i].rest);
	}
	ret = box->fn(box->arg);
	rt_walk_thread_ended();
	return ret;
}

void rt_walk_creating(void *(**fn)(void *), void **arg, uint32_t *prio)
{
	uint32_t i;

	if (!rt_walk_own_countdown || created >= REWIND_WALK_THREADS)
		return;
	i = created++;
	walkers[i] = (struct walker){.rest = *prio};
	boxes[i] = (struct start_box){.fn = *fn, .arg = *arg};
	*fn = walk_thread_start;
	*arg = &boxes[i];
	if (rt_walk_on && *prio)
		*prio = REWIND_WALK_PRIO_START;
}

void rt_walk_thread_ended(void)
{
	uint32_t self = me_1 - 1;

	if (!rt_walk_on || !me_1)
		return;
	walkers[self].live = 0;
	if (running == self)
		running = NONE;
}

void rt_walk_waiting(int waits)
{
	if (rt_walk_on && me_1)
		walkers[me_1 - 1].waiting = (uint8_t)waits;
}

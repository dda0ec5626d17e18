/* SPDX-License-Identifier: MIT */
/*
 * adversarial: the determinism torture test. Several threads race on one
 * shared hash with an unlocked read-modify-write (read, mix in the thread id
 * and iteration with a non-linear function, write back), and make system
 * calls inside their loops chosen from the data: sched_yield (sometimes in
 * the middle of the read-modify-write, so updates get lost), short sleeps of
 * microseconds to milliseconds, futex waits with timeouts and wakes, a
 * mutex-protected baton handed between threads, and progress writes. The
 * interleaving therefore depends on time, timers and interrupts. The shared
 * hash starts from, and the final hash folds in, the wall and monotonic
 * clocks, getrandom(), 16 bytes of /dev/urandom, stack and heap addresses and
 * RDTSC. On an ordinary machine the final hash differs every run; under
 * Rewind it must be identical for the same seed.
 *
 * usage: adversarial [ITERATIONS_PER_THREAD [THREADS]]
 * The default (10000 x 3) is meant to take about 1-3 s of guest virtual time
 * with a few thousand VM exits.
 */
#include "guest/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_ITERATIONS 10000
#define DEFAULT_THREADS	   3
#define MAX_ITERATIONS	   100000000
#define MAX_THREADS	   16
#define PROGRESS_EVERY	   1000

struct shared_state {
	_Atomic uint64_t hash; /* raced on: separate load and store, no lock */
	_Atomic uint32_t futex_word;
	pthread_mutex_t baton_lock;
	uint64_t baton; /* under baton_lock */
};

struct worker {
	pthread_t thread;
	unsigned id;
	uint64_t iterations;
	struct shared_state *shared;
	uint64_t local, lost_updates, yields, sleeps, handoffs, futex_waits, futex_wakes;
};

struct inputs {
	struct timespec real_start, mono_start, real_end, mono_end;
	uint64_t random, tsc_start, tsc_end;
	uint8_t urandom[16];
	uintptr_t stack, heap;
};

/* A few xorshift-multiply rounds: every output bit depends on every input bit. */
static uint64_t mix(uint64_t h, uint64_t a, uint64_t b)
{
	h ^= (a + 1) * 0x9e3779b97f4a7c15u;
	h ^= b * 0xc2b2ae3d27d4eb4fu;
	for (int round = 0; round < 3; round++) {
		h ^= h << 13;
		h ^= h >> 7;
		h ^= h << 17;
		h *= 0xd6e8feb86659fd93u;
		h ^= h >> 32;
	}
	return h;
}

static void check(int rc, const char *what)
{
	if (rc != 0) {
		errno = rc;
		gu_die_errno("%s", what);
	}
}

static void yield(struct worker *w)
{
	if (sched_yield() < 0)
		gu_die_errno("sched_yield");
	w->yields++;
}

/* Sleeps a few microseconds or milliseconds, as h says. */
static void short_sleep(struct worker *w, uint64_t h)
{
	uint64_t ns = (h & 1) ? 2000 + (h >> 1) % 98000 : 2000000 + (h >> 1) % 28000000;
	struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)ns};

	while (nanosleep(&ts, &ts) < 0)
		if (errno != EINTR)
			gu_die_errno("nanosleep");
	w->sleeps++;
}

static long futex(_Atomic uint32_t *word, int op, uint32_t value, const struct timespec *timeout)
{
	return syscall(SYS_futex, (uint32_t *)word, op, value, timeout, NULL, 0);
}

/* Waits up to 20-500 us for another thread's wake. */
static void futex_wait(struct worker *w, uint64_t h)
{
	uint32_t seen = atomic_load(&w->shared->futex_word);
	struct timespec timeout = {.tv_sec = 0, .tv_nsec = (long)(20000 + h % 480000)};

	if (futex(&w->shared->futex_word, FUTEX_WAIT_PRIVATE, seen, &timeout) < 0 &&
	    errno != EAGAIN && errno != ETIMEDOUT && errno != EINTR)
		gu_die_errno("futex(FUTEX_WAIT)");
	w->futex_waits++;
}

static void futex_wake(struct worker *w)
{
	atomic_fetch_add(&w->shared->futex_word, 1);
	if (futex(&w->shared->futex_word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL) < 0)
		gu_die_errno("futex(FUTEX_WAKE)");
	w->futex_wakes++;
}

/* Updates the baton under its mutex, sometimes yielding while holding it. */
static void baton_handoff(struct worker *w, uint64_t i)
{
	struct shared_state *s = w->shared;

	check(pthread_mutex_lock(&s->baton_lock), "pthread_mutex_lock");
	s->baton = mix(s->baton, w->id, i);
	w->local ^= s->baton;
	if ((s->baton & 3) == 0)
		yield(w);
	check(pthread_mutex_unlock(&s->baton_lock), "pthread_mutex_unlock");
	w->handoffs++;
}

/* One unlocked read-modify-write of the shared hash; returns the value written. */
static uint64_t race_once(struct worker *w, uint64_t i)
{
	uint64_t seen = atomic_load_explicit(&w->shared->hash, memory_order_relaxed);
	uint64_t next = mix(seen, w->id, i);

	if ((next & 31) == 7)
		yield(w); /* inside the window: others may write meanwhile */
	if (atomic_load_explicit(&w->shared->hash, memory_order_relaxed) != seen)
		w->lost_updates++; /* our store overwrites someone else's */
	atomic_store_explicit(&w->shared->hash, next, memory_order_relaxed);
	return next;
}

/* A system call chosen by the data, in about one iteration out of 20. */
static void maybe_syscall(struct worker *w, uint64_t h, uint64_t i)
{
	unsigned choice = (unsigned)(h >> 48) & 0xff;

	if (choice < 4)
		short_sleep(w, h);
	else if (choice < 8)
		yield(w);
	else if (choice < 10)
		baton_handoff(w, i);
	else if (choice < 11)
		futex_wait(w, h);
	else if (choice < 13)
		futex_wake(w);
}

static void *work(void *arg)
{
	struct worker *w = arg;

	for (uint64_t i = 1; i <= w->iterations; i++) {
		uint64_t h = race_once(w, i);

		w->local = mix(w->local ^ h, w->id, i);
		maybe_syscall(w, h, i);
		if (i % PROGRESS_EVERY == 0)
			gu_say("adversarial: thread %u iteration %" PRIu64 " hash 0x%016" PRIx64
			       "\n",
			       w->id, i, h);
	}
	return NULL;
}

/* User-space RDTSC: Rewind's guest kernel emulates it from virtual time. */
static uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static void read_exactly(const char *path, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	if (fd < 0)
		gu_die_errno("open %s", path);
	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			gu_die_errno("read %s", path);
		if (n == 0)
			gu_die("%s: end of file after %zu bytes", path, got);
		got += (size_t)n;
	}
	if (close(fd) < 0)
		gu_die_errno("close %s", path);
}

static void gather_start(struct inputs *in, const void *stack, const void *heap)
{
	in->real_start = gu_now(CLOCK_REALTIME, "CLOCK_REALTIME");
	in->mono_start = gu_now(CLOCK_MONOTONIC, "CLOCK_MONOTONIC");
	in->tsc_start = rdtsc();
	if (getrandom(&in->random, sizeof(in->random), 0) != (ssize_t)sizeof(in->random))
		gu_die_errno("getrandom of %zu bytes", sizeof(in->random));
	read_exactly("/dev/urandom", in->urandom, sizeof(in->urandom));
	in->stack = (uintptr_t)stack;
	in->heap = (uintptr_t)heap;
}

static uint64_t fold_time(uint64_t h, struct timespec ts)
{
	return mix(h, (uint64_t)ts.tv_sec, (uint64_t)ts.tv_nsec);
}

static uint64_t fold_start(const struct inputs *in)
{
	uint64_t h = fold_time(fold_time(0, in->real_start), in->mono_start);

	h = mix(h, in->tsc_start, in->random);
	for (size_t i = 0; i < sizeof(in->urandom); i++)
		h = mix(h, in->urandom[i], i);
	return mix(h, in->stack, in->heap);
}

static uint64_t fold_worker(uint64_t h, const struct worker *w)
{
	h = mix(h, w->local, w->lost_updates);
	h = mix(h, w->yields, w->sleeps);
	h = mix(h, w->handoffs, w->futex_waits);
	return mix(h, w->futex_wakes, w->id);
}

static void print_inputs(const struct inputs *in)
{
	gu_say("realtime start: %lld.%09ld\n", (long long)in->real_start.tv_sec,
	       in->real_start.tv_nsec);
	gu_say("monotonic start: %lld.%09ld\n", (long long)in->mono_start.tv_sec,
	       in->mono_start.tv_nsec);
	gu_say("rdtsc start: %" PRIu64 "\n", in->tsc_start);
	gu_say("getrandom: 0x%016" PRIx64 "\n", in->random);
	gu_say("urandom: %02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x\n",
	       in->urandom[0], in->urandom[1], in->urandom[2], in->urandom[3], in->urandom[4],
	       in->urandom[5], in->urandom[6], in->urandom[7], in->urandom[8], in->urandom[9],
	       in->urandom[10], in->urandom[11], in->urandom[12], in->urandom[13], in->urandom[14],
	       in->urandom[15]);
	gu_say("stack: 0x%" PRIxPTR "\n", in->stack);
	gu_say("heap: 0x%" PRIxPTR "\n", in->heap);
	gu_say("realtime end: %lld.%09ld\n", (long long)in->real_end.tv_sec, in->real_end.tv_nsec);
	gu_say("monotonic end: %lld.%09ld\n", (long long)in->mono_end.tv_sec, in->mono_end.tv_nsec);
	gu_say("rdtsc end: %" PRIu64 "\n", in->tsc_end);
}

static void print_worker(const struct worker *w)
{
	gu_say("thread %u: lost updates %" PRIu64 ", yields %" PRIu64 ", sleeps %" PRIu64
	       ", handoffs %" PRIu64 ", futex waits %" PRIu64 ", futex wakes %" PRIu64
	       ", local 0x%016" PRIx64 "\n",
	       w->id, w->lost_updates, w->yields, w->sleeps, w->handoffs, w->futex_waits,
	       w->futex_wakes, w->local);
}

static void parse_args(int argc, char **argv, uint64_t *iterations, uint64_t *threads)
{
	*iterations = DEFAULT_ITERATIONS;
	*threads = DEFAULT_THREADS;
	if (argc > 3 || (argc > 1 && !gu_parse_u64(argv[1], 1, MAX_ITERATIONS, iterations)) ||
	    (argc > 2 && !gu_parse_u64(argv[2], 2, MAX_THREADS, threads)))
		gu_die("usage: adversarial [ITERATIONS_PER_THREAD (1-%d, default %d) [THREADS "
		       "(2-%d, default %d)]]",
		       MAX_ITERATIONS, DEFAULT_ITERATIONS, MAX_THREADS, DEFAULT_THREADS);
}

int main(int argc, char **argv)
{
	static struct shared_state shared = {.baton_lock = PTHREAD_MUTEX_INITIALIZER};
	struct worker workers[MAX_THREADS] = {0};
	uint64_t iterations, threads, final;
	struct inputs in;
	int on_stack = 0;
	void *heap = malloc(64);

	parse_args(argc, argv, &iterations, &threads);
	if (!heap)
		gu_die("out of memory");
	gather_start(&in, &on_stack, heap);
	atomic_store(&shared.hash, fold_start(&in));
	gu_say("adversarial: %" PRIu64 " threads x %" PRIu64 " iterations\n", threads, iterations);
	for (unsigned i = 0; i < threads; i++) {
		workers[i] = (struct worker){.id = i, .iterations = iterations, .shared = &shared};
		check(pthread_create(&workers[i].thread, NULL, work, &workers[i]),
		      "pthread_create");
	}
	for (unsigned i = 0; i < threads; i++)
		check(pthread_join(workers[i].thread, NULL), "pthread_join");
	in.real_end = gu_now(CLOCK_REALTIME, "CLOCK_REALTIME");
	in.mono_end = gu_now(CLOCK_MONOTONIC, "CLOCK_MONOTONIC");
	in.tsc_end = rdtsc();

	final = mix(fold_start(&in), atomic_load(&shared.hash), shared.baton);
	for (unsigned i = 0; i < threads; i++)
		final = fold_worker(final, &workers[i]);
	final = mix(fold_time(fold_time(final, in.real_end), in.mono_end), in.tsc_end, threads);
	print_inputs(&in);
	for (unsigned i = 0; i < threads; i++)
		print_worker(&workers[i]);
	gu_say("shared hash: 0x%016" PRIx64 "\n", atomic_load(&shared.hash));
	gu_say("baton: 0x%016" PRIx64 "\n", shared.baton);
	gu_say("final hash: 0x%016" PRIx64 "\n", final);
	free(heap);
	return 0;
}

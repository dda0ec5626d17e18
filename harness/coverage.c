/* SPDX-License-Identifier: MIT */
#include "harness/coverage.h"

#include "rewind/abi.h"

#include <string.h>
#include <sys/wait.h>
#include <xxhash.h>

#define MAX_THREADS 64 /* later threads share the last number */

/* Thread ids in order of first appearance: 0 is the idle task, then 1, 2... */
struct thread_numbers {
	uint32_t tid[MAX_THREADS];
	unsigned int count;
};

static unsigned int thread_number(struct thread_numbers *n, uint32_t tid)
{
	if (tid == 0)
		return 0;
	for (unsigned int i = 0; i < n->count; i++)
		if (n->tid[i] == tid)
			return i + 1;
	if (n->count < MAX_THREADS)
		n->tid[n->count++] = tid;
	return n->count;
}

/*
 * Marks a feature as seen. Presence only, no hit count: afl-fuzz takes a
 * count moving to a new bucket (2, 3, 4-7...) as new coverage, and a second
 * preemption that repeats the same context switches once more would then
 * be kept as new, flooding the queue with equivalent schedules.
 */
static void hit(uint8_t *map, size_t size, uint64_t h)
{
	map[h % (size - COVERAGE_CLASS_BYTES)] = 1;
}

/* What an event says, beyond its type and thread; 0 for events that say nothing more. */
static uint64_t event_detail(const struct trace_record *r, const uint8_t *payload)
{
	switch (r->type) {
	case REWIND_EV_EXEC:
	case REWIND_EV_OUTPUT:
	case REWIND_EV_PANIC:
		return XXH3_64bits(payload, r->len);
	case REWIND_EV_FORK:   /* a thread or a process */
	case REWIND_EV_EXIT:   /* exit code, whole process gone */
	case REWIND_EV_SIGNAL: /* signal number, si_code */
		return r->args[0] << 8 ^ r->args[1] << 1 ^ r->args[2];
	case TRACE_JOB_STATUS:
		return r->args[0];
	case TRACE_PREEMPT: /* injection or time slice; where it landed: preemption_site() */
		return r->args[1];
	default:
		return 0;
	}
}

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t words[2] = {a, b};

	return XXH3_64bits(words, sizeof(words));
}

/*
 * Where an injected preemption landed (its block's address, or the
 * instruction's for a single-step offset), in which thread, and whether it
 * was the run's first, second or a later one: a new site is progress for a
 * schedule search even when nothing else changed yet (the second
 * preemption of a bug of depth 3 lands in the other thread's window only
 * after the first let that thread in). One feature per site, not an edge:
 * pairs of sites would flood the queue with equivalent schedules.
 */
static uint64_t preemption_site(const struct trace_record *r, unsigned int thread,
				unsigned int *injected)
{
	unsigned int nth = *injected < 3 ? ++*injected : 3;

	return mix((uint64_t)TRACE_PREEMPT << 32 | nth << 8 | thread, r->args[2]);
}

/*
 * The instrumented runtime's features (reads-from pairs, lock order): one
 * map feature per bit it set, presence only.
 */
static void add_feedback(uint8_t *map, size_t size, const struct vm_feedback *f)
{
	if (!f || !f->any)
		return;
	for (size_t i = 0; i < sizeof(f->seen); i++) {
		for (unsigned int b = 0; f->seen[i] >> b; b++)
			if (f->seen[i] >> b & 1)
				hit(map, size, mix(0xfeedbacc, i * 8 + b));
	}
}

/*
 * What happened, without the order: each event once, keyed by its type,
 * thread and detail (pct mode, where the runtime's reads-from pairs say
 * which interleaving ran).
 */
static void add_events(uint8_t *map, size_t size, const struct trace *t, size_t from)
{
	struct thread_numbers threads = {.count = 0};
	struct trace_iter it;
	struct trace_record r;
	const uint8_t *payload;

	trace_iter_init(&it, t->buf, t->len, from);
	while (trace_iter_next(&it, &r, &payload)) {
		if (r.type == REWIND_EV_SWITCH || r.type == REWIND_EV_CONSOLE ||
		    r.type == TRACE_OUTCOME || r.type == TRACE_PREEMPT)
			continue;
		hit(map, size,
		    mix((uint64_t)r.type << 32 | thread_number(&threads, r.tid),
			event_detail(&r, payload)));
	}
}

void coverage_add_class(uint8_t *map, size_t size, enum exec_class cls)
{
	map[size - COVERAGE_CLASS_BYTES + (cls < CLASS_COUNT ? cls : CLASS_HOST_ERROR)] = 1;
}

static void add_outcome(uint8_t *map, size_t size, enum exec_class cls, int job_status)
{
	uint8_t *tail = map + size - COVERAGE_CLASS_BYTES;

	coverage_add_class(map, size, cls);
	if (cls == CLASS_SIGNAL)
		tail[32 + (WTERMSIG(job_status) & 31)] = 1;
	else if (cls == CLASS_EXIT)
		tail[32 + (WEXITSTATUS(job_status) & 31)] = 1;
}

void coverage_add_interleavings(uint8_t *map, size_t size, const struct trace *t, size_t from,
				const struct vm_feedback *feedback, enum exec_class cls,
				int job_status)
{
	add_events(map, size, t, from);
	add_feedback(map, size, feedback);
	add_outcome(map, size, cls, job_status);
}

void coverage_add_trace(uint8_t *map, size_t size, const struct trace *t, size_t from,
			const struct vm_feedback *feedback, enum exec_class cls, int job_status)
{
	struct thread_numbers threads = {.count = 0};
	unsigned int preemptions = 0, running = 0; /* the thread switched to last */
	uint64_t prev = 0x5eed;
	struct trace_iter it;
	struct trace_record r;
	const uint8_t *payload;

	trace_iter_init(&it, t->buf, t->len, from);
	while (trace_iter_next(&it, &r, &payload)) {
		uint64_t key;

		if (r.type == REWIND_EV_SWITCH) {
			running = thread_number(&threads, (uint32_t)r.args[1]);
			hit(map, size,
			    mix(prev, (uint64_t)thread_number(&threads, (uint32_t)r.args[0]) << 32 |
					      running));
			continue;
		}
		if (r.type == REWIND_EV_CONSOLE || r.type == TRACE_OUTCOME)
			continue; /* kernel chatter; the outcome goes in the tail */
		if (r.type == TRACE_PREEMPT && r.args[1] != PREEMPT_WHY_SLICE)
			hit(map, size, preemption_site(&r, running, &preemptions));
		key = mix((uint64_t)r.type << 32 | thread_number(&threads, r.tid),
			  event_detail(&r, payload));
		hit(map, size, mix(prev, key));
		prev = key;
	}
	add_feedback(map, size, feedback);
	add_outcome(map, size, cls, job_status);
}

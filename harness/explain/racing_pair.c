/* SPDX-License-Identifier: MIT */
#include "harness/explain/racing_pair.h"

#include "rewind/abi.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NONE	    SIZE_MAX
#define THREADS_MAX 256 /* threads told apart when reordering */

/* A log seen from where it diverges: each event's occurrence and the store each load read. */
struct view {
	const struct vm_event_log *log;
	size_t from;	/* the first event after the common prefix */
	uint32_t *occ;	/* per event: earlier events of its thread at its pc, from `from` */
	size_t *source; /* per load: the index of the store it read (NONE: before `from`) */
	size_t *by_id;	/* hash table of event indexes by identity */
	size_t id_mask;
};

static int kind(const struct vm_event *e)
{
	return (int)REWIND_SCHED_KIND_OF(e->what);
}

static bool is_load(const struct vm_event *e)
{
	return e->addr && (kind(e) == REWIND_SCHED_READ || kind(e) == REWIND_SCHED_ATOMIC);
}

static bool is_store(const struct vm_event *e)
{
	return e->addr && (kind(e) == REWIND_SCHED_WRITE || kind(e) == REWIND_SCHED_ATOMIC);
}

static uint64_t mix(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^
		     (b + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull ^
		     c * 0x94d049bb133111ebull;

	return h ^ h >> 31;
}

static size_t table_size(size_t n)
{
	size_t size = 1024;

	while (size < 2 * n)
		size *= 2;
	return size;
}

/* Occurrence numbers: a (tid, pc) count per event, from v->from. */
static int number_occurrences(struct view *v, size_t n)
{
	size_t size = table_size(n), mask = size - 1;
	size_t *slot = malloc(size * sizeof(*slot));
	uint32_t *count = calloc(size, sizeof(*count));

	if (!slot || !count) {
		free(slot);
		free(count);
		return -ENOMEM;
	}
	memset(slot, 0xff, size * sizeof(*slot));
	for (size_t i = v->from; i < v->log->count; i++) {
		const struct vm_event *e = &v->log->at[i];
		size_t h = mix(e->tid, e->pc, 1) & mask;

		while (slot[h] != NONE &&
		       (v->log->at[slot[h]].tid != e->tid || v->log->at[slot[h]].pc != e->pc))
			h = (h + 1) & mask;
		if (slot[h] == NONE)
			slot[h] = i;
		v->occ[i] = count[h]++;
	}
	free(slot);
	free(count);
	return 0;
}

/* The store each load read: the last store to its address before it. */
static int find_sources(struct view *v, size_t n)
{
	size_t size = table_size(n), mask = size - 1;
	size_t *last = malloc(size * sizeof(*last));

	if (!last)
		return -ENOMEM;
	memset(last, 0xff, size * sizeof(*last));
	for (size_t i = v->from; i < v->log->count; i++) {
		const struct vm_event *e = &v->log->at[i];
		size_t h;

		if (!e->addr)
			continue;
		h = mix(e->addr, 0, 2) & mask;
		while (last[h] != NONE && v->log->at[last[h]].addr != e->addr)
			h = (h + 1) & mask;
		if (is_load(e))
			v->source[i] = last[h];
		if (is_store(e))
			last[h] = i;
	}
	free(last);
	return 0;
}

static bool same_identity(const struct view *a, size_t i, const struct view *b, size_t j)
{
	return a->log->at[i].tid == b->log->at[j].tid && a->log->at[i].pc == b->log->at[j].pc &&
	       a->occ[i] == b->occ[j];
}

static size_t id_hash(const struct view *v, size_t i)
{
	return mix(v->log->at[i].tid, v->log->at[i].pc, v->occ[i]) & v->id_mask;
}

static int index_identities(struct view *v, size_t n)
{
	size_t size = table_size(n);

	v->id_mask = size - 1;
	v->by_id = malloc(size * sizeof(*v->by_id));
	if (!v->by_id)
		return -ENOMEM;
	memset(v->by_id, 0xff, size * sizeof(*v->by_id));
	for (size_t i = v->from; i < v->log->count; i++) {
		size_t h = id_hash(v, i);

		while (v->by_id[h] != NONE)
			h = (h + 1) & v->id_mask;
		v->by_id[h] = i;
	}
	return 0;
}

/* The event of v with the identity of event i of other, or NONE. */
static size_t lookup(const struct view *v, const struct view *other, size_t i)
{
	size_t h = mix(other->log->at[i].tid, other->log->at[i].pc, other->occ[i]) & v->id_mask;

	while (v->by_id[h] != NONE && !same_identity(v, v->by_id[h], other, i))
		h = (h + 1) & v->id_mask;
	return v->by_id[h];
}

static int view_open(struct view *v, const struct vm_event_log *log, size_t from)
{
	size_t n = log->count > from ? log->count - from : 0;
	int rc;

	*v = (struct view){.log = log, .from = from};
	v->occ = calloc(log->count + 1, sizeof(*v->occ));
	v->source = malloc((log->count + 1) * sizeof(*v->source));
	if (!v->occ || !v->source)
		return -ENOMEM;
	memset(v->source, 0xff, (log->count + 1) * sizeof(*v->source));
	rc = number_occurrences(v, n);
	if (!rc)
		rc = find_sources(v, n);
	if (!rc)
		rc = index_identities(v, n);
	return rc;
}

static void view_close(struct view *v)
{
	free(v->occ);
	free(v->source);
	free(v->by_id);
}

static bool moved(const struct vm_event *e)
{
	return e->what & (VM_EVENT_LANDED_PREEMPT | VM_EVENT_LANDED_PRIORITY);
}

/*
 * An access as it happened: a load's value is what it read, a store's what
 * it wrote. The log has the value before each event, and the value when
 * the thread's next event came (after the access), which is what a store
 * wrote, and what a load read that ran later than its record because a
 * preemption landed there.
 */
static struct access access_at(const struct view *v, size_t i, bool as_store)
{
	const struct vm_event *e = &v->log->at[i];
	bool after_known = e->what & VM_EVENT_AFTER;
	struct access a = {.tid = e->tid,
			   .pc = e->pc,
			   .addr = e->addr,
			   .what = e->what & 0xffff,
			   .write = is_store(e) && !is_load(e),
			   .value = e->value,
			   .value_known = !moved(e),
			   .index = e->index};

	/* a read-modify-write as the store: what it left */
	if (a.write || moved(e) || (as_store && is_store(e))) {
		a.value = e->after;
		a.value_known = after_known;
	}
	return a;
}

static bool same_source(const struct view *f, size_t fs, const struct view *p, size_t ps)
{
	if (fs == NONE || ps == NONE)
		return fs == ps;
	return same_identity(f, fs, p, ps);
}

/* The first load of the failing run that reads another store in the passing run. */
static void compare(const struct view *f, const struct view *p, struct racing_pair *pair)
{
	for (size_t i = f->from; i < f->log->count; i++) {
		size_t j, ps, store_in_f;

		if (!is_load(&f->log->at[i]) || (j = lookup(p, f, i)) == NONE)
			continue;
		ps = p->source[j];
		if (same_source(f, f->source[i], p, ps) || ps == NONE ||
		    p->log->at[ps].tid == f->log->at[i].tid)
			continue;
		store_in_f = lookup(f, p, ps);
		pair->found = true;
		pair->first = access_at(f, i, false);
		pair->second = store_in_f != NONE ? access_at(f, store_in_f, true)
						  : access_at(p, ps, true);
		pair->second_after = store_in_f != NONE && store_in_f > i;
		return;
	}
}

/*
 * The log in the order the accesses happened. An event is logged when it is
 * counted, before its access; where a preemption or a priority change
 * landed, the thread may lose the CPU right there, and its access comes
 * when it runs again: just before its next event.
 */
static int in_access_order(const struct vm_event_log *log, struct vm_event_log *out)
{
	size_t pending[THREADS_MAX], n = 0;
	uint32_t tids[THREADS_MAX], threads = 0;

	*out = (struct vm_event_log){.cap = log->count, .count = log->count};
	out->at = malloc((log->count + 1) * sizeof(*out->at));
	if (!out->at)
		return -ENOMEM;
	for (size_t i = 0; i < log->count; i++) {
		const struct vm_event *e = &log->at[i];
		uint32_t t = 0;

		while (t < threads && tids[t] != e->tid)
			t++;
		if (t == threads && threads < THREADS_MAX) {
			tids[threads] = e->tid;
			pending[threads++] = NONE;
		}
		if (t < threads && pending[t] != NONE) {
			out->at[n++] = log->at[pending[t]];
			pending[t] = NONE;
		}
		if (moved(e) && t < threads)
			pending[t] = i;
		else
			out->at[n++] = *e;
	}
	for (uint32_t t = 0; t < threads; t++)
		if (pending[t] != NONE)
			out->at[n++] = log->at[pending[t]];
	return 0;
}

int racing_pair_find(const struct vm_event_log *fail_log, const struct vm_event_log *pass_log,
		     struct racing_pair *pair)
{
	struct view f = {0}, p = {0};
	struct vm_event_log fail_ordered = {0}, pass_ordered = {0};
	const struct vm_event_log *fail = &fail_ordered, *pass = &pass_ordered;
	size_t d = 0;
	int rc = in_access_order(fail_log, &fail_ordered);

	if (!rc)
		rc = in_access_order(pass_log, &pass_ordered);
	if (rc) {
		free(fail_ordered.at);
		free(pass_ordered.at);
		return rc;
	}

	while (d < fail->count && d < pass->count &&
	       !memcmp(&fail->at[d], &pass->at[d], sizeof(fail->at[d])))
		d++;
	pair->diverge_index = d < fail->count ? fail->at[d].index : 0;
	rc = view_open(&f, fail, d);
	if (!rc)
		rc = view_open(&p, pass, d);
	if (!rc)
		compare(&f, &p, pair);
	view_close(&f);
	view_close(&p);
	free(fail_ordered.at);
	free(pass_ordered.at);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * The event trace of a run: every event record the guest sent, and the
 * VMM's own events, each stamped with the step it happened at. Its running
 * XXH3 hash is the run's fingerprint: equal traces, equal hashes.
 *
 * File format (little-endian): "RWTRACE1", then records, each a struct
 * trace_record followed by len payload bytes.
 */
#ifndef REWIND_TRACE_H
#define REWIND_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <xxhash.h>

#define TRACE_MAGIC "RWTRACE1"

/* Types below 0x100 are the guest's (enum rewind_event_type); these are the VMM's. */
enum trace_vmm_type {
	TRACE_READY = 0x100,	  /* rewind-init reached the keyframe point */
	TRACE_JOB_STATUS = 0x101, /* arg0: the job's wait status */
	TRACE_POWER = 0x102,	  /* arg0: enum rewind_power */
	TRACE_OUTCOME = 0x103,	  /* arg0: enum vm_outcome; payload: detail */
	TRACE_PREEMPT = 0x104,	  /* arg1: enum preempt_why; counter mode: arg0: block count,
				   * arg2: the block's address in the program; preempt-insns:
				   * arg0: the step counted from, arg2: the landing address */
	TRACE_INJECT = 0x105,	  /* a step injection applied (stall, resched, timer-late,
				   * preempt-insns): arg0 kind, arg1 its argument, arg2 its
				   * index in the schedule sorted by step */
	TRACE_SPIN_YIELD = 0x106, /* a pure spin yielded at its fixed point (vmm/spin_rescue.c):
				   * tid the task, arg0 its user RIP, arg1 the ns it sleeps */
};

/* Why a TRACE_PREEMPT preempted. */
enum preempt_why {
	PREEMPT_WHY_BLOCK = 0,	/* a `preempt` injection (counter mode) */
	PREEMPT_WHY_SLICE = 1,	/* the default time slice (counter mode) */
	PREEMPT_WHY_INSNS = 2,	/* a `preempt-insns` injection (single-stepped) */
	PREEMPT_WHY_DEMOTE = 3, /* a `demote` (pct mode): arg0 event count, arg2 address */
	PREEMPT_WHY_FAIR =
		4, /* pct: the step budget ran out, the kernel's fair scheduler goes on */
};

struct trace_record {
	uint64_t step;
	uint32_t type;
	uint32_t len; /* payload bytes that follow */
	uint32_t pid;
	uint32_t tid;
	uint64_t args[3];
};

struct trace {
	uint8_t *buf; /* records as in the file, without the magic */
	size_t len, cap;
	uint64_t count;
	XXH3_state_t *hash;
};

int trace_init(struct trace *t);
void trace_free(struct trace *t);

/* Makes room for more bytes (never shrinks): preallocate so appends do not allocate. */
void trace_reserve(struct trace *t, size_t more);

/* Appends one record and its payload (len bytes). */
void trace_append(struct trace *t, const struct trace_record *rec, const void *payload);

/* Replaces the trace with count records in data (as trace_append left them). */
void trace_restore(struct trace *t, const void *data, size_t len, uint64_t count);

/*
 * A walk over records as trace_append lays them out, in bytes that may come
 * from an untrusted file: a record is read only if its header and all of
 * its payload lie inside the bytes, so a hostile length cannot read past
 * them. at is the byte offset of the next record.
 */
struct trace_iter {
	const uint8_t *buf;
	size_t len, at;
};

/* A walk over the len bytes of records at buf, starting at byte offset from. */
void trace_iter_init(struct trace_iter *it, const void *buf, size_t len, size_t from);

/*
 * The next record (copied, as the bytes need not be aligned) and, if
 * payload is not NULL, where its rec->len payload bytes start. False at the
 * end, or where a record would run past the bytes (it->at stays at it).
 */
bool trace_iter_next(struct trace_iter *it, struct trace_record *rec, const uint8_t **payload);

/* True when the walk ended exactly at the end of the bytes (no truncated record). */
bool trace_iter_at_end(const struct trace_iter *it);

/* trace_iter_next over t's records from byte offset *at, moving *at past the record. */
bool trace_next(const struct trace *t, size_t *at, struct trace_record *rec,
		const uint8_t **payload);

/* XXH3-64 of all records so far. */
uint64_t trace_hash(const struct trace *t);

/* Writes the trace file atomically (temporary file, then rename). */
int trace_write(const struct trace *t, const char *path);

#endif

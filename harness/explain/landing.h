/* SPDX-License-Identifier: MIT */
/*
 * Where each injection of a failing run landed, read from its trace (and,
 * for step injections, from the user context the VMM captured when it
 * applied them, vmm/user_context.h): the thread it hit (tid, its process,
 * its ordinal in that process, the process's program), the code it was in
 * (function, file:line through harness/explain/symbols.h, with the calls that led
 * there) and what the job's other threads were doing.
 */
#ifndef REWIND_LANDING_H
#define REWIND_LANDING_H

#include "harness/executor.h"
#include "harness/explain/symbols.h"
#include "vmm/user_context.h"

#define LANDING_CALLERS	   6
#define LANDING_THREADS	   16
#define LANDING_MAX	   32
#define LANDING_OUTPUT_LEN 120

struct thread_ref {
	uint32_t tid, pid;
	uint32_t ordinal; /* 1: the process's main thread, then in order of creation */
	char exe[128];	  /* the program the process runs ("" if unknown) */
};

struct other_thread {
	struct thread_ref thread;
	uint64_t last_ran_step; /* the job step it last ran at */
	char last_output[LANDING_OUTPUT_LEN];
	bool exited;
};

struct landing {
	uint32_t index; /* in the input's schedule as sorted for the run */
	struct injection inj;
	uint64_t step;	/* the job step it acted at */
	uint64_t event; /* counter and pct modes: the event count (0 otherwise) */
	bool has_thread;
	struct thread_ref thread;
	bool has_site;
	struct code_location site; /* where the thread was (for events: the event's site) */
	struct code_location callers[LANDING_CALLERS];
	unsigned int caller_count;
	char last_output[LANDING_OUTPUT_LEN]; /* the thread's last output line up to here */
	struct other_thread others[LANDING_THREADS];
	unsigned int other_count;
};

/* A thread of the trace by tid, as known at a point of the trace walk. */
struct thread_table {
	struct thread_ref t[64];
	uint64_t last_ran[64];
	bool exited[64];
	char last_output[64][LANDING_OUTPUT_LEN];
	unsigned int count;
	uint32_t current; /* the tid running now (0: idle) */
	uint32_t job_pid; /* the job's process (its first exec after READY) */
};

/* Feeds one trace record to the table (ready_step: READY's absolute step). */
void thread_table_feed(struct thread_table *tt, const struct trace_record *r,
		       const uint8_t *payload, uint64_t ready_step);

/* The thread with tid, or NULL. */
const struct thread_ref *thread_table_find(const struct thread_table *tt, uint32_t tid);

/*
 * The landings of the run ex just made (its trace; contexts: the user
 * contexts captured for step injections, in order, ncontexts of them),
 * symbolized with syms (may be closed: no code locations). Returns the
 * number found (at most max).
 */
unsigned int landings_of(const struct executor *ex, const struct user_context *contexts,
			 unsigned int ncontexts, const struct symbols *syms, struct landing *out,
			 unsigned int max);

/* "thread 1 (tid 63, the main thread of /bin/ledger)" */
void thread_ref_text(const struct thread_ref *t, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The software counter of an instrumented job and its event log; see
 * vmm/counter.c.
 */
#ifndef REWIND_COUNTER_H
#define REWIND_COUNTER_H

#include "vmm/schedule.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The software counter of an instrumented job (vmm/counter.c): basic blocks
 * counted by the guest runtime, which reads REWIND_PORT_COUNTER each time
 * the countdown the VMM handed out runs down.
 */
#define COUNTER_PROCESSES 8 /* processes whose countdowns the VMM keeps at once */

/*
 * The countdown handed out to one process at its last read. Each process
 * counts down its own (its threads share it): a runner that forks and
 * execs the test, as libuv's does, holds a countdown of up to a time slice
 * while it waits, and the test's reads must not count it as run.
 */
struct counter_owed {
	bool used;
	uint32_t pid; /* REWIND_COUNTER_PROCESS_SHIFT's process (0: the kernel's, or one) */
	uint32_t armed;
	uint32_t log_left; /* event log: events the real countdown has left */
	uint64_t last; /* the read that used it last (vm_counter.reads): the oldest makes room */
};

struct vm_counter {
	bool started;	    /* the job's runtime made its first read */
	bool kernel_events; /* the guest kernel counts the events (REWIND_RT_KERNEL_EVENTS) */
	bool racy;	    /* the runtime counts racy events: it has the site map (vmm/sites.c) */
	uint64_t blocks;    /* blocks run up to the last read */
	struct counter_owed owed[COUNTER_PROCESSES];
	uint64_t reads;	      /* counter reads so far */
	uint64_t slice_start; /* blocks at the last preemption (time slice) */
	uint64_t slices;      /* time slices started so far: the current one's length (counter.c) */
	/* the schedule's injections that act at events (preempt, demote) */
	struct schedule_queue event_queue;
	/* reads that said preempt whose OUTL has not come yet: more than one when
	 * another thread reads between a read and its OUTL (the runtime takes a
	 * new priority first, a system call where the kernel may switch) */
	uint32_t preempts_due;
	/*
	 * A read is no place for an interrupt or an injection: the runtime has
	 * not stored its next countdown yet, and a thread switched in there
	 * would count down from 0 (4 billion events without a read). hold: the
	 * last exit was a read where a timer or an injection was due; they wait
	 * for the next exit. ack_next: that read said preempt for this, and the
	 * next exit is its OUTL (no system call comes between them).
	 */
	bool hold, ack_next;
	uint32_t threads; /* pct: thread priorities handed out so far */
	/* pct: the step budget ran out and the run goes on under the kernel's
	 * fair scheduler (counter_go_fair) until fair_until */
	bool fair;
	uint64_t fair_until;
	/* pct: the walk page of the process that counts each thread's events (vmm/pct.c) */
	uint64_t walk_page;
	uint32_t walk_pid;
};

/*
 * The event log (vmm/counter.c): every schedule event of an instrumented
 * job's run, on request (vm->event_log). A logged run is the same run as an
 * unlogged one: the same steps, virtual time, injections and trace.
 */
struct vm_event {
	uint64_t index; /* the event's number since the job's runtime started (1, 2, ...) */
	uint32_t tid;	/* the guest thread that ran it (from the context-switch records) */
	uint32_t what;	/* kind << 8 | size (include/rewind/abi.h), VM_EVENT_LANDED_* */
	uint64_t pc;	/* the code address of the event */
	uint64_t addr;	/* the data address (0: none) */
	uint64_t value; /* the first min(size, 8) bytes at addr before the access; 0 if unmapped */
	uint64_t after; /* VM_EVENT_AFTER: the same bytes when its thread's next event came, or
			 * its process ended (the access had happened: a store's value, a
			 * landed load's) */
};

/*
 * Set in a vm_event's `what` where a preemption or a priority change landed,
 * before the event: its access happened when the thread ran again, after
 * the events logged next up to that thread's next one (value is as of the
 * landing).
 */
#define VM_EVENT_LANDED_PREEMPT	 (1u << 16)
#define VM_EVENT_LANDED_PRIORITY (1u << 17)
#define VM_EVENT_AFTER		 (1u << 18) /* `after` is known */
#define VM_EVENT_THREADS	 64	    /* threads whose last event a log remembers */

struct vm_event_log {
	struct vm_event *at; /* cap entries, the caller's */
	uint32_t cap, count;
	uint64_t dropped; /* events past cap, not logged */
	/* each thread's last logged event, whose `after` its next event fills in */
	uint32_t last_tid[VM_EVENT_THREADS], last_at[VM_EVENT_THREADS], threads;
	uint32_t last_pid[VM_EVENT_THREADS]; /* its process (REWIND_COUNTER_PROCESS_SHIFT) */
	/* once cap events are logged, the rest of the run is not (its events
	 * cost no exit each), and only the events at real reads are counted in
	 * dropped: the run is the same, a long one is not slowed down */
	bool stop_when_full;
};

struct vm;

/* A new execution of vm->schedule: the counter starts afresh, with its injections queued. */
void counter_reset(struct vm *vm);

/* The instrumented job's counter ran down (or starts): returns its next countdown. */
uint32_t counter_read(struct vm *vm);

/*
 * Event log: a counter read at an event before the real countdown runs out
 * logs the event and answers 1 in *answer; the exit is no step and moves
 * nothing else. False for any other read (counter_read handles it).
 */
bool counter_read_unseen(struct vm *vm, uint32_t *answer);

/* An event's `what` as a name: "read4", "write8", "atomic4", "sync", "block" ("?": unknown). */
void counter_event_name(uint32_t what, char *name, size_t len);

/*
 * The runtime stored its countdown and asks for the preemption the last read
 * announced (an OUTL on REWIND_PORT_COUNTER; value ignored).
 */
void counter_preempt(struct vm *vm, uint32_t value);

/* Process pid's runtime says left of its countdown remain: its events so far are counted. */
void counter_settle(struct vm *vm, uint64_t left, uint32_t pid);

/*
 * pct mode, the step budget ran out: the run goes on for budget more steps
 * under the kernel's fair scheduler (no more priorities or change points).
 */
void counter_go_fair(struct vm *vm, uint64_t budget);

#endif

/*
 * A deterministic machine: one vCPU, guest RAM, the local APIC, the virtual
 * clock, the Rewind ports and the event trace, driven by one run loop that
 * ends with exactly one outcome. Never hangs: a step budget bounds the
 * guest's exits and a wall budget bounds the time between two exits.
 */
#ifndef REWIND_VM_H
#define REWIND_VM_H

#include "rewind/abi.h"
#include "vmm/clock.h"
#include "vmm/kvm.h"
#include "vmm/schedule.h"
#include "vmm/trace.h"
#include "vmm/watchdog.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum vm_outcome {
	VM_RUNNING = 0,
	VM_EXITED,	 /* the job ended and the guest powered off */
	VM_POWER_OFF,	 /* the guest powered off without a job status */
	VM_PANIC,	 /* guest kernel panic */
	VM_DEADLOCK,	 /* idle with no timer armed: nothing can ever happen */
	VM_STUCK,	 /* no exit for longer than the wall budget */
	VM_STEP_BUDGET,	 /* more steps than allowed */
	VM_GUEST_FAULT,	 /* invalid Rewind call, unknown port or MMIO, triple fault */
	VM_HOST_ERROR,	 /* KVM or the host failed */
	VM_WALL_BUDGET,	 /* the run took longer than its wall budget (host-timed) */
	VM_TRACE_BUDGET, /* the trace outgrew its byte budget: a flood of output or events */
};

#define VM_TRACE_MAX_DEFAULT (64ull << 20) /* bytes of trace a run may make */

struct vm_config {
	uint64_t ram_size;
	uint64_t epoch_ns;	/* wall clock at power-on */
	uint64_t quantum_ns;	/* virtual time per step */
	uint64_t step_budget;	/* 0 = unlimited */
	uint64_t stuck_ms;	/* wall time allowed between two exits */
	bool counter_mode;	/* an instrumented job counts events; else it is told to stop */
	bool pct;		/* priority schedules (PCT): thread priorities and demotions */
	uint64_t pct_events;	/* pct: the job's profiled events, what demote positions divide */
	uint64_t slice_blocks;	/* counter mode: preempt every N events (0: never) */
	uint32_t countdown_max; /* read at least every N events (0: the ABI's maximum) */
	uint64_t block_ns;	/* counter mode: virtual time an event costs */
	uint64_t wall_ms;	/* wall time allowed for one vm_run (0 = unlimited) */
	uint64_t trace_max;	/* trace bytes allowed (0: VM_TRACE_MAX_DEFAULT) */
	FILE *output;		/* guest program output goes here as it happens */
	FILE *console;		/* kernel console text goes here (NULL: kept in trace only) */
	uint32_t exec_seed[REWIND_SEED_WORDS]; /* read by the guest after READY */
	bool stop_at_ready;		       /* vm_run returns at READY (for a keyframe) */
	bool track_dirty;		       /* dirty logging on guest RAM, for keyframes */
};

/*
 * The software counter of an instrumented job (vmm/counter.c): basic blocks
 * counted by the guest runtime, which reads REWIND_PORT_COUNTER each time
 * the countdown the VMM handed out runs down.
 */
struct vm_counter {
	bool started;	      /* the job's runtime made its first read */
	uint64_t blocks;      /* blocks run up to the last read */
	uint32_t armed;	      /* the countdown handed out at the last read */
	uint64_t slice_start; /* blocks at the last preemption (time slice) */
	uint32_t next;	      /* first event injection not applied yet (in vm->schedule) */
	bool preempt_due;     /* the last read said preempt: the runtime's OUTL comes next */
	uint32_t threads;     /* pct: thread priorities handed out so far */
	uint32_t log_left;    /* event log: events the real countdown has left */
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
	uint64_t after; /* VM_EVENT_AFTER: the same bytes when its thread's next event came (the
			 * access had happened: a store's value, a landed load's) */
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
};

/*
 * The runtime's feedback map (vmm/feedback.c): features (reads-from pairs,
 * lock order) the instrumented job sets in its own memory; the VMM ORs them
 * into `seen` while the job's process is alive.
 */
struct vm_feedback {
	bool registered;
	uint32_t pid;				    /* the process whose map it is */
	uint64_t gpa[REWIND_FEEDBACK_BYTES / 4096]; /* its pages */
	uint8_t seen[REWIND_FEEDBACK_BYTES];
	bool any; /* some bit of seen is set */
};

struct user_context;

struct vm {
	struct kvm_machine km;
	struct vm_config cfg;
	const char *cpu_model;
	struct vclock clock;
	uint64_t steps;
	uint64_t shared_gpa; /* 0 until the guest registers it */
	struct trace trace;
	enum vm_outcome outcome;
	int job_status; /* valid if has_job_status */
	bool has_job_status;
	uint64_t ready_step; /* 0 until rewind-init says ready */
	unsigned int seed_words_read;
	bool paused; /* stopped at READY for a keyframe; vm_run resumes */
	/* the execution's injections (sorted by step), see vmm/inject.c */
	const struct schedule *schedule;
	uint32_t schedule_next; /* first injection not applied yet */
	uint64_t timer_late_ns; /* the next timer fires this much late */
	uint64_t injected;	/* injections applied so far */
	/* explaining a failure: where each step injection landed (NULL: not asked) */
	struct user_context *landings;
	uint32_t landing_cap, landing_count;
	struct vm_counter counter;
	struct vm_feedback feedback;
	/* preempt-insns (vmm/single_step.c) */
	bool single_stepping;	    /* a task is stepped: #DB traps exit to the VMM */
	bool stepping_user;	    /* its first trap came: KVM single-steps too */
	uint32_t stepping_left;	    /* instructions to go */
	uint64_t stepping_from;	    /* the step the landing counts from */
	uint64_t stepped;	    /* instructions single-stepped so far */
	uint64_t stray_debug_exits; /* debug exits after stepping ended (ignored) */
	uint64_t progress;	    /* exits of any kind: what the watchdog watches */
	struct watchdog watchdog;   /* one thread for every vm_run, ended by vm_destroy */
	char detail[256];	    /* human-readable outcome detail */

	/* the event log (vmm/counter.c): NULL, or every schedule event goes there */
	struct vm_event_log *event_log;
	uint32_t current_tid; /* the thread the newest context-switch record switched to */
};

/* Creates the KVM machine (RAM, APIC, vCPU, CPU model). */
int vm_create(struct vm *vm, const struct vm_config *cfg);

/* Runs until an outcome (or READY with cfg.stop_at_ready); returns the outcome. */
enum vm_outcome vm_run(struct vm *vm);

void vm_destroy(struct vm *vm);

const char *vm_outcome_name(enum vm_outcome outcome);

/* Ends the run with an outcome and a printf-style detail (first call wins). */
void vm_finish(struct vm *vm, enum vm_outcome outcome, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The Rewind port handlers (vmm/ports.c): one OUTL the guest made. */
/* A write to a port only the guest kernel may use, from user space: a guest fault (true). */
bool ports_from_user(struct vm *vm, uint16_t port);
void ports_handle(struct vm *vm, uint16_t port, uint32_t value);

/* The one INL the ABI has: the next word of the execution seed. */
uint32_t ports_read_seed(struct vm *vm);

/* After every step: refreshes the shared page and fires a due timer (vmm/ports.c). */
void ports_fire_due_timer(struct vm *vm);

/* Raises reason bits in the shared page and injects the callback vector. */
void vm_raise(struct vm *vm, uint32_t pending_bits);

/* The page shared with the guest, NULL until the guest registers it (vmm/ports.c). */
struct rewind_shared *vm_shared(struct vm *vm);

/* Takes the context switches the guest recorded since the last exit (vmm/ports.c). */
void ports_take_switches(struct vm *vm);

/* The thread running now: the newest context-switch record, taken or not (vmm/ports.c). */
uint32_t ports_current_tid(struct vm *vm);

/* Sets the injections of the next execution (sorted, kept by the caller; NULL: none). */
void inject_set_schedule(struct vm *vm, const struct schedule *s);

/* Applies every injection due at the current step, before the guest re-enters. */
void inject_due(struct vm *vm);

/* Preempts the running user task after insns of its user-mode instructions (vmm/single_step.c). */
void single_step_start(struct vm *vm, uint16_t insns);
void single_step_exit(struct vm *vm); /* a KVM_EXIT_DEBUG */
void single_step_stop(struct vm *vm);
/* At each exit while stepping: ends it if the guest found no user task to step. */
void single_step_check(struct vm *vm);

/* The instrumented job's counter ran down (or starts): returns its next countdown. */
uint32_t counter_read(struct vm *vm);

/*
 * Event log: a counter read at an event before the real countdown runs out
 * logs the event and answers 1 in *answer; the exit is no step and moves
 * nothing else. False for any other read (counter_read handles it).
 */
bool counter_read_unseen(struct vm *vm, uint32_t *answer);

/* An event's `what` as a name: "read4", "write8", "atomic4", "sync", "block" ("?": unknown). */
void vm_event_name(uint32_t what, char *name, size_t len);

/* The runtime stored its countdown and asks for the preemption the last read announced. */
void counter_preempt(struct vm *vm);

/* The runtime says left of its countdown remain: the events run so far are counted. */
void counter_settle(struct vm *vm, uint64_t left);

/* pct: the priority of the job's next thread (0 outside pct mode), vmm/pct.c. */
uint32_t pct_thread_priority(struct vm *vm);

/* An INL on REWIND_PORT_RUNTIME: one call of the job's runtime (vmm/runtime_calls.c). */
uint32_t runtime_call(struct vm *vm);

/* The runtime's feedback map (vmm/feedback.c). */
uint32_t feedback_register(struct vm *vm, uint64_t gva, uint32_t pid);
void feedback_read(struct vm *vm);
/* An event the guest sent: the map is read before its process dies. */
void feedback_on_event(struct vm *vm, const struct trace_record *rec);

#endif

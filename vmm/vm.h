/* SPDX-License-Identifier: MIT */
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
/* the parts of the machine whose state struct vm holds, and how a run ends */
#include "vmm/counter.h"
#include "vmm/feedback.h"
#include "vmm/single_step.h"
#include "vmm/spin_rescue.h"
#include "vmm/vm_outcome.h"
#include "vmm/watchdog.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define VM_TRACE_MAX_DEFAULT (64ull << 20) /* bytes of trace a run may make */
#define VM_BOOT_STUCK_MS     60000ull	   /* the stuck budget before READY, at least */
#define VM_BOOT_STUCK_MS_MIB 1000ull	   /* and this much more per MiB of image to unpack */

struct pct_walk_profile;

struct vm_config {
	uint64_t ram_size;
	uint64_t epoch_ns;    /* wall clock at power-on */
	uint64_t quantum_ns;  /* virtual time per step */
	uint64_t step_budget; /* 0 = unlimited */
	uint64_t stuck_ms;    /* wall time allowed between two exits */
	bool counter_mode;    /* an instrumented job counts events; else it is told to stop */
	bool pct;	      /* priority schedules (PCT): thread priorities and demotions */
	bool pct_wide;	      /* pct: priorities drawn 50..95, not 16..95 (vmm/pct.c) */
	/* pct: a walk (the input's walk flag), weighted by the walk_profile
	 * (NULL: equal weights); walk_count: a run that counts each thread's
	 * events there (the job's profile run) */
	bool pct_walk;
	const struct pct_walk_profile *walk_profile;
	struct pct_walk_profile *walk_count;
	uint64_t pct_events; /* pct: the job's profiled events, what demote positions divide */
	/* pct, an input with the racy-events flag: the quiet sites of the
	 * profile runs (REWIND_SITE_BYTES, vmm/sites.c) and the profile's events
	 * counted as such a run counts them */
	bool racy;
	const uint8_t *site_map;
	uint64_t pct_racy_events;
	uint64_t slice_blocks;	    /* counter mode: preempt every N events (0: never) */
	uint64_t fair_slice_blocks; /* pct's fair continuation: the same (counter mode's) */
	uint32_t countdown_max;	    /* read at least every N events (0: the ABI's maximum) */
	uint64_t block_ns;	    /* counter mode: virtual time an event costs */
	uint64_t wall_ms;	    /* wall time allowed for one vm_run (0 = unlimited) */
	uint64_t trace_max;	    /* trace bytes allowed (0: VM_TRACE_MAX_DEFAULT) */
	FILE *output;		    /* guest program output goes here as it happens */
	FILE *console;		    /* kernel console text goes here (NULL: kept in trace only) */
	uint32_t exec_seed[REWIND_SEED_WORDS]; /* written into the guest at READY (vmm/seed.c) */
	bool stop_at_ready;		       /* vm_run returns at READY (for a keyframe) */
	bool track_dirty;		       /* dirty logging on guest RAM, for keyframes */
	const char
		*kernel_path; /* the booted bzImage: names a stuck kernel RIP (vmm/kernel_map.h) */
};

struct user_context;

/* Where a stuck vCPU was when the host noticed: its RIP, in the job's code (CPL 3) or not. */
struct vm_stuck {
	uint64_t rip;
	bool in_user;
};

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
	uint64_t ready_step;  /* 0 until rewind-init says ready */
	uint32_t job_tasks;   /* the job's live tasks: fork less exit events since READY */
	uint64_t image_bytes; /* the initramfs the boot unpacks (its stuck budget grows with it) */
	uint64_t seed_gpa;    /* rewind-init's seed buffer, named at READY (vmm/seed.c) */
	bool paused;	      /* stopped at READY for a keyframe; vm_run resumes */
	/* the execution's injections (sorted by step), see vmm/inject.c */
	const struct schedule *schedule;
	struct schedule_queue step_queue; /* its injections that act at steps */
	uint64_t timer_late_ns;		  /* the next timer fires this much late */
	uint64_t injected;		  /* injections applied so far */
	/* explaining a failure: where each step injection landed (NULL: not asked) */
	struct user_context *landings;
	uint32_t landing_cap, landing_count;
	struct vm_counter counter;
	struct vm_feedback feedback;
	struct single_step single_step; /* preempt-insns (vmm/single_step.c) */
	uint64_t progress;		/* exits of any kind: what the watchdog watches */
	struct watchdog watchdog;	/* one thread for every vm_run, ended by vm_destroy */
	char detail[256];		/* human-readable outcome detail */
	struct vm_stuck stuck;		/* VM_STUCK: where (not in the trace: report_stuck) */
	struct spin_rescue rescue; /* looks for a pure spin's fixed point (vmm/spin_rescue.c) */
	uint64_t rescue_ms;	   /* ... after this much quiet (vm.c rescue_budget_ms) */

	/* the event log (vmm/counter.c): NULL, or every schedule event goes there */
	struct vm_event_log *event_log;
	uint32_t current_tid; /* the thread the newest context-switch record switched to */
};

/* Creates the KVM machine (RAM, APIC, vCPU, CPU model). */
int vm_create(struct vm *vm, const struct vm_config *cfg);

/* Runs until an outcome (or READY with cfg.stop_at_ready); returns the outcome. */
enum vm_outcome vm_run(struct vm *vm);

void vm_destroy(struct vm *vm);

#endif

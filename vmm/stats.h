/* SPDX-License-Identifier: MIT */
/*
 * Where an execution's time goes (bench/exec): the exits KVM handed the VMM
 * by reason and by Rewind port, and each keyframe restore split into its
 * parts. The counters are plain increments, always on; clocks are read only
 * when `timing` is set (bench/exec sets it), never on the fuzzing path. No
 * allocation, no I/O. Reset by zeroing (keeping `timing`).
 */
#ifndef REWIND_STATS_H
#define REWIND_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define VM_STATS_REASONS 48 /* KVM_EXIT_* counted one by one; any larger reason at the last */
#define VM_STATS_PORTS	 16 /* Rewind ports, 4 apart from REWIND_PORT_BASE; others at the last */
#define VM_STATS_EVENTS	 8  /* event records by type (REWIND_EV_EXEC .. REWIND_EV_PANIC) */

struct vm_stats {
	bool timing;	      /* read the clock around KVM_RUN and the restore's parts */
	uint64_t runs;	      /* KVM_RUN calls */
	uint64_t interrupted; /* KVM_RUN ended by a signal (EINTR): no exit reason */
	uint64_t exits[VM_STATS_REASONS];      /* by kvm_run->exit_reason */
	uint64_t io_ports[VM_STATS_PORTS + 1]; /* KVM_EXIT_IO by Rewind port, then any other */
	uint64_t unseen_reads;		       /* counter reads only the event log sees: no step */
	uint64_t run_ns;		       /* timing: inside KVM_RUN */
	uint64_t last_run_ns;		       /* timing: the last KVM_RUN alone */
	uint64_t io_port_run_ns[VM_STATS_PORTS + 1]; /* timing: KVM_RUN ended by each port */
	uint64_t events[VM_STATS_EVENTS];	     /* event records by type */
	uint64_t event_run_ns[VM_STATS_EVENTS];	     /* timing: KVM_RUN ended by each type */
	uint64_t watchdog_ns; /* timing: starting and stopping the watchdog */
	/* keyframe restores */
	uint64_t restores;
	uint64_t restore_pages;	      /* copied back: named by the dirty log (and changed) */
	uint64_t restore_vmm_pages;   /* copied back because the VMM wrote them */
	uint64_t restore_unchanged;   /* manual protection: named by the log but unchanged */
	uint64_t restore_reprotected; /* manual protection: write-protected again */
	uint64_t dirty_log_ns;	      /* timing: KVM_GET_DIRTY_LOG, KVM_CLEAR_DIRTY_LOG */
	uint64_t copy_ns;	      /* timing: comparing and copying pages back */
	uint64_t vcpu_ns;	      /* timing: loading the vCPU state */
	uint64_t vmm_ns;	      /* timing: the VMM's own state */
};

/* A monotonic clock in ns when the stats time things, else 0 (no clock read). */
static inline uint64_t vm_stats_clock(const struct vm_stats *s)
{
	struct timespec ts;

	if (!s->timing || clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Adds the time since `since` (a vm_stats_clock value) to *to; returns the clock now. */
static inline uint64_t vm_stats_add_since(const struct vm_stats *s, uint64_t since, uint64_t *to)
{
	uint64_t now = vm_stats_clock(s);

	if (now > since && since)
		*to += now - since;
	return now;
}

/* Zeroes every counter; timing stays as it was. */
static inline void vm_stats_reset(struct vm_stats *s)
{
	bool timing = s->timing;

	*s = (struct vm_stats){.timing = timing};
}

#endif

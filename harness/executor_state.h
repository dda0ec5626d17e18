/* SPDX-License-Identifier: MIT */
/*
 * What an executor holds (harness/executor.h is what it does): its
 * configuration, the job's profiles, and an execution's result. Apart from
 * the API so that the files an executor is made of (harness/execution.c)
 * stand below it.
 */
#ifndef REWIND_EXECUTOR_STATE_H
#define REWIND_EXECUTOR_STATE_H

#include "harness/exec_class.h"
#include "harness/profile_record.h"
#include "schedule/input.h"
#include "vmm/keyframe.h"
#include "vmm/pct.h"
#include "vmm/run_inputs.h"
#include "vmm/vm.h"

#include <stdio.h>
#include <time.h>

struct executor_config {
	struct run_options run; /* kernel, initramfs, command, memory, step budget */
	uint64_t wall_ms;	/* wall budget of one execution */
	uint64_t slice_blocks;	/* counter mode: default time slice in blocks */
	uint64_t block_ns;	/* counter mode: virtual time of a block */
	uint64_t skip_status;	/* the job's exit code for "skipped" (0: none) */
	FILE *output;		/* guest output as it happens (NULL: kept in the trace only) */
	/* counter and pct modes: each execution's schedule events, from the
	 * start (count and dropped reset per execution); NULL: none */
	struct vm_event_log *event_log;
	/* an artifact of version 2 or before (harness/artifact.h): its racy-events
	 * input's sites come from profiles of seeds 1-3 with no change points */
	bool racy_profiles_unperturbed;
};

struct exec_result;

/*
 * The job's own run in one mode: seed 0, no schedule (executor.c
 * long_run_budgets), run the first time an execution of that mode runs out
 * of steps or trace.
 */
struct reference_run {
	bool measured;
	enum vm_outcome outcome; /* its end: out of steps or trace, or within its caps */
	uint64_t steps;		 /* steps after READY */
	uint64_t trace_bytes;	 /* trace bytes after the boot */
};

/*
 * Told of each racy-site profile run that is a PCT sample (executor.c
 * profile_racy), right after it ran: its input and result, with the run
 * still in the executor's vm (its trace and output, for an artifact).
 */
typedef void executor_sample_fn(void *ctx, const struct exec_input *in,
				const struct exec_result *res);

/*
 * A racy key's site map (harness/racy_sites.h): its quiet sites, and the
 * seed-0 profile's events counted by them (k for its racy inputs).
 */
struct racy_map {
	uint32_t key; /* input_racy_key of the inputs it is for */
	bool ok;      /* learned (else its inputs count every event: too many to log) */
	uint64_t events;
	uint64_t used; /* when last used, for which to replace */
	uint8_t sites[REWIND_SITE_BYTES];
};

/* The racy keys whose maps are kept: afl-fuzz -M/-S instances share their entries, one key each */
#define EXECUTOR_RACY_MAPS 4

struct executor {
	struct executor_config cfg;
	struct run_inputs in;
	struct vm vm;
	struct keyframe kf;
	size_t job_trace_from;	   /* trace bytes before the job: the boot */
	struct schedule sorted;	   /* the running input's schedule, by step */
	struct timespec opened;	   /* when executor_prepare began */
	double boot_s;		   /* wall time to prepare, boot and capture */
	uint64_t base_initrd_hash; /* XXH3-64 of the base initramfs */
	uint64_t job_hash;	   /* XXH3-64 of the job's archive (command, added files) */
	uint64_t pct_events;	   /* pct mode: events of the profile run (0: not profiled yet) */
	struct pct_walk_profile walk_profile; /* ... and each thread's: a walk's weights */
	/* pct inputs with the racy-events flag: the site maps of their keys,
	 * each learned from logged profile runs before the first input of the
	 * key (racy_profiled: one was tried) */
	bool racy_profiled;
	struct racy_map racy_maps[EXECUTOR_RACY_MAPS];
	uint32_t racy_map_count;
	uint64_t racy_uses;
	const struct racy_map *racy_map; /* the last racy input's (NULL: none yet) */
	/* the logged profile runs made so far that are no PCT sample (seed 0
	 * again, or an old artifact's seeds 1-3): guest runs that search nothing */
	uint64_t racy_profile_runs;
	uint64_t racy_profile_samples;	 /* ... and those that are (executor_sample_fn) */
	executor_sample_fn *sample_done; /* NULL: nobody counts them */
	void *sample_ctx;
	/* under rewind fuzz (REWIND_PROGRESS_FILE, where the schedule mutator
	 * reads the estimate), pct mode logs the profile run that gives k:
	 * its log, and its events counted by the quiet sites of its own
	 * priority order (0: not known) */
	bool log_pct_profile;
	struct vm_event_log seed0_log;
	uint64_t pct_racy_estimate;
	/* a replay of an artifact: what its execution read of the profile,
	 * used instead of what the profiles count here (executor_use_profile) */
	const struct profile_record *recorded;
	uint32_t recorded_racy_key;			    /* the racy key its site map is for */
	struct reference_run reference[INPUT_MODE_PCT + 1]; /* by input mode */
	/* a run cut at a budget on purpose (explain's, at the job's last output):
	 * its budgets are not measured against the job's own run */
	bool budgets_exact;
	bool vm_created;
};

struct exec_result {
	enum exec_class cls;
	uint64_t job_steps;  /* steps after READY when the run ended */
	uint64_t trace_hash; /* XXH3-64 of the whole trace, boot included */
	int job_status;	     /* wait status, valid if has_job_status */
	bool has_job_status;
	uint64_t injected;     /* injections that were applied */
	const char *detail;    /* the VMM's outcome detail */
	struct vm_stuck stuck; /* stuck: where the host noticed it (else zero) */
	bool counter_missing;  /* counter or pct mode, but the job never started its counter */
	bool kernel_events;    /* pct mode: the guest kernel made the events (not instrumented) */
	uint64_t blocks;       /* counter and pct modes: schedule events the job ran */
	uint64_t stepped;      /* instructions single-stepped (preempt-insns) */
	uint32_t features;     /* reads-from and lock-order features the runtime saw */
};

#endif

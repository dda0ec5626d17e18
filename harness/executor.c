/* SPDX-License-Identifier: MIT */
#include "harness/executor.h"

#include "harness/event_log.h"
#include "harness/execution.h"
#include "harness/job.h"
#include "harness/job_start.h"
#include "harness/racy_sites.h"
#include "lib/host_time.h"
#include "lib/log.h"
#include "schedule/profile_sample.h"
#include "vmm/inject.h"
#include "vmm/kvm_speed.h"

#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <xxhash.h>

#define BOOT_STUCK_MS  60000u	  /* no exit for a minute while booting: stuck */
#define TRACE_PREALLOC (8u << 20) /* appends past it allocate: a huge trace */
/* a long job (run_long): budgets of 8 times its own run's, its trace at most 256 MiB */
#define LONG_RUN_FACTOR	   8u
#define LONG_RUN_TRACE_MAX (256ull << 20)

/*
 * Why the guest never got ready: rewind-init's own words when it printed
 * any (a command not in the guest), else the outcome.
 */
static void say_never_ready(const struct vm *vm)
{
	char said[1024];

	job_start_output(&vm->trace, 0, said, sizeof(said));
	if (!said[0])
		rw_err("the guest never got ready for the job: %s (%s)",
		       vm_outcome_name(vm->outcome), vm->detail);
	else if (vm->has_job_status && WIFEXITED(vm->job_status) &&
		 WEXITSTATUS(vm->job_status) == 127)
		rw_err("the guest never got ready for the job: %s (check the command after --; put "
		       "your own program into the guest with --add HOST[:GUEST])",
		       said);
	else
		rw_err("the guest never got ready for the job: %s (%s); it said: %s",
		       vm_outcome_name(vm->outcome), vm->detail, said);
}

static int boot_to_ready(struct executor *ex)
{
	struct vm *vm = &ex->vm;

	vm->cfg.stop_at_ready = true;
	if (run_boot(vm, &ex->in) < 0)
		return -EINVAL;
	vm_run(vm);
	vm->cfg.stop_at_ready = false;
	if (!vm->paused) {
		say_never_ready(vm);
		return -EINVAL;
	}
	if (keyframe_capture(vm, &ex->kf) < 0) {
		rw_err("cannot capture the keyframe");
		return -EIO;
	}
	ex->job_trace_from = vm->trace.len;
	return 0;
}

int executor_prepare(struct executor *ex, const struct executor_config *cfg)
{
	int rc;

	memset(ex, 0, sizeof(*ex));
	ex->cfg = *cfg;
	/* logging k's profile costs up to 25,000 exits, once:
	 * only where the mutator reads what it gives (rewind fuzz sets this) */
	ex->log_pct_profile = getenv("REWIND_PROGRESS_FILE") != NULL;
	clock_gettime(CLOCK_MONOTONIC, &ex->opened);
	rc = kvm_speed_check();
	if (!rc)
		rc = run_inputs_prepare(&ex->in, &cfg->run);
	if (rc)
		return rc;
	ex->base_initrd_hash = XXH3_64bits(ex->in.base_initrd, ex->in.base_initrd_len);
	ex->job_hash = XXH3_64bits(ex->in.job_archive, ex->in.job_archive_len);
	return 0;
}

int executor_boot(struct executor *ex)
{
	const struct executor_config *cfg = &ex->cfg;
	struct vm_config vcfg = {.ram_size = cfg->run.mem_bytes,
				 .epoch_ns = cfg->run.epoch_s * 1000000000ull,
				 .quantum_ns = CLOCK_DEFAULT_QUANTUM_NS,
				 .step_budget = cfg->run.step_budget,
				 /* the kernel decompresses itself without an exit for a
				  * while: the job's own stuck time starts at READY */
				 .stuck_ms = BOOT_STUCK_MS,
				 .wall_ms = 0,
				 .output = NULL,
				 .console = cfg->run.verbose ? stderr : NULL,
				 .track_dirty = true,
				 .kernel_path = cfg->run.kernel_path};
	int rc = vm_create(&ex->vm, &vcfg);

	ex->vm_created = true;
	if (rc)
		return rc;
	trace_reserve(&ex->vm.trace, TRACE_PREALLOC);
	rc = boot_to_ready(ex);
	ex->vm.cfg.wall_ms = cfg->wall_ms;
	ex->vm.cfg.stuck_ms = cfg->run.stuck_ms;
	ex->vm.cfg.output = cfg->output;
	ex->boot_s = host_time_seconds_since(&ex->opened);
	return rc;
}

int executor_open(struct executor *ex, const struct executor_config *cfg)
{
	int rc = executor_prepare(ex, cfg);

	return rc ? rc : executor_boot(ex);
}

/*
 * Runs of the job with every event logged, for its quiet sites
 * (harness/racy_sites.h): once, before the first input that counts racy
 * events. Three PCT samples first, each a plain sample of the base
 * distribution from a generator of its own (profile_sample:
 * other priority orders, and change points, so that a location that only
 * one thread touches in one run is seen shared in another: a helper that
 * steals no task under one order steals under the next), then seed 0's
 * profile, whose events counted with the quiet sites give the positions.
 * The samples are executions of the search like any other, and counted
 * as such by whoever runs the executor (sample_done): a sample's odds of
 * failing are a fresh sample's, so the map costs the search no execution.
 * Their generator starts from the racy-events input's key, the high 32
 * bits of its seed, which all the racy samples of one search share (the
 * mutator's racy key, schedule/draw.c): each search draws its own, and
 * any of its racy inputs replays alone with the same sites. A racy input
 * of another key (another search's: afl-fuzz -M/-S instances share their
 * entries) has its own map, learned once and kept beside the others
 * (EXECUTOR_RACY_MAPS of them, the one used longest ago replaced).
 * A site no profile reached is not quiet (a store that only runs when a
 * race goes one way, the very one a bug may need). Where that cannot be
 * done (a profile of more than RACY_PROFILE_EVENTS_MAX events, no memory)
 * such inputs count every event, and the user is told once. An artifact
 * of version 2 or before replays with the sites of its day: seeds 1-3
 * with no change points (racy_profiles_unperturbed).
 */
#define RACY_PROFILES 4
/* Longer profiles are not logged, their racy inputs count every event: each
 * logged event is an exit, and 4 runs of lost_update's 80,000 took 40 s in a
 * loaded box before its first input ran (4 x 25,000 take about 10 s there,
 * a tenth of a second on hardware). */
#define RACY_PROFILE_EVENTS_MAX 25000u

/* The log of the seed-0 profile, empty; false if there is no memory for it (none is kept). */
static bool seed0_log_ready(struct executor *ex)
{
	struct vm_event_log *log = &ex->seed0_log;

	if (!log->at) {
		log->at = calloc(RACY_PROFILE_EVENTS_MAX, sizeof(*log->at));
		if (!log->at)
			return false;
		log->cap = RACY_PROFILE_EVENTS_MAX;
		log->stop_when_full = true; /* a longer profile takes no exit an event */
	}
	log->count = log->threads = 0;
	log->dropped = 0;
	return true;
}

/* Whether the seed-0 profile was logged whole. */
static bool seed0_log_whole(const struct executor *ex)
{
	return ex->seed0_log.at && ex->seed0_log.count && !ex->seed0_log.dropped;
}

/*
 * What counting racy events would make of k, guessed for free from the
 * seed-0 profile's log alone, with the quiet sites of its one priority
 * order (which the four orders of profile_racy can only make fewer, never
 * more). The mutator reads it in the progress file and draws racy samples
 * from the first one where it cuts k to a quarter, none where it cuts less
 * than a quarter (schedule/draw.c racy_sample_due).
 */
static void estimate_racy_events(struct executor *ex)
{
	static struct racy_sites sites; /* 16 KiB of bits */

	memset(&sites, 0, sizeof(sites));
	if (seed0_log_whole(ex) && racy_sites_add(&sites, &ex->seed0_log) == 0) {
		static uint8_t quiet[REWIND_SITE_BYTES];

		racy_sites_quiet(&sites, quiet);
		ex->pct_racy_estimate = racy_sites_count(&ex->seed0_log, quiet);
	}
	racy_sites_free(&sites);
}

/*
 * The job's events in pct mode with seed 0 and no injections (at least 1
 * once profiled), with 8 step budgets: a long job's own run counted whole
 * (run_long). The runtime reports its last events when the program exits;
 * one that dies first is counted to PROFILE_GRAIN events. Under rewind
 * fuzz (log_pct_profile) the run is logged up to RACY_PROFILE_EVENTS_MAX
 * events: the estimate above, and seed 0's log for profile_racy, which
 * then makes one run fewer.
 */
static int profile_pct(struct executor *ex)
{
	static const struct exec_input profile = {.seed = 0, .mode = INPUT_MODE_PCT};
	bool logged = ex->log_pct_profile && seed0_log_ready(ex);
	uint64_t budget = ex->vm.cfg.step_budget;
	int rc;

	ex->vm.event_log = logged ? &ex->seed0_log : NULL;
	/* the runtime counts each thread's events too: a walk's weights (vmm/pct.c) */
	memset(&ex->walk_profile, 0, sizeof(ex->walk_profile));
	ex->vm.cfg.walk_count = &ex->walk_profile;
	ex->vm.cfg.step_budget = budget * LONG_RUN_FACTOR;
	rc = execution_profile(ex, &profile);
	ex->vm.cfg.step_budget = budget;
	ex->vm.cfg.walk_count = NULL;
	ex->vm.event_log = NULL;
	if (rc)
		return rc;
	ex->pct_events = ex->vm.counter.blocks ? ex->vm.counter.blocks : 1;
	if (ex->recorded && ex->recorded->events) /* a replay's: what its failure ran with */
		ex->pct_events =
			profile_record_use(ex->recorded, ex->pct_events, &ex->walk_profile);
	/* a job not instrumented (the guest kernel counts its events) takes no
	 * site map: no estimate, and the mutator keeps its racy samples after
	 * 16 plain ones, as before there was one (the bundled ledger's search
	 * was measured that way) */
	if (logged && !ex->vm.counter.kernel_events)
		estimate_racy_events(ex);
	return 0;
}

/*
 * Racy-site profile i's input: seed 0's profile for 0; for 1..3 the i-th
 * profile sample, or an old artifact's seed i with no change point.
 */
static void racy_profile_input(const struct executor *ex, uint32_t key, uint32_t i,
			       struct exec_input *in)
{
	if (i && !ex->cfg.racy_profiles_unperturbed)
		profile_sample(key, i, in);
	else
		*in = (struct exec_input){.seed = i, .mode = INPUT_MODE_PCT};
}

/* A racy-site profile run has ended: a sample is told to whoever counts executions. */
static void profile_ran(struct executor *ex, const struct exec_input *profile)
{
	struct exec_result res;

	if (!profile->schedule.count) {
		ex->racy_profile_runs++;
		return;
	}
	ex->racy_profile_samples++;
	if (ex->sample_done) {
		execution_result(ex, profile, &res);
		ex->sample_done(ex->sample_ctx, profile, &res);
	}
}

/* Learns map's sites (its key set); map->ok says whether they could be. */
static int profile_racy(struct executor *ex, struct racy_map *map)
{
	static struct racy_sites sites; /* 16 KiB of bits, not on the stack */
	struct exec_input profile;
	struct vm_event_log log = {.at = NULL};
	const struct vm_event_log *seed0 = seed0_log_whole(ex) ? &ex->seed0_log : &log;
	bool learned = true, first = !ex->racy_profiled;
	int rc = 0;

	ex->racy_profiled = true;
	map->ok = false;
	memset(&sites, 0, sizeof(sites));
	if (ex->pct_events > RACY_PROFILE_EVENTS_MAX) {
		if (first)
			fprintf(stderr,
				"rewind-harness: the profile run made %llu events, more than %u: "
				"inputs that count racy events count every event\n",
				(unsigned long long)ex->pct_events, RACY_PROFILE_EVENTS_MAX);
		return 0;
	}
	if (event_log_alloc(&log) < 0)
		return 0;
	for (uint32_t i = 1; i <= RACY_PROFILES && rc == 0 && learned; i++) {
		racy_profile_input(ex, map->key, i % RACY_PROFILES, &profile); /* seed 0 last */
		if (i == RACY_PROFILES && seed0 != &log) { /* logged already, as the k profile */
			learned = racy_sites_add(&sites, seed0) == 0;
			continue;
		}
		log.count = log.dropped = log.threads = 0;
		ex->vm.event_log = &log;
		rc = execution_profile(ex, &profile);
		ex->vm.event_log = NULL;
		if (rc == 0)
			profile_ran(ex, &profile);
		learned = rc == 0 && racy_sites_add(&sites, &log) == 0;
	}
	if (learned) {
		racy_sites_quiet(&sites, map->sites);
		map->events = racy_sites_count(seed0, map->sites);
		map->ok = true;
	} else if (rc == 0) {
		fprintf(stderr,
			"rewind-harness: a profile run made %llu events, more than can be "
			"logged: inputs that count racy events count every event\n",
			(unsigned long long)log.count + (unsigned long long)log.dropped);
	}
	racy_sites_free(&sites);
	free(log.at);
	return rc;
}

/* The key of in's site map: its own (input_racy_key); an old artifact's inputs share one. */
static uint32_t racy_map_key(const struct executor *ex, const struct exec_input *in)
{
	return ex->cfg.racy_profiles_unperturbed ? 0 : input_racy_key(in);
}

/* The map of in's key, among those learned (NULL: none). */
static struct racy_map *racy_map_of(struct executor *ex, const struct exec_input *in)
{
	uint32_t key = racy_map_key(ex, in);

	for (uint32_t i = 0; i < ex->racy_map_count; i++)
		if (ex->racy_maps[i].key == key)
			return &ex->racy_maps[i];
	return NULL;
}

/* A map for a key not learned yet: a free one, or the one used longest ago. */
static struct racy_map *racy_map_new(struct executor *ex, const struct exec_input *in)
{
	struct racy_map *m = &ex->racy_maps[0];

	if (ex->racy_map_count < EXECUTOR_RACY_MAPS)
		m = &ex->racy_maps[ex->racy_map_count++];
	else
		for (uint32_t i = 1; i < EXECUTOR_RACY_MAPS; i++)
			if (ex->racy_maps[i].used < m->used)
				m = &ex->racy_maps[i];
	m->key = racy_map_key(ex, in);
	m->events = 0;
	return m;
}

/*
 * The site map of a racy input: its key's, learned before its first input
 * (the profile runs, once a key; one that could not be learned, too many
 * events to log, stays so: its inputs count every event).
 */
static int use_racy_map(struct executor *ex, const struct exec_input *in)
{
	struct racy_map *m = racy_map_of(ex, in);

	if (!m) {
		int rc;

		m = racy_map_new(ex, in);
		ex->racy_map = NULL;
		rc = profile_record_racy(ex->recorded, m->key == ex->recorded_racy_key, &m->ok,
					 &m->events, m->sites)
			     ? 0
			     : profile_racy(ex, m);
		if (rc)
			return rc;
	}
	m->used = ++ex->racy_uses;
	ex->racy_map = m;
	return 0;
}

bool executor_use_profile(struct executor *ex, const struct profile_record *rec,
			  const struct exec_input *in, bool same_run)
{
	ex->recorded = rec;
	ex->recorded_racy_key = racy_map_key(ex, in);
	/* the same run profiles to the same counts: the record stands for its profile
	 * (a walk's, if it records the weights a walk needs) */
	if (!same_run || (!rec->has_walk && (in->flags & INPUT_FLAG_WALK)))
		return false;
	ex->pct_events = rec->events;
	if (rec->has_walk)
		ex->walk_profile = rec->walk;
	return true;
}

uint64_t executor_demote_events(const struct executor *ex, const struct exec_input *in)
{
	const struct racy_map *m = ex->racy_map;

	if (!(in->flags & INPUT_FLAG_RACY) || !m || !m->ok || m->key != racy_map_key(ex, in))
		return ex->pct_events;
	return m->events;
}

uint64_t executor_racy_events(const struct executor *ex)
{
	return ex->racy_map && ex->racy_map->ok ? ex->racy_map->events : 0;
}

/*
 * A long job is no livelock. The step budget bounds a livelock and the
 * trace budget a flood, by fixed counts (100,000 steps and 64 MiB by
 * default), but a real suite's test can take more in its own run: libgc's
 * disclaim_weakmap_test takes 345,902 steps with no schedule at all, and a
 * night filed it as a livelock. So an execution that runs out of either is
 * measured against the job's own run in its mode (seed 0, no schedule:
 * measure_reference, once a mode), and where that one ended, runs again
 * with LONG_RUN_FACTOR times what it took. A livelock or a flood is then a
 * run LONG_RUN_FACTOR times longer than the job's own, or one whose own run
 * does not end within LONG_RUN_FACTOR budgets either. Both budgets are a
 * function of the job and the input's mode: a replay meets the same ones.
 *
 * measure_reference: the job's own run in a mode, measured once (-EIO: the
 * host failed).
 */
static int measure_reference(struct executor *ex, unsigned int mode)
{
	const struct exec_input reference = {.seed = 0, .mode = mode};
	struct reference_run *r = &ex->reference[mode];
	struct vm *vm = &ex->vm;
	uint64_t budget = vm->cfg.step_budget;
	struct vm_event_log *log = vm->event_log;
	int rc;

	if (r->measured)
		return 0;
	vm->cfg.step_budget = budget * LONG_RUN_FACTOR;
	vm->event_log = NULL;
	rc = execution_quiet(ex, &reference, 0,
			     "the job's own run (seed 0, no schedule), the measure of a long run,");
	vm->cfg.step_budget = budget;
	vm->event_log = log;
	if (rc)
		return rc;
	*r = (struct reference_run){.measured = true,
				    .outcome = vm->outcome,
				    .steps = vm->steps - vm->ready_step,
				    .trace_bytes = vm->trace.len - ex->job_trace_from};
	return 0;
}

/* Whether the job's own run ended within its caps: its steps and trace are its length. */
static bool reference_ended(const struct reference_run *r)
{
	return r->outcome != VM_STEP_BUDGET && r->outcome != VM_TRACE_BUDGET;
}

/* budget, or LONG_RUN_FACTOR times a length after a start, whichever is more (and at most cap) */
static uint64_t long_run_budget(uint64_t budget, uint64_t start, uint64_t length, uint64_t cap)
{
	uint64_t longer = start + length * LONG_RUN_FACTOR;

	if (longer > cap)
		longer = cap;
	return longer > budget ? longer : budget;
}

/* A livelock's or flood's detail: which bound it met, the job's own run's or the budget's */
static void say_long_run_bound(struct vm *vm, const struct reference_run *r)
{
	size_t len = strlen(vm->detail);

	if (reference_ended(r))
		snprintf(vm->detail + len, sizeof(vm->detail) - len,
			 "; the job's own run takes %" PRIu64 " steps", r->steps);
	else if (r->outcome == VM_TRACE_BUDGET)
		snprintf(vm->detail + len, sizeof(vm->detail) - len,
			 "; the job's own run (seed 0, no schedule) floods too");
	else
		snprintf(vm->detail + len, sizeof(vm->detail) - len,
			 "; the job's own run (seed 0, no schedule) did not end in %u times the "
			 "budget either",
			 LONG_RUN_FACTOR);
}

/*
 * An execution that ran out of steps or trace (res), again with the budgets
 * of its job's own run where these are larger; the detail says which bound
 * the verdict has. -EIO: the host failed.
 */
static int run_long(struct executor *ex, const struct exec_input *input, struct exec_result *res)
{
	struct vm *vm = &ex->vm;
	const struct reference_run *r;
	uint64_t steps = vm->cfg.step_budget, trace_max = vm->cfg.trace_max;
	bool measured;
	int rc;

	if (ex->budgets_exact || input->mode > INPUT_MODE_PCT)
		return 0;
	r = &ex->reference[input->mode];
	measured = r->measured;
	rc = measure_reference(ex, input->mode);
	if (rc)
		return rc;
	if (reference_ended(r)) {
		vm->cfg.step_budget = long_run_budget(steps, vm->ready_step, r->steps, UINT64_MAX);
		vm->cfg.trace_max = long_run_budget(trace_max, ex->job_trace_from, r->trace_bytes,
						    LONG_RUN_TRACE_MAX);
	}
	/* with the same budgets, the same run again where the measure took the vm's trace */
	if (!measured || vm->cfg.step_budget != steps || vm->cfg.trace_max != trace_max)
		rc = execution_counted(ex, input, res);
	vm->cfg.step_budget = steps;
	vm->cfg.trace_max = trace_max;
	if (!rc && (res->cls == CLASS_LIVELOCK || res->cls == CLASS_FLOOD))
		say_long_run_bound(vm, r);
	return rc;
}

int executor_run(struct executor *ex, const struct exec_input *input, struct exec_result *res)
{
	struct vm *vm = &ex->vm;
	int rc;

	if (input->mode == INPUT_MODE_PCT && !ex->pct_events) {
		rc = profile_pct(ex);
		if (rc)
			return rc;
	}
	if (input->mode == INPUT_MODE_PCT && (input->flags & INPUT_FLAG_RACY)) {
		rc = use_racy_map(ex, input);
		if (rc)
			return rc;
	}
	vm->event_log = ex->cfg.event_log; /* the execution's own events, never the profile's */
	rc = execution_counted(ex, input, res);
	/*
	 * Stuck is timed by the host: under load (the KVM box above all) a run
	 * that makes progress can look stuck and then pass on its replay. Run it
	 * again with more time: a loop that never exits is stuck again at the
	 * same step (the guest's, not the host's), a slow run gets its time.
	 */
	if (!rc && res->cls == CLASS_STUCK && vm->cfg.stuck_ms) {
		uint64_t budget = vm->cfg.stuck_ms;

		vm->cfg.stuck_ms = budget * STUCK_CONFIRM_FACTOR;
		rc = execution_counted(ex, input, res);
		vm->cfg.stuck_ms = budget;
	}
	if (!rc && (res->cls == CLASS_LIVELOCK || res->cls == CLASS_FLOOD))
		rc = run_long(ex, input, res);
	vm->event_log = NULL;
	if (rc)
		return rc;
	return res->cls == CLASS_HOST_ERROR ? -EIO : 0;
}

void executor_close(struct executor *ex)
{
	keyframe_free(&ex->kf);
	if (ex->vm_created)
		vm_destroy(&ex->vm);
	run_inputs_free(&ex->in);
	free(ex->seed0_log.at);
	ex->seed0_log.at = NULL;
	ex->vm_created = false;
}

/* SPDX-License-Identifier: MIT */
#include "harness/execution.h"

#include "harness/job.h"
#include "lib/log.h"
#include "vmm/inject.h"

#include <inttypes.h>

/* pct mode: a thread that runs this many events without a change point drops to
 * the lowest priority and yields (a spinning thread must let the others run) */
#define PCT_SLICE_EVENTS 200000u
#define PROFILE_STUCK_MS 10000u /* a profile's stuck budget, at least */
#define PROFILE_GRAIN	 4096u	/* the profile run's countdowns: a read at least this often */

/* The feature bits the runtime set (0 without an instrumented job). */
static uint32_t feedback_count(const struct vm_feedback *f)
{
	uint32_t n = 0;

	for (size_t i = 0; f->any && i < sizeof(f->seen); i++)
		n += (uint32_t)__builtin_popcount(f->seen[i]);
	return n;
}

/* One run of input from the keyframe, to its outcome. */
int execution_run(struct executor *ex, const struct exec_input *input)
{
	struct vm *vm = &ex->vm;

	ex->sorted = input->schedule;
	schedule_sort(&ex->sorted);
	run_derive_seed(input->seed, vm->cfg.exec_seed); /* the restore puts it in the guest */
	if (keyframe_restore(vm, &ex->kf) < 0) {
		rw_err("cannot restore the keyframe");
		return -EIO;
	}
	inject_set_schedule(vm, &ex->sorted);
	/* counter and pct modes count events, with time slices; otherwise the runtime stops */
	vm->cfg.counter_mode = input->mode == INPUT_MODE_COUNTER || input->mode == INPUT_MODE_PCT;
	vm->cfg.pct = input->mode == INPUT_MODE_PCT;
	vm->cfg.pct_wide = vm->cfg.pct && (input->flags & INPUT_FLAG_WIDE);
	vm->cfg.pct_walk = vm->cfg.pct && (input->flags & INPUT_FLAG_WALK);
	vm->cfg.walk_profile = &ex->walk_profile;
	vm->cfg.pct_events = ex->pct_events;
	vm->cfg.racy =
		vm->cfg.pct && (input->flags & INPUT_FLAG_RACY) && ex->racy_map && ex->racy_map->ok;
	vm->cfg.site_map = ex->racy_map ? ex->racy_map->sites : NULL;
	vm->cfg.pct_racy_events = ex->racy_map ? ex->racy_map->events : 0;
	vm->cfg.slice_blocks = vm->cfg.pct ? PCT_SLICE_EVENTS : ex->cfg.slice_blocks;
	vm->cfg.fair_slice_blocks = ex->cfg.slice_blocks;
	vm->cfg.block_ns = ex->cfg.block_ns;
	vm_run(vm);
	return 0;
}

/* What the run of input that just ended came to. */
void execution_result(const struct executor *ex, const struct exec_input *input,
		      struct exec_result *res)
{
	const struct vm *vm = &ex->vm;

	*res = (struct exec_result){.cls = exec_class_of(vm, ex->cfg.skip_status),
				    .job_steps = vm->steps - vm->ready_step,
				    .trace_hash = trace_hash(&vm->trace),
				    .job_status = vm->job_status,
				    .has_job_status = vm->has_job_status,
				    .injected = vm->injected,
				    .detail = vm->detail,
				    .stuck = vm->stuck,
				    .counter_missing =
					    input->mode != INPUT_MODE_STEPS && !vm->counter.started,
				    .kernel_events = vm->counter.kernel_events,
				    .blocks = vm->counter.blocks,
				    .features = feedback_count(&vm->feedback),
				    .stepped = vm->single_step.stepped};
}

/*
 * A profile's stuck budget: STUCK_CONFIRM_FACTOR times the job's, what a
 * stuck execution is confirmed with (executor_run), and PROFILE_STUCK_MS at
 * least. What a profile counts goes into every later execution (k divides
 * each demote's position; the walk's weights; the racy sites), and the
 * stuck budget is host time: on a loaded host (the KVM box, a plain job's
 * events a fault and a single step each, 1,024 between two exits) a
 * profile that makes progress can look stuck. Cut at the job's 2 s, nng's
 * tests/pipe was profiled at 35,840 of its 91,200 events, and every
 * execution of that search was a run that no replay, whose profile ran to
 * the end, could repeat. A job's own small budget (to end its stuck
 * executions sooner) does not cut its profile either. A loop that never
 * exits still ends the profile, at the guest's step, not the host's.
 */
uint64_t execution_profile_stuck_ms(uint64_t job_stuck_ms)
{
	uint64_t ms = job_stuck_ms * STUCK_CONFIRM_FACTOR;

	return ms > PROFILE_STUCK_MS ? ms : PROFILE_STUCK_MS;
}

/*
 * One profile run of input, quietly (the user sees the executions, not the
 * profiles). What a profile learns goes into later runs, so it must be the
 * guest's own verdict, as a replay's is: the job's wall budget, a fuzzing
 * guard, does not cut a profile short (a profile cut at 10 s in a loaded
 * box learned less than its replay did, and the artifact replayed
 * otherwise). A profile with no change point reads at least every
 * PROFILE_GRAIN events (so that a run the program ends by dying is counted
 * closely, and every profile of a seed is the same run, logged or not); a
 * PCT sample reads where an execution of it reads, so that it is the run
 * its artifact replays (a logged read changes nothing the guest sees).
 * Nor does the job's stuck budget, also host time (execution_profile_stuck_ms).
 * -EIO when the host failed or stalled past the replay guard.
 */
int execution_quiet(struct executor *ex, const struct exec_input *input, uint32_t countdown_max,
		    const char *what)
{
	FILE *output = ex->vm.cfg.output;
	uint64_t wall_ms = ex->vm.cfg.wall_ms, stuck_ms = ex->vm.cfg.stuck_ms;
	int rc;

	ex->vm.cfg.output = NULL;
	ex->vm.cfg.wall_ms = JOB_REPLAY_WALL_GUARD_MS;
	ex->vm.cfg.stuck_ms = execution_profile_stuck_ms(stuck_ms);
	ex->vm.cfg.countdown_max = countdown_max;
	rc = execution_run(ex, input);
	ex->vm.cfg.countdown_max = 0;
	ex->vm.cfg.output = output;
	ex->vm.cfg.wall_ms = wall_ms;
	ex->vm.cfg.stuck_ms = stuck_ms;
	if (rc == 0 && (ex->vm.outcome == VM_WALL_BUDGET || ex->vm.outcome == VM_HOST_ERROR)) {
		rw_err("%s did not end: %s (%s)", what, vm_outcome_name(ex->vm.outcome),
		       ex->vm.detail);
		return -EIO;
	}
	return rc;
}

int execution_profile(struct executor *ex, const struct exec_input *profile)
{
	char what[64];

	snprintf(what, sizeof(what), "the job's profile run (pct mode, seed %" PRIu64 ")",
		 profile->seed);
	return execution_quiet(ex, profile, profile->schedule.count ? 0 : PROFILE_GRAIN, what);
}

/* One run of input from the keyframe; the event log, if any, is its own. */
int execution_counted(struct executor *ex, const struct exec_input *input, struct exec_result *res)
{
	struct vm_event_log *log = ex->cfg.event_log;
	int rc;

	if (log) {
		log->count = 0;
		log->dropped = 0;
		log->threads = 0;
	}
	rc = execution_run(ex, input);
	if (!rc)
		execution_result(ex, input, res);
	return rc;
}

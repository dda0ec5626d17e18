/* SPDX-License-Identifier: MIT */
#include "cli/run.h"

#include "lib/host_time.h"
#include "lib/json_file.h"
#include "vmm/counter.h"
#include "vmm/exec_check.h"
#include "vmm/kvm_speed.h"
#include "vmm/run_inputs.h"
#include "vmm/seed.h"

#include "cli/manifest.h"
#include "image/initramfs.h"
#include "lib/file.h"
#include "lib/log.h"
#include "vmm/boot.h"
#include "vmm/keyframe_file.h"
#include "vmm/vm.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

/*
 * What `rewind run` exits with for a finished run: 0 only for a job that
 * exited 0; a host error is the host's (4); every other end is the job's
 * failure (1). The job's own status is in the summary line and --json.
 */
static int exit_status_of(const struct vm *vm)
{
	if (vm->outcome == VM_HOST_ERROR)
		return REWIND_EXIT_HOST;
	if (vm->outcome == VM_EXITED && WIFEXITED(vm->job_status) &&
	    WEXITSTATUS(vm->job_status) == 0)
		return REWIND_EXIT_OK;
	return REWIND_EXIT_FOUND;
}

/*
 * The guest path of the job's command as rewind-init finds it: as given
 * with a '/' (relative to the working directory), else the first of the
 * PATH directories (the job's own PATH, or the default) where the guest
 * has it.
 */
static void command_path(const struct run_options *opt, const struct run_inputs *in, char *out,
			 size_t len)
{
	const char *cmd = opt->argv[0], *path = "/bin:/usr/bin";
	struct guest_file f;

	if (strchr(cmd, '/')) {
		snprintf(out, len, "%s%s%s",
			 cmd[0] == '/' ? ""
			 : opt->cwd    ? opt->cwd
				       : "",
			 cmd[0] == '/' ? "" : "/", cmd);
		return;
	}
	for (size_t i = 0; i < opt->env_count; i++)
		if (!strncmp(opt->envs[i], "PATH=", 5))
			path = opt->envs[i] + 5;
	out[0] = '\0';
	for (const char *dir = path; *dir;) {
		size_t n = strcspn(dir, ":");

		snprintf(out, len, "%.*s/%s", (int)n, dir, cmd);
		if (exec_check_guest_file(in, out, &f))
			return;
		dir += n + (dir[n] == ':');
	}
}

/*
 * The job's command could not be executed (exit status 127 after READY):
 * a dynamically linked program whose loader the guest lacks is explained.
 */
static void explain_exec_failure(const struct vm *vm, const struct run_options *opt,
				 const struct run_inputs *in)
{
	char path[4096];

	if (vm->outcome != VM_EXITED || !vm->ready_step || !WIFEXITED(vm->job_status) ||
	    WEXITSTATUS(vm->job_status) != 127 || !opt->argc)
		return;
	command_path(opt, in, path, sizeof(path));
	exec_check_loader(in, path);
}

/* The summary line: the outcome and the job's own status (`status N`, or the signal). */
static void print_summary(const struct vm *vm, const struct run_result *res)
{
	fprintf(stderr, "rewind: run %016llx %s", (unsigned long long)res->run_id,
		vm_outcome_name(vm->outcome));
	if (vm->outcome == VM_EXITED && WIFSIGNALED(vm->job_status))
		fprintf(stderr, " signal %s", sigabbrev_np(WTERMSIG(vm->job_status)) ?: "?");
	else if (vm->outcome == VM_EXITED)
		fprintf(stderr, " status %d", WEXITSTATUS(vm->job_status));
	else
		fprintf(stderr, " (%s)", vm->detail);
	fprintf(stderr, " steps %llu virtual %.6fs wall %.3fs trace %016llx\n",
		(unsigned long long)vm->steps, (double)vm->clock.now_ns / 1e9, res->wall_s,
		(unsigned long long)trace_hash(&vm->trace));
}

/* --json: the result as one JSON object on stdout. */
static int print_json(const struct run_options *opt, const struct vm *vm,
		      const struct run_result *res)
{
	return json_print_line(manifest_run_json(opt, vm, res), "the JSON result");
}

/* -v: the settings the run uses (the defaults differ from rewind-harness's). */
static void print_settings(const struct run_options *opt)
{
	bool mib = opt->mem_bytes % (1ull << 20) == 0;

	fprintf(stderr,
		"rewind: settings: mem %llu%s step-budget %llu stuck-ms %llu seed %llu epoch %llu "
		"slice-blocks %llu block-ns %llu\n",
		(unsigned long long)(opt->mem_bytes >> (mib ? 20 : 10)), mib ? "M" : "K",
		(unsigned long long)opt->step_budget, (unsigned long long)opt->stuck_ms,
		(unsigned long long)opt->seed, (unsigned long long)opt->epoch_s,
		(unsigned long long)opt->slice_blocks, (unsigned long long)opt->block_ns);
}

static void keyframe_identity_of(const struct run_inputs *in, const struct vm *vm,
				 struct keyframe_identity *id)
{
	*id = (struct keyframe_identity){.kernel_xxh3 = in->kernel_hash,
					 .initrd_xxh3 = in->initrd_hash,
					 .mem_bytes = vm->km.ram_size,
					 .epoch_ns = vm->cfg.epoch_ns,
					 .quantum_ns = vm->cfg.quantum_ns};
	snprintf(id->cpu_model, sizeof(id->cpu_model), "%s", vm->cpu_model);
}

/*
 * Boots to READY, keeps the keyframe in memory and writes it to path (NULL:
 * no file). Returns an enum rewind_exit: OK to go on, USAGE for a kernel
 * that cannot boot, HOST for a keyframe that could not be kept or written.
 */
static int boot_to_keyframe(struct vm *vm, const struct run_inputs *in, const char *path,
			    struct keyframe *kf)
{
	struct keyframe_identity id;

	vm->cfg.stop_at_ready = true;
	if (run_boot(vm, in) < 0)
		return REWIND_EXIT_USAGE;
	vm_run(vm);
	vm->cfg.stop_at_ready = false;
	if (!vm->paused)
		return REWIND_EXIT_OK; /* never got ready: the outcome says why */
	keyframe_identity_of(in, vm, &id);
	if (keyframe_capture(vm, kf) < 0 || (path && keyframe_file_write(path, kf, vm, &id) < 0))
		return REWIND_EXIT_HOST;
	if (path)
		fprintf(stderr, "rewind: keyframe written to %s at step %llu\n", path,
			(unsigned long long)vm->steps);
	return REWIND_EXIT_OK;
}

/*
 * Loads the keyframe file into vm and keeps an in-memory keyframe of it:
 * USAGE for a file that is no keyframe of these inputs, HOST for no memory.
 */
static int restore_from_file(struct vm *vm, const struct run_inputs *in, const char *path,
			     struct keyframe *kf)
{
	struct keyframe_identity id;

	keyframe_identity_of(in, vm, &id);
	if (keyframe_file_load(path, vm, &id) < 0)
		return REWIND_EXIT_USAGE;
	seed_put(vm); /* the file holds its writer's seed; this run has its own */
	return keyframe_capture(vm, kf) < 0 ? REWIND_EXIT_HOST : REWIND_EXIT_OK;
}

/*
 * Runs the job again from the keyframe, repeat times, silently; every run
 * must end with the same trace hash (else DIFFERS, the vm left as that
 * repeat ended). Prints the mean restore time.
 */
static int repeat_from_keyframe(struct vm *vm, struct keyframe *kf, uint64_t repeat)
{
	uint64_t want = trace_hash(&vm->trace), pages = 0;
	struct timespec start;
	double restore_s = 0, total_s = 0;

	vm->cfg.output = vm->cfg.console = NULL;
	for (uint64_t i = 0; i < repeat; i++) {
		clock_gettime(CLOCK_MONOTONIC, &start);
		if (keyframe_restore(vm, kf) < 0)
			return REWIND_EXIT_HOST;
		counter_reset(vm); /* the job's event count starts again */
		restore_s += host_time_seconds_since(&start);
		pages += kf->mem.last_restored;
		vm_run(vm);
		total_s += host_time_seconds_since(&start);
		if (trace_hash(&vm->trace) != want) {
			rw_err("repeat %llu from the keyframe gave trace %016llx, not %016llx",
			       (unsigned long long)i + 1,
			       (unsigned long long)trace_hash(&vm->trace),
			       (unsigned long long)want);
			return REWIND_EXIT_DIFFERS;
		}
	}
	if (repeat)
		fprintf(stderr,
			"rewind: %llu repeats from the keyframe, identical traces; restore %.1f "
			"us, "
			"restore+run %.1f us, %.1f pages dirtied per run\n",
			(unsigned long long)repeat, restore_s * 1e6 / (double)repeat,
			total_s * 1e6 / (double)repeat, (double)pages / (double)repeat);
	return REWIND_EXIT_OK;
}

/*
 * Boots (or restores) and runs the job, then the repeats: an enum
 * rewind_exit, OK when the run ran (its outcome then says how it ended),
 * DIFFERS when a repeat's trace differs from the first run's.
 */
static int boot_and_run(struct vm *vm, const struct run_inputs *in, const struct run_options *opt)
{
	struct keyframe kf = {0};
	int rc = REWIND_EXIT_OK;

	if (!opt->keyframe_path && opt->repeat) {
		rc = boot_to_keyframe(vm, in, NULL, &kf); /* the repeats' keyframe, in memory */
	} else if (!opt->keyframe_path) {
		rc = run_boot(vm, in) < 0 ? REWIND_EXIT_USAGE : REWIND_EXIT_OK;
	} else if (access(opt->keyframe_path, F_OK) == 0) {
		rc = restore_from_file(vm, in, opt->keyframe_path, &kf);
	} else {
		rc = boot_to_keyframe(vm, in, opt->keyframe_path, &kf);
	}
	if (!rc)
		vm_run(vm);
	if (!rc && opt->repeat && kf.mem.copy)
		rc = repeat_from_keyframe(vm, &kf, opt->repeat);
	keyframe_free(&kf);
	return rc;
}

/*
 * After the run: the summary line, the run directory, --json. A run whose
 * directory cannot be written ends with HOST (4), whatever the job did.
 */
static int finish_run(const struct run_options *opt, const struct run_inputs *in,
		      const struct vm *vm, struct run_result *res)
{
	explain_exec_failure(vm, opt, in);
	print_summary(vm, res);
	manifest_run_dir_name(opt, res);
	if (manifest_write_run(opt, in, vm, res) < 0) {
		rw_err("the run finished but its run directory %s could not be written",
		       res->run_dir);
		res->exit_status = REWIND_EXIT_HOST;
	} else {
		res->run_dir_written = true;
	}
	if (opt->json && print_json(opt, vm, res) < 0)
		res->exit_status = REWIND_EXIT_HOST;
	return res->exit_status;
}

int run_job(const struct run_options *opt)
{
	struct run_inputs in = {0};
	struct run_result res = {0};
	struct vm vm;
	struct vm_config cfg = {.ram_size = opt->mem_bytes,
				.epoch_ns = opt->epoch_s * 1000000000ull,
				.quantum_ns = CLOCK_DEFAULT_QUANTUM_NS,
				.step_budget = opt->step_budget,
				.stuck_ms = opt->stuck_ms,
				/* an instrumented job counts its events: time slices */
				.counter_mode = true,
				.slice_blocks = opt->slice_blocks,
				.block_ns = opt->block_ns,
				/* --json: stdout is the JSON object's alone */
				.output = opt->json ? stderr : stdout,
				.console = opt->verbose ? stderr : NULL,
				.track_dirty = opt->keyframe_path != NULL || opt->repeat,
				.kernel_path = opt->kernel_path};
	struct timespec start;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &start);
	if (opt->verbose)
		print_settings(opt);
	/* the inputs first: a bad file is named before /dev/kvm is opened */
	if (run_inputs_prepare(&in, opt) < 0 || kvm_speed_check() < 0) {
		run_inputs_free(&in);
		return REWIND_EXIT_USAGE;
	}
	memcpy(cfg.exec_seed, in.exec_seed, sizeof(cfg.exec_seed));
	if (vm_create(&vm, &cfg) < 0) {
		vm_destroy(&vm);
		run_inputs_free(&in);
		return REWIND_EXIT_USAGE;
	}
	res.run_id = run_id(&in, opt, vm.cpu_model);
	rc = boot_and_run(&vm, &in, opt);
	res.wall_s = host_time_seconds_since(&start);
	if (rc == REWIND_EXIT_OK || rc == REWIND_EXIT_DIFFERS) {
		res.exit_status = rc == REWIND_EXIT_DIFFERS ? rc : exit_status_of(&vm);
		rc = finish_run(opt, &in, &vm, &res);
	}
	vm_destroy(&vm);
	run_inputs_free(&in);
	return rc;
}

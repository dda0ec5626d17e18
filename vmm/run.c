#include "vmm/run.h"

#include "vmm/counter.h"
#include "vmm/exec_check.h"
#include "vmm/host_time.h"
#include "vmm/kvm_speed.h"
#include "vmm/run_inputs.h"
#include "vmm/seed.h"

#include "vmm/boot.h"
#include "vmm/file.h"
#include "vmm/initramfs.h"
#include "vmm/keyframe_file.h"
#include "vmm/log.h"
#include "vmm/manifest.h"
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

static int exit_status_of(const struct vm *vm)
{
	static const int status[] = {
		[VM_POWER_OFF] = RUN_STATUS_POWER_OFF,
		[VM_PANIC] = RUN_STATUS_PANIC,
		[VM_DEADLOCK] = RUN_STATUS_DEADLOCK,
		[VM_STUCK] = RUN_STATUS_STUCK,
		[VM_STEP_BUDGET] = RUN_STATUS_STEP_BUDGET,
		[VM_GUEST_FAULT] = RUN_STATUS_GUEST_FAULT,
		[VM_HOST_ERROR] = RUN_STATUS_HOST_ERROR,
		[VM_WALL_BUDGET] = RUN_STATUS_STUCK,
		[VM_TRACE_BUDGET] = RUN_STATUS_TRACE_BUDGET,
	};

	if (vm->outcome != VM_EXITED)
		return status[vm->outcome];
	if (WIFEXITED(vm->job_status))
		return WEXITSTATUS(vm->job_status);
	return 128 + WTERMSIG(vm->job_status);
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

static void print_summary(const struct vm *vm, const struct run_result *res)
{
	fprintf(stderr, "rewind: run %016llx %s", (unsigned long long)res->run_id,
		vm_outcome_name(vm->outcome));
	if (vm->outcome == VM_EXITED)
		fprintf(stderr, " status %d", res->exit_status);
	else
		fprintf(stderr, " (%s)", vm->detail);
	fprintf(stderr, " steps %llu virtual %.6fs wall %.3fs trace %016llx\n",
		(unsigned long long)vm->steps, (double)vm->clock.now_ns / 1e9, res->wall_s,
		(unsigned long long)trace_hash(&vm->trace));
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

/* Boots to READY, keeps the keyframe in memory and writes it to path (NULL: no file). */
static int boot_to_keyframe(struct vm *vm, const struct run_inputs *in, const char *path,
			    struct keyframe *kf)
{
	struct keyframe_identity id;

	vm->cfg.stop_at_ready = true;
	if (run_boot(vm, in) < 0)
		return -EINVAL;
	vm_run(vm);
	vm->cfg.stop_at_ready = false;
	if (!vm->paused)
		return 0; /* never got ready: the outcome says why */
	keyframe_identity_of(in, vm, &id);
	if (keyframe_capture(vm, kf) < 0 || (path && keyframe_file_write(path, kf, vm, &id) < 0))
		return -EIO;
	if (path)
		fprintf(stderr, "rewind: keyframe written to %s at step %llu\n", path,
			(unsigned long long)vm->steps);
	return 0;
}

/* Loads the keyframe file into vm and keeps an in-memory keyframe of it. */
static int restore_from_file(struct vm *vm, const struct run_inputs *in, const char *path,
			     struct keyframe *kf)
{
	struct keyframe_identity id;

	keyframe_identity_of(in, vm, &id);
	if (keyframe_file_load(path, vm, &id) < 0)
		return -EINVAL;
	seed_put(vm); /* the file holds its writer's seed; this run has its own */
	return keyframe_capture(vm, kf);
}

/*
 * Runs the job again from the keyframe, repeat times, silently; every run
 * must end with the same trace hash. Prints the mean restore time.
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
			return -EIO;
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
			return -EIO;
		}
	}
	if (repeat)
		fprintf(stderr,
			"rewind: %llu repeats from the keyframe, identical traces; restore %.1f "
			"us, "
			"restore+run %.1f us, %.1f pages dirtied per run\n",
			(unsigned long long)repeat, restore_s * 1e6 / (double)repeat,
			total_s * 1e6 / (double)repeat, (double)pages / (double)repeat);
	return 0;
}

static int boot_and_run(struct vm *vm, const struct run_inputs *in, const struct run_options *opt)
{
	struct keyframe kf = {0};
	int rc = 0;

	if (!opt->keyframe_path && opt->repeat) {
		rc = boot_to_keyframe(vm, in, NULL, &kf); /* the repeats' keyframe, in memory */
	} else if (!opt->keyframe_path) {
		rc = run_boot(vm, in);
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
				.output = stdout,
				.console = opt->verbose ? stderr : NULL,
				.track_dirty = opt->keyframe_path != NULL || opt->repeat};
	struct timespec start;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &start);
	rc = kvm_speed_check();
	if (!rc)
		rc = run_inputs_prepare(&in, opt);
	memcpy(cfg.exec_seed, in.exec_seed, sizeof(cfg.exec_seed));
	if (!rc && (rc = vm_create(&vm, &cfg)) < 0)
		vm_destroy(&vm);
	if (!rc) {
		res.run_id = run_id(&in, opt, vm.cpu_model);
		rc = boot_and_run(&vm, &in, opt);
		res.wall_s = host_time_seconds_since(&start);
		res.exit_status = rc ? RUN_STATUS_SETUP : exit_status_of(&vm);
		if (!rc) {
			explain_exec_failure(&vm, opt, &in);
			print_summary(&vm, &res);
		}
		if (!rc && manifest_write_run(opt, &in, &vm, &res) < 0) {
			rw_err("the run finished but its run directory could not be written");
			res.exit_status = RUN_STATUS_OUTPUT_LOST;
		}
		vm_destroy(&vm);
	}
	run_inputs_free(&in);
	return rc ? RUN_STATUS_SETUP : res.exit_status;
}

#include "vmm/run.h"

#include "guest/initramfs.h"
#include "vmm/boot.h"
#include "vmm/file.h"
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

#define RUN_BOOT_SEED 0 /* the kernel RNG's seed at boot, before the keyframe point */

/* Kernel command line: quiet boot; every device and clock comes from the Rewind platform. */
#define RUN_CMDLINE "quiet loglevel=4 rdinit=/init"

static int load_kernel(struct run_inputs *in, const char *path)
{
	if (file_read_all(path, &in->kernel, &in->kernel_len) < 0) {
		rw_err("no guest kernel at %s (build it with `make`, or pass --kernel)", path);
		return -ENOENT;
	}
	if (boot_check_bzimage(in->kernel, in->kernel_len) < 0) {
		rw_err("%s is not a usable guest kernel", path);
		return -EINVAL;
	}
	return 0;
}

/* The base image must be a newc cpio archive (what the kernel unpacks). */
static int load_initrd(struct run_inputs *in, const char *path)
{
	if (file_read_all(path, &in->base_initrd, &in->base_initrd_len) < 0) {
		rw_err("no initramfs at %s (build it with `make`, or pass --initrd)", path);
		return -ENOENT;
	}
	if (in->base_initrd_len < 512 || memcmp(in->base_initrd, "070701", 6) != 0) {
		rw_err("%s is not an uncompressed newc cpio initramfs (corrupt or wrong file)",
		       path);
		return -EINVAL;
	}
	return 0;
}

/* "HOST[:GUEST]" -> the FILE spec "HOST:GUEST", GUEST defaulting to /bin/BASENAME. */
static int add_user_file(struct initramfs *fs, const char *add)
{
	char spec[8192], *copy = strdup(add);
	int rc;

	if (!copy)
		return -ENOMEM;
	if (strchr(add, ':'))
		snprintf(spec, sizeof(spec), "%s", add);
	else
		snprintf(spec, sizeof(spec), "%s:/bin/%s", add, basename(copy));
	free(copy);
	rc = initramfs_add_spec(fs, INITRAMFS_FILE, spec);
	if (rc)
		rw_err("--add %s: cannot put it into the guest", add);
	return rc;
}

/* The command as NUL-terminated strings, one after another (read by rewind-init). */
static char *job_file(const struct run_options *opt, size_t *len)
{
	char *buf;
	size_t at = 0;

	*len = 0;
	for (size_t i = 0; i < opt->argc; i++)
		*len += strlen(opt->argv[i]) + 1;
	buf = malloc(*len ? *len : 1);
	for (size_t i = 0; buf && i < opt->argc; i++) {
		memcpy(buf + at, opt->argv[i], strlen(opt->argv[i]) + 1);
		at += strlen(opt->argv[i]) + 1;
	}
	return buf;
}

/* A second archive appended to the initramfs: /rewind/job and the user's files. */
static int build_job_archive(struct run_inputs *in, const struct run_options *opt)
{
	struct initramfs fs = {0};
	size_t job_len;
	char *job = job_file(opt, &job_len);
	FILE *f = open_memstream((char **)&in->job_archive, &in->job_archive_len);
	int rc = job && f ? 0 : -ENOMEM;

	if (!rc)
		initramfs_add_data(&fs, "rewind/job", 0644, job, job_len);
	for (size_t i = 0; i < opt->add_count && !rc; i++)
		rc = add_user_file(&fs, opt->adds[i]);
	if (!rc)
		rc = initramfs_write(&fs, f);
	if (f)
		fclose(f);
	initramfs_free(&fs);
	free(job);
	return rc;
}

static int join_initrd(struct run_inputs *in)
{
	size_t base = (in->base_initrd_len + 3) & ~(size_t)3; /* archives start 4-aligned */

	in->initrd_len = base + in->job_archive_len;
	in->initrd = calloc(1, in->initrd_len);
	if (!in->initrd)
		return -ENOMEM;
	memcpy(in->initrd, in->base_initrd, in->base_initrd_len);
	memcpy(in->initrd + base, in->job_archive, in->job_archive_len);
	return 0;
}

/* 32 seed bytes for the guest RNG, a pure function of --seed. */
static void derive_rng_seed(uint64_t seed, void *out)
{
	static const char label[] = "rewind guest rng seed";

	for (int i = 0; i < 2; i++) {
		XXH128_hash_t h = XXH3_128bits_withSeed(label, sizeof(label), seed + (uint64_t)i);
		XXH128_canonical_t c;

		XXH128_canonicalFromHash(&c, h);
		memcpy((uint8_t *)out + 16 * i, c.digest, 16);
	}
}

static uint64_t run_id(const struct run_inputs *in, const struct run_options *opt,
		       const char *cpu_model)
{
	XXH3_state_t *s = XXH3_createState();
	uint64_t words[] = {in->kernel_hash, in->initrd_hash, opt->seed,
			    opt->epoch_s,    opt->mem_bytes,  CLOCK_DEFAULT_QUANTUM_NS};
	uint64_t id;

	XXH3_64bits_reset(s);
	XXH3_64bits_update(s, words, sizeof(words));
	XXH3_64bits_update(s, RUN_CMDLINE, sizeof(RUN_CMDLINE));
	XXH3_64bits_update(s, cpu_model, strlen(cpu_model) + 1);
	id = XXH3_64bits_digest(s);
	XXH3_freeState(s);
	return id;
}

static int prepare_inputs(struct run_inputs *in, const struct run_options *opt)
{
	int rc = load_kernel(in, opt->kernel_path);

	if (!rc)
		rc = load_initrd(in, opt->initrd_path);
	if (!rc)
		rc = build_job_archive(in, opt);
	if (!rc)
		rc = join_initrd(in);
	if (rc)
		return rc;
	in->kernel_hash = XXH3_64bits(in->kernel, in->kernel_len);
	in->initrd_hash = XXH3_64bits(in->initrd, in->initrd_len);
	/* The boot is the same for every seed; the seed enters after READY. */
	derive_rng_seed(RUN_BOOT_SEED, in->rng_seed);
	derive_rng_seed(opt->seed, in->exec_seed);
	return 0;
}

static void free_inputs(struct run_inputs *in)
{
	free(in->kernel);
	free(in->base_initrd);
	free(in->job_archive);
	free(in->initrd);
}

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
	};

	if (vm->outcome != VM_EXITED)
		return status[vm->outcome];
	if (WIFEXITED(vm->job_status))
		return WEXITSTATUS(vm->job_status);
	return 128 + WTERMSIG(vm->job_status);
}

static double wall_seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
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

static int boot(struct vm *vm, const struct run_inputs *in)
{
	struct boot_image img = {.kernel = in->kernel,
				 .kernel_len = in->kernel_len,
				 .initrd = in->initrd,
				 .initrd_len = in->initrd_len,
				 .cmdline = RUN_CMDLINE};

	memcpy(img.rng_seed, in->rng_seed, sizeof(img.rng_seed));
	return boot_linux(&vm->km, &img) < 0 ? -EINVAL : 0;
}

/* Boots to READY, keeps the keyframe in memory and writes it to path. */
static int boot_to_keyframe(struct vm *vm, const struct run_inputs *in, const char *path,
			    struct keyframe *kf)
{
	struct keyframe_identity id;

	vm->cfg.stop_at_ready = true;
	if (boot(vm, in) < 0)
		return -EINVAL;
	vm_run(vm);
	vm->cfg.stop_at_ready = false;
	if (!vm->paused)
		return 0; /* never got ready: the outcome says why */
	keyframe_identity_of(in, vm, &id);
	if (keyframe_capture(vm, kf) < 0 || keyframe_file_write(path, kf, vm, &id) < 0)
		return -EIO;
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
		restore_s += wall_seconds_since(&start);
		pages += kf->mem.last_restored;
		vm_run(vm);
		total_s += wall_seconds_since(&start);
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

	if (!opt->keyframe_path) {
		rc = boot(vm, in);
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
				.output = stdout,
				.console = opt->verbose ? stderr : NULL,
				.track_dirty = opt->keyframe_path != NULL};
	struct timespec start;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &start);
	rc = prepare_inputs(&in, opt);
	memcpy(cfg.exec_seed, in.exec_seed, sizeof(cfg.exec_seed));
	if (!rc && (rc = vm_create(&vm, &cfg)) < 0)
		vm_destroy(&vm);
	if (!rc) {
		res.run_id = run_id(&in, opt, vm.cpu_model);
		rc = boot_and_run(&vm, &in, opt);
		res.wall_s = wall_seconds_since(&start);
		res.exit_status = rc ? RUN_STATUS_SETUP : exit_status_of(&vm);
		if (!rc)
			print_summary(&vm, &res);
		if (!rc && manifest_write_run(opt, &in, &vm, &res) < 0)
			rw_err("the run finished but its run directory could not be written");
		vm_destroy(&vm);
	}
	free_inputs(&in);
	return rc ? RUN_STATUS_SETUP : res.exit_status;
}

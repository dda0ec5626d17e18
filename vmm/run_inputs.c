/* SPDX-License-Identifier: MIT */
/* The inputs of a run: loaded, checked, joined and hashed once. */
#include "vmm/run_inputs.h"

#include "image/job_archive.h"
#include "lib/file.h"
#include "lib/log.h"
#include "vmm/boot.h"
#include "vmm/clock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define RUN_KERNEL_MAX	  ((size_t)64 << 20) /* a bzImage is a few MiB */
#define RUN_INITRAMFS_MAX ((size_t)1 << 30)

#define RUN_BOOT_SEED 0 /* the kernel RNG's seed at boot, before the keyframe point */

/* Kernel command line: quiet boot; every device and clock comes from the Rewind platform. */
#define RUN_CMDLINE "quiet loglevel=4 rdinit=/init"

static int load_kernel(struct run_inputs *in, const char *path)
{
	int rc = file_read_max(path, RUN_KERNEL_MAX, "kernel", &in->kernel, &in->kernel_len);

	if (rc == -ENOENT)
		rw_err("no guest kernel at %s (build it with `make`, or pass --kernel)", path);
	if (rc)
		return rc;
	if (boot_check_bzimage(in->kernel, in->kernel_len) < 0) {
		rw_err("%s is not a usable guest kernel", path);
		return -EINVAL;
	}
	return 0;
}

/* The base image must be a newc cpio archive (what the kernel unpacks). */
static int load_initrd(struct run_inputs *in, const char *path)
{
	int rc = file_read_max(path, RUN_INITRAMFS_MAX, "initramfs", &in->base_initrd,
			       &in->base_initrd_len);

	if (rc == -ENOENT)
		rw_err("no initramfs at %s (build it with `make`, or pass --initramfs)", path);
	if (rc)
		return rc;
	if (in->base_initrd_len < 512 || memcmp(in->base_initrd, "070701", 6) != 0) {
		rw_err("%s is not an uncompressed newc cpio initramfs (corrupt or wrong file)",
		       path);
		return -EINVAL;
	}
	return 0;
}

/* A job archive kept from an earlier run (a bundle's): a newc archive, used as it is. */
static int load_job_archive(struct run_inputs *in, const char *path)
{
	int rc = file_read_max(path, RUN_INITRAMFS_MAX, "job archive", &in->job_archive,
			       &in->job_archive_len);

	if (rc)
		return rc;
	if (in->job_archive_len < 6 || memcmp(in->job_archive, "070701", 6) != 0) {
		rw_err("%s is not a job archive (a newc cpio archive)", path);
		return -EINVAL;
	}
	return 0;
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
void run_derive_seed(uint64_t seed, void *out)
{
	static const char label[] = "rewind guest rng seed";

	for (int i = 0; i < 2; i++) {
		XXH128_hash_t h = XXH3_128bits_withSeed(label, sizeof(label), seed + (uint64_t)i);
		XXH128_canonical_t c;

		XXH128_canonicalFromHash(&c, h);
		memcpy((uint8_t *)out + 16 * i, c.digest, 16);
	}
}

uint64_t run_id(const struct run_inputs *in, const struct run_options *opt, const char *cpu_model)
{
	XXH3_state_t *s = XXH3_createState();
	uint64_t words[] = {in->kernel_hash,   in->initrd_hash, opt->seed,
			    opt->epoch_s,      opt->mem_bytes,	CLOCK_DEFAULT_QUANTUM_NS,
			    opt->slice_blocks, opt->block_ns};
	uint64_t id;

	XXH3_64bits_reset(s);
	XXH3_64bits_update(s, words, sizeof(words));
	XXH3_64bits_update(s, RUN_CMDLINE, sizeof(RUN_CMDLINE));
	XXH3_64bits_update(s, cpu_model, strlen(cpu_model) + 1);
	id = XXH3_64bits_digest(s);
	XXH3_freeState(s);
	return id;
}

/* The job's archive: the one opt names, else one built from its job. */
static int job_archive_of(struct run_inputs *in, const struct run_options *opt)
{
	const struct job_archive_spec job = {.argv = opt->argv,
					     .argc = opt->argc,
					     .adds = opt->adds,
					     .add_count = opt->add_count,
					     .user = opt->user,
					     .cwd = opt->cwd,
					     .envs = opt->envs,
					     .env_count = opt->env_count};

	if (opt->job_archive_path)
		return load_job_archive(in, opt->job_archive_path);
	return job_archive_build(&job, &in->job_archive, &in->job_archive_len);
}

int run_inputs_prepare(struct run_inputs *in, const struct run_options *opt)
{
	int rc = load_kernel(in, opt->kernel_path);

	if (!rc)
		rc = load_initrd(in, opt->initrd_path);
	if (!rc)
		rc = job_archive_of(in, opt);
	if (!rc)
		rc = join_initrd(in);
	if (rc)
		return rc;
	in->kernel_hash = XXH3_64bits(in->kernel, in->kernel_len);
	in->initrd_hash = XXH3_64bits(in->initrd, in->initrd_len);
	/* The boot is the same for every seed; the seed enters after READY. */
	run_derive_seed(RUN_BOOT_SEED, in->rng_seed);
	run_derive_seed(opt->seed, in->exec_seed);
	return 0;
}

void run_inputs_free(struct run_inputs *in)
{
	free(in->kernel);
	free(in->base_initrd);
	free(in->job_archive);
	free(in->initrd);
}

int run_boot(struct vm *vm, const struct run_inputs *in)
{
	struct boot_image img = {.kernel = in->kernel,
				 .kernel_len = in->kernel_len,
				 .initrd = in->initrd,
				 .initrd_len = in->initrd_len,
				 .cmdline = RUN_CMDLINE};

	memcpy(img.rng_seed, in->rng_seed, sizeof(img.rng_seed));
	vm->image_bytes = in->initrd_len;
	return boot_linux(&vm->km, &img) < 0 ? -EINVAL : 0;
}

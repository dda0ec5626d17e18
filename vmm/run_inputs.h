/* SPDX-License-Identifier: MIT */
/*
 * The inputs of a run, loaded, checked and hashed once: the guest kernel,
 * the base initramfs joined with the job's archive (/rewind/job and the
 * user's files), and the seeds. Shared by `rewind run` and rewind-harness.
 */
#ifndef REWIND_RUN_INPUTS_H
#define REWIND_RUN_INPUTS_H

#include "vmm/run_options.h"
#include "vmm/vm.h"

#include <stddef.h>
#include <stdint.h>

/* The bytes a run is made of, loaded and hashed once. */
struct run_inputs {
	uint8_t *kernel, *base_initrd, *job_archive, *initrd;
	size_t kernel_len, base_initrd_len, job_archive_len, initrd_len;
	uint64_t kernel_hash, initrd_hash;     /* XXH3-64; initrd = base + job archive */
	uint8_t rng_seed[32];		       /* the kernel RNG's at boot (fixed) */
	uint32_t exec_seed[REWIND_SEED_WORDS]; /* from --seed, read by the guest after READY */
};

/* Loads and joins everything opt names; errors are reported on stderr. */
int run_inputs_prepare(struct run_inputs *in, const struct run_options *opt);

void run_inputs_free(struct run_inputs *in);

/* 32 seed bytes for the guest RNG, a pure function of seed. */
void run_derive_seed(uint64_t seed, void *out);

/* The run's identity: XXH3-64 of every input (kernel, initrd, seed, clock, CPU model...). */
uint64_t run_id(const struct run_inputs *in, const struct run_options *opt, const char *cpu_model);

/* Loads the kernel and initramfs into vm and points the vCPU at the kernel. */
int run_boot(struct vm *vm, const struct run_inputs *in);

#endif

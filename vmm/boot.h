/* SPDX-License-Identifier: MIT */
/*
 * Linux 64-bit boot protocol: loads a bzImage, its initramfs and command
 * line into guest RAM, describes memory with an e820 map, hands the kernel a
 * 32-byte RNG seed as setup_data, and points vCPU 0 at the 64-bit entry with
 * identity-mapped page tables.
 */
#ifndef REWIND_BOOT_H
#define REWIND_BOOT_H

#include "vmm/kvm.h"

#include <stddef.h>
#include <stdint.h>

struct boot_image {
	const uint8_t *kernel; /* bzImage bytes */
	size_t kernel_len;
	const uint8_t *initrd; /* newc cpio archive(s), may be concatenated */
	size_t initrd_len;
	const char *cmdline;
	uint8_t rng_seed[32];
};

/* Returns 0, or -EINVAL with a message saying what is wrong with the image. */
int boot_linux(struct kvm_machine *m, const struct boot_image *img);

/* Checks a bzImage header without loading it (for early, clear errors). */
int boot_check_bzimage(const uint8_t *kernel, size_t len);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * What `rewind --version` and `rewind-harness --version` say: the program's
 * version and commit, the guest ABI, the CPU model the VMM presents on this
 * host, and the kernel it would boot with its XXH3-64.
 */
#ifndef REWIND_VERSION_H
#define REWIND_VERSION_H

#include <stdio.h>

#define REWIND_VERSION "0.2.0"

/* Prints the version lines; kernel_path: the kernel the program would boot by default. */
void version_print(FILE *to, const char *program, const char *kernel_path);

#endif

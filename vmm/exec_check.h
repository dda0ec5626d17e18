/* SPDX-License-Identifier: MIT */
/*
 * Why the guest could not execute the job's command, from the guest's own
 * archives: a dynamically linked program whose loader the guest lacks (one
 * that was not added with --add, which brings it). Shared by `rewind run`
 * and rewind-harness, which say it in the same words.
 */
#ifndef REWIND_EXEC_CHECK_H
#define REWIND_EXEC_CHECK_H

#include "image/guest_files.h"
#include "vmm/run_inputs.h"

#include <stdbool.h>

/* The file at a guest path: the job's archive wins over the base image. */
bool exec_check_guest_file(const struct run_inputs *in, const char *path, struct guest_file *f);

/*
 * If the guest file at path is a dynamically linked program whose
 * interpreter the guest does not have, says so with how to fix it (rw_err)
 * and returns true.
 */
bool exec_check_loader(const struct run_inputs *in, const char *path);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Whether a job's command could start at all: rewind-init says so on the
 * console when it cannot (a command that is not in the guest, or a file the
 * kernel cannot execute, such as a dynamically linked program whose loader
 * the guest lacks: vmm/exec_check.c). Such a job is a setup error of the
 * user's, not a failure to fuzz: these turn the guest's own words into the
 * error.
 */
#ifndef REWIND_JOB_START_H
#define REWIND_JOB_START_H

#include "vmm/run_inputs.h"
#include "vmm/trace.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What the guest printed in the trace from byte offset from (its last
 * lines, joined with "; "), into out (len bytes, NUL-terminated; "" if
 * nothing).
 */
void job_start_output(const struct trace *t, size_t from, char *out, size_t len);

/*
 * After a run from READY (its trace from byte offset from): if rewind-init
 * said it cannot execute the job's command, reports why (for a dynamically
 * linked program whose loader the guest lacks: how to give it one) and returns
 * -ENOEXEC; 0 otherwise.
 */
int job_start_check(const struct trace *t, size_t from, const struct run_inputs *in);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * What one execution came to, as the harness classifies it: a pass, a
 * failure of the job (reported to afl-fuzz as a crash), or something that
 * is neither (a rejected input, a wall-clock timeout, a host error).
 */
#ifndef REWIND_EXEC_CLASS_H
#define REWIND_EXEC_CLASS_H

#include "vmm/vm.h"

#include <stdbool.h>
#include <stdint.h>

enum exec_class {
	CLASS_PASS = 0,	   /* the job exited 0 */
	CLASS_EXIT,	   /* the job exited non-zero */
	CLASS_SIGNAL,	   /* the job was killed by a signal (assert, SIGSEGV...) */
	CLASS_PANIC,	   /* guest kernel panic */
	CLASS_DEADLOCK,	   /* every task blocked, no timer armed */
	CLASS_LIVELOCK,	   /* step budget exceeded */
	CLASS_STUCK,	   /* no exit for the stuck time: a spin in user space or kernel */
	CLASS_POWER_OFF,   /* the guest powered off before the job ended (init died) */
	CLASS_GUEST_FAULT, /* the guest broke the VMM's ABI */
	CLASS_FLOOD,	   /* the trace outgrew its budget: a flood of output or events */
	CLASS_REJECTED,	   /* the input is not a valid schedule: nothing ran */
	CLASS_TIMEOUT,	   /* the wall budget ran out (host-timed, not reproducible) */
	CLASS_HOST_ERROR,  /* KVM or the host failed */
	CLASS_SKIP,	   /* the job exited with its skip status: it did not run its test */
	CLASS_COUNT
};

/* "pass", "exit", "signal", ... (stable: used in artifacts and file names). */
const char *exec_class_name(enum exec_class c);

/* The class named name, or CLASS_COUNT. */
enum exec_class exec_class_from_name(const char *name);

/* Failures are what afl-fuzz must keep as crashes; each replays exactly. */
bool exec_class_is_failure(enum exec_class c);

/* The class of a finished run; skip_status: the job's exit code for a skip (0: none). */
enum exec_class exec_class_of(const struct vm *vm, uint64_t skip_status);

#endif

/* SPDX-License-Identifier: MIT */
#include "harness/exec_class.h"

#include <string.h>
#include <sys/wait.h>

static const char *const class_names[CLASS_COUNT] = {
	[CLASS_PASS] = "pass",
	[CLASS_EXIT] = "exit",
	[CLASS_SIGNAL] = "signal",
	[CLASS_PANIC] = "panic",
	[CLASS_DEADLOCK] = "deadlock",
	[CLASS_LIVELOCK] = "livelock",
	[CLASS_STUCK] = "stuck",
	[CLASS_POWER_OFF] = "power-off",
	[CLASS_GUEST_FAULT] = "guest-fault",
	[CLASS_FLOOD] = "flood",
	[CLASS_REJECTED] = "rejected",
	[CLASS_TIMEOUT] = "timeout",
	[CLASS_HOST_ERROR] = "host-error",
	[CLASS_SKIP] = "skip",
};

const char *exec_class_name(enum exec_class c)
{
	return c < CLASS_COUNT ? class_names[c] : "unknown";
}

enum exec_class exec_class_from_name(const char *name)
{
	for (int c = 0; c < CLASS_COUNT; c++)
		if (strcmp(class_names[c], name) == 0)
			return (enum exec_class)c;
	return CLASS_COUNT;
}

bool exec_class_is_failure(enum exec_class c)
{
	return c != CLASS_PASS && c != CLASS_REJECTED && c != CLASS_TIMEOUT &&
	       c != CLASS_HOST_ERROR && c != CLASS_SKIP && c < CLASS_COUNT;
}

enum exec_class exec_class_of(const struct vm *vm, uint64_t skip_status)
{
	switch (vm->outcome) {
	case VM_EXITED:
		if (WIFSIGNALED(vm->job_status))
			return CLASS_SIGNAL;
		if (skip_status && (uint64_t)WEXITSTATUS(vm->job_status) == skip_status)
			return CLASS_SKIP;
		return WEXITSTATUS(vm->job_status) == 0 ? CLASS_PASS : CLASS_EXIT;
	case VM_POWER_OFF:
		return CLASS_POWER_OFF;
	case VM_PANIC:
		return CLASS_PANIC;
	case VM_DEADLOCK:
		return CLASS_DEADLOCK;
	case VM_STUCK:
		return CLASS_STUCK;
	case VM_STEP_BUDGET:
		return CLASS_LIVELOCK;
	case VM_GUEST_FAULT:
		return CLASS_GUEST_FAULT;
	case VM_WALL_BUDGET:
		return CLASS_TIMEOUT;
	case VM_TRACE_BUDGET:
		return CLASS_FLOOD;
	case VM_RUNNING:
	case VM_HOST_ERROR:
	default:
		return CLASS_HOST_ERROR;
	}
}

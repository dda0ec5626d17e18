/* SPDX-License-Identifier: MIT */
/* How a run ends (vmm/vm_outcome.h). */
#include "vmm/vm_outcome.h"

#include "vmm/vm.h"

#include <stdarg.h>
#include <string.h>

static const char *const outcome_names[] = {
	[VM_RUNNING] = "running",	    [VM_EXITED] = "exited",
	[VM_POWER_OFF] = "power-off",	    [VM_PANIC] = "panic",
	[VM_DEADLOCK] = "deadlock",	    [VM_STUCK] = "stuck",
	[VM_STEP_BUDGET] = "step-budget",   [VM_GUEST_FAULT] = "guest-fault",
	[VM_HOST_ERROR] = "host-error",	    [VM_WALL_BUDGET] = "wall-budget",
	[VM_TRACE_BUDGET] = "trace-budget",
};

const char *vm_outcome_name(enum vm_outcome outcome)
{
	return outcome < sizeof(outcome_names) / sizeof(outcome_names[0]) ? outcome_names[outcome]
									  : "unknown";
}

void vm_finish(struct vm *vm, enum vm_outcome outcome, const char *fmt, ...)
{
	struct trace_record rec = {.step = vm->steps, .type = TRACE_OUTCOME, .args = {outcome}};
	va_list ap;

	if (vm->outcome != VM_RUNNING)
		return;
	vm->outcome = outcome;
	va_start(ap, fmt);
	vsnprintf(vm->detail, sizeof(vm->detail), fmt, ap);
	va_end(ap);
	rec.len = (uint32_t)strlen(vm->detail);
	trace_append(&vm->trace, &rec, vm->detail);
}

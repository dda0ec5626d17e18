/* SPDX-License-Identifier: MIT */
/*
 * The instrumented runtime's feedback map (guest/runtime/feedback.c): the
 * job sets feature bits in its own memory; the VMM finds the map's pages
 * once, when the runtime registers it, and ORs them into vm->feedback.seen
 * while the job's process is alive: when the runtime flushes before exit,
 * when the process receives a signal (it may be about to die), and when the
 * run ends with the process still there (a deadlock, say). After the
 * process exits its pages may belong to someone else: never read again.
 */
#include "vmm/feedback.h"

#include "vmm/guest_mem.h"
#include "vmm/vm.h"

#include <string.h>
#include <sys/ioctl.h>

#define FEEDBACK_PAGES (REWIND_FEEDBACK_BYTES / 4096)

/* The guest-physical page behind a user address of the current process, or 0. */
static uint64_t page_of(struct vm *vm, uint64_t gva)
{
	struct kvm_translation tr = {.linear_address = gva};

	if (ioctl(vm->km.vcpu_fd, KVM_TRANSLATE, &tr) < 0 || !tr.valid ||
	    !guest_mem_ptr(&vm->km, tr.physical_address, 4096) || tr.physical_address % 4096)
		return 0;
	return tr.physical_address;
}

uint32_t feedback_register(struct vm *vm, uint64_t gva, uint32_t pid)
{
	struct vm_feedback *f = &vm->feedback;

	if (f->registered || gva % 4096 || gva + REWIND_FEEDBACK_BYTES < gva)
		return 0;
	for (unsigned int i = 0; i < FEEDBACK_PAGES; i++) {
		f->gpa[i] = page_of(vm, gva + 4096ull * i);
		if (!f->gpa[i])
			return 0; /* not resident: no feedback, the run goes on */
	}
	f->registered = true;
	f->pid = pid;
	return 1;
}

void feedback_read(struct vm *vm)
{
	struct vm_feedback *f = &vm->feedback;

	if (!f->registered)
		return;
	for (unsigned int i = 0; i < FEEDBACK_PAGES; i++) {
		const uint64_t *page = guest_mem_ptr(&vm->km, f->gpa[i], 4096);
		uint64_t *seen = (uint64_t *)(f->seen + 4096 * i), any = 0;

		for (unsigned int w = 0; page && w < 4096 / sizeof(uint64_t); w++) {
			seen[w] |= page[w];
			any |= page[w];
		}
		f->any |= any != 0;
	}
}

void feedback_on_event(struct vm *vm, const struct trace_record *rec)
{
	struct vm_feedback *f = &vm->feedback;

	if (!f->registered || rec->pid != f->pid)
		return;
	if (rec->type == REWIND_EV_SIGNAL)
		feedback_read(vm);
	else if (rec->type == REWIND_EV_EXIT && rec->args[1]) /* the whole process is gone */
		f->registered = false;
}

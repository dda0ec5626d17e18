/* SPDX-License-Identifier: MIT */
#include "vmm/keyframe.h"

#include "lib/log.h"
#include "vmm/inject.h"
#include "vmm/seed.h"

#include <string.h>

/* KVM finishes an IN/OUT only on the next KVM_RUN; do that without running on. */
static int complete_pending_io(struct vm *vm)
{
	int rc;

	vm->km.run->immediate_exit = 1;
	rc = kvm_machine_run(&vm->km);
	vm->km.run->immediate_exit = 0;
	if (rc != -EINTR) {
		rw_err("completing the pending instruction returned %d, expected EINTR", rc);
		return -EIO;
	}
	return 0;
}

static void save_vmm(const struct vm *vm, struct keyframe_vmm *s)
{
	s->clock = vm->clock;
	s->steps = vm->steps;
	s->shared_gpa = vm->shared_gpa;
	s->ready_step = vm->ready_step;
	s->seed_gpa = vm->seed_gpa;
	s->trace.len = vm->trace.len;
	s->trace.count = vm->trace.count;
	XXH3_copyState(s->trace.hash, vm->trace.hash);
}

/* The machine's state back as it was at the keyframe. */
static void load_vmm(struct vm *vm, const struct keyframe_vmm *s)
{
	vm->clock = s->clock;
	vm->steps = s->steps;
	vm->shared_gpa = s->shared_gpa;
	vm->ready_step = s->ready_step;
	vm->seed_gpa = s->seed_gpa;
	vm->trace.len = s->trace.len;
	vm->trace.count = s->trace.count;
	XXH3_copyState(vm->trace.hash, s->trace.hash);
}

/* The execution's own state, which no keyframe holds, starts afresh. */
static void start_execution(struct vm *vm)
{
	vm->outcome = VM_RUNNING;
	vm->has_job_status = false;
	vm->job_status = 0;
	vm->detail[0] = '\0';
	vm->stuck = (struct vm_stuck){.rip = 0};
	vm->current_tid = 0; /* the event log's thread: unknown until the first switch record */
	vm->job_tasks = 0;   /* at the keyframe point the job is not started yet */
	inject_set_schedule(vm, NULL); /* injections start after the keyframe point */
}

int keyframe_capture(struct vm *vm, struct keyframe *kf)
{
	memset(kf, 0, sizeof(*kf));
	kf->vmm.trace.hash = XXH3_createState();
	if (!kf->vmm.trace.hash)
		return -ENOMEM;
	if (complete_pending_io(vm) < 0 || vcpu_state_save(&vm->km, &kf->vcpu) < 0 ||
	    mem_snapshot_take(&vm->km, &kf->mem) < 0) {
		keyframe_free(kf);
		return -EIO;
	}
	save_vmm(vm, &kf->vmm);
	vm->current_tid = 0; /* as every restore leaves it (start_execution) */
	return 0;
}

int keyframe_restore(struct vm *vm, struct keyframe *kf)
{
	/* The shared page is the one page the VMM writes into guest RAM; the
	 * execution may have registered another one. */
	uint64_t vmm_pages[2] = {kf->vmm.shared_gpa, vm->shared_gpa};
	struct vm_stats *st = &vm->km.stats;
	uint64_t clock;

	if (mem_snapshot_restore(&vm->km, &kf->mem, vmm_pages, 2) < 0)
		return -EIO;
	clock = vm_stats_clock(st);
	if (vcpu_state_load(&vm->km, &kf->vcpu) < 0)
		return -EIO;
	clock = vm_stats_add_since(st, clock, &st->vcpu_ns);
	load_vmm(vm, &kf->vmm);
	seed_put(vm); /* this execution's seed, where rewind-init reads it after READY */
	start_execution(vm);
	vm_stats_add_since(st, clock, &st->vmm_ns);
	st->restores++;
	return 0;
}

void keyframe_free(struct keyframe *kf)
{
	mem_snapshot_free(&kf->mem);
	XXH3_freeState(kf->vmm.trace.hash);
	kf->vmm.trace.hash = NULL;
}

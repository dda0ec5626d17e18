/* SPDX-License-Identifier: MIT */
/* The run loop: one exit switch, on top of every part of the machine (tests/unit/call-graph). */
#include "vmm/vm.h"

#include "lib/host_time.h"
#include "lib/log.h"
#include "vmm/counter.h"
#include "vmm/cpuid.h"
#include "vmm/feedback.h"
#include "vmm/inject.h"
#include "vmm/kernel_map.h"
#include "vmm/lapic.h"
#include "vmm/mem_snapshot.h"
#include "vmm/msr.h"
#include "vmm/ports.h"
#include "vmm/ports_shared.h"
#include "vmm/single_step.h"
#include "vmm/spin_rescue.h"
#include "vmm/watchdog.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

static uint64_t vcpu_rip(struct vm *vm, int *cpl)
{
	struct kvm_regs regs;
	struct kvm_sregs sregs;

	*cpl = 0;
	if (ioctl(vm->km.vcpu_fd, KVM_GET_REGS, &regs) < 0)
		return 0;
	if (ioctl(vm->km.vcpu_fd, KVM_GET_SREGS, &sregs) == 0)
		*cpl = sregs.cs.selector & 3;
	return regs.rip;
}

/*
 * The spin rescue's budget (vmm/spin_rescue.h), read once a VM: SPIN_RESCUE_BUDGET_MS, or
 * REWIND_RESCUE_MS from the environment (0: no rescue), which the tests set
 * to show that when the host looks changes nothing in the run.
 */
static uint64_t rescue_budget_ms(void)
{
	const char *env = getenv("REWIND_RESCUE_MS");
	char *end;
	unsigned long long ms;

	if (!env || !*env)
		return SPIN_RESCUE_BUDGET_MS;
	ms = strtoull(env, &end, 10);
	return *end ? SPIN_RESCUE_BUDGET_MS : ms;
}

int vm_create(struct vm *vm, const struct vm_config *cfg)
{
	int rc;

	memset(vm, 0, sizeof(*vm));
	vm->cfg = *cfg;
	if (!vm->cfg.trace_max)
		vm->cfg.trace_max = VM_TRACE_MAX_DEFAULT;
	vm->clock.quantum_ns = cfg->quantum_ns;
	vm->clock.now_ns = CLOCK_POWER_ON_NS;
	vm->rescue_ms = rescue_budget_ms();
	rc = trace_init(&vm->trace);
	if (!rc)
		rc = kvm_machine_open(&vm->km);
	if (!rc)
		rc = lapic_create(&vm->km);
	if (!rc)
		rc = kvm_machine_add_ram(&vm->km, cfg->ram_size);
	if (!rc && cfg->track_dirty)
		rc = mem_tracking_enable(&vm->km);
	if (!rc)
		rc = kvm_machine_create_vcpu(&vm->km);
	if (!rc)
		rc = cpuid_model_apply(&vm->km, &vm->cpu_model);
	if (!rc)
		rc = msr_init(&vm->km);
	return rc;
}

void vm_destroy(struct vm *vm)
{
	watchdog_close(&vm->watchdog);
	kvm_machine_close(&vm->km);
	trace_free(&vm->trace);
}

/* Is this port exit the runtime's counter read (a 4-byte IN)? */
static bool is_counter_read(const struct kvm_run *run)
{
	return run->io.port == REWIND_PORT_COUNTER && run->io.direction == KVM_EXIT_IO_IN &&
	       run->io.size == 4 && run->io.count == 1;
}

/*
 * A counter read only the event log sees (vmm/counter.c): answered here,
 * before the exit is made a step, so the run goes on as without the log.
 */
static bool unseen_counter_read(struct vm *vm)
{
	struct kvm_run *run = vm->km.run;
	uint32_t answer;

	if (!vm->event_log || !is_counter_read(run) || !counter_read_unseen(vm, &answer))
		return false;
	memcpy((uint8_t *)run + run->io.data_offset, &answer, sizeof(answer));
	return true;
}

/* A new priority in a counter read's answer (the fair continuation's mark is none: the
 * runtime makes no system call before its OUTL for it, guest/runtime/counter.c). */
static bool answers_priority(uint32_t answer)
{
	uint32_t prio = answer >> REWIND_COUNTER_PRIO_SHIFT & REWIND_COUNTER_PRIO_MASK;

	return prio && prio != REWIND_COUNTER_PRIO_FAIR;
}

/*
 * A counter read where a timer or an injection is due (see struct
 * vm_counter's hold): they wait for the next exit. With no preemption and
 * no priority in the answer, the runtime stores its countdown and goes on
 * at once: the answer then says preempt, to make that next exit its OUTL,
 * right after the store (counter_preempt raises nothing for it); with a
 * priority, the system call that takes it comes first, and what is due
 * waits for whichever exit is next.
 */
static void hold_at_counter_read(struct vm *vm)
{
	struct kvm_run *run = vm->km.run;
	uint32_t answer;

	if (!is_counter_read(run) || !vm->cfg.counter_mode || vm->outcome != VM_RUNNING ||
	    !(inject_would_act(vm) || ports_timer_due(vm)))
		return;
	vm->counter.hold = true;
	memcpy(&answer, (uint8_t *)run + run->io.data_offset, sizeof(answer));
	if (answer & REWIND_COUNTER_PREEMPT || answers_priority(answer))
		return;
	answer |= REWIND_COUNTER_PREEMPT;
	vm->counter.ack_next = true;
	memcpy((uint8_t *)run + run->io.data_offset, &answer, sizeof(answer));
}

/* bench/exec's count of port exits by Rewind port, and the guest time each ended (vmm/stats.h). */
static void count_port(struct kvm_machine *km)
{
	uint16_t port = km->run->io.port;
	uint32_t at = port >= REWIND_PORT_BASE && (port - REWIND_PORT_BASE) % 4 == 0
			      ? (port - REWIND_PORT_BASE) / 4
			      : VM_STATS_PORTS;

	at = at < VM_STATS_PORTS ? at : VM_STATS_PORTS;
	km->stats.io_ports[at]++;
	km->stats.io_port_run_ns[at] += km->stats.last_run_ns;
}

/* Returns false for an exit only the event log sees: no step, nothing else to do. */
static bool handle_exit(struct vm *vm, int reason)
{
	struct kvm_run *run = vm->km.run;

	/* the watchdog thread reads it: every exit is progress, steps or not */
	__atomic_store_n(&vm->progress, vm->progress + 1, __ATOMIC_RELAXED);
	switch (reason) {
	case KVM_EXIT_IO:
		count_port(&vm->km);
		if (unseen_counter_read(vm)) {
			vm->km.stats.unseen_reads++;
			return false;
		}
		if (vm->single_step.active)
			single_step_check(vm); /* a landing since the last step is of that step */
		vm->steps++;
		ports_take_clock_reads(vm);
		vclock_step(&vm->clock);
		ports_take_switches(vm);
		ports_io(vm);
		hold_at_counter_read(vm);
		break;
	case KVM_EXIT_MMIO:
		vm_finish(vm, VM_GUEST_FAULT, "MMIO %s at unbacked address %#llx",
			  run->mmio.is_write ? "write" : "read",
			  (unsigned long long)run->mmio.phys_addr);
		break;
	case KVM_EXIT_SHUTDOWN:
		vm_finish(vm, VM_GUEST_FAULT, "triple fault (shutdown)");
		break;
	case KVM_EXIT_FAIL_ENTRY:
		vm_finish(vm, VM_HOST_ERROR, "KVM could not enter the guest (reason %#llx)",
			  (unsigned long long)run->fail_entry.hardware_entry_failure_reason);
		break;
	case KVM_EXIT_INTERNAL_ERROR:
		vm_finish(vm, VM_GUEST_FAULT, "KVM internal error (suberror %u)",
			  run->internal.suberror);
		break;
	default:
		vm_finish(vm, VM_GUEST_FAULT, "unexpected KVM exit reason %d", reason);
	}
	return true;
}

/* A lone computation with no wall budget goes on for this many stuck budgets. */
#define VM_LONE_BUDGETS 30
/* Kicks in a row that find a lone computation in the guest kernel: it loops there. */
#define VM_LONE_KERNEL_KICKS 5

/* The tasks runnable in the guest, the running one included; 0: unknown (an older kernel). */
static uint32_t guest_runnable(struct vm *vm)
{
	const struct rewind_shared *sh = ports_shared(vm);

	return sh ? __atomic_load_n(&sh->nr_runnable, __ATOMIC_RELAXED) : 0;
}

/*
 * Whether the job computes alone: its one task (no other thread or process
 * of the job lives) is the only task runnable (the guest kernel's count;
 * rewind-init, which only reaps, does not count). Nothing else could change
 * what it reads. A job of more tasks may spin on one of them that sleeps
 * with a timeout: on a real machine time passes and wakes it, here time
 * passes only at exits, so that spin is stuck (guest/tests/spin_wait.c).
 */
static bool computes_alone(struct vm *vm)
{
	return vm->ready_step && vm->job_tasks == 1 && guest_runnable(vm) == 1;
}

/* What the detail says of the job's tasks beside a task stuck in user space. */
static void describe_tasks(struct vm *vm, size_t len, uint32_t runnable, bool alone)
{
	if (len >= sizeof(vm->detail) || !runnable || !vm->ready_step)
		return;
	if (alone)
		snprintf(vm->detail + len, sizeof(vm->detail) - len,
			 "; it computed alone, the job's only task and no other runnable, for %llu "
			 "ms",
			 (unsigned long long)watchdog_quiet_ms(&vm->watchdog));
	else
		snprintf(vm->detail + len, sizeof(vm->detail) - len,
			 "; %u task%s runnable, %u in the job", runnable, runnable == 1 ? "" : "s",
			 vm->job_tasks);
}

/*
 * The trace gets only where the guest is stuck (user space or kernel): the
 * RIP depends on when the host noticed, and the trace must not. The detail
 * for humans names the RIP and, in user space, the tasks runnable (more than
 * one: a spin that keeps another task off the CPU).
 */
static void report_stuck(struct vm *vm, uint64_t budget_ms)
{
	int cpl;
	uint64_t rip = vcpu_rip(vm, &cpl);
	char function[160];
	size_t len;

	vm->stuck = (struct vm_stuck){.rip = rip, .in_user = cpl == 3};
	vm_finish(vm, VM_STUCK, "stuck in %s", cpl == 3 ? "user space" : "the guest kernel");
	len = strlen(vm->detail);
	if (cpl != 3 && kernel_map_name(vm->cfg.kernel_path, rip, function, sizeof(function)) == 0)
		len += (size_t)snprintf(vm->detail + len, sizeof(vm->detail) - len, " in %s",
					function);
	if (len < sizeof(vm->detail))
		len += (size_t)snprintf(vm->detail + len, sizeof(vm->detail) - len,
					" at RIP %#llx (no exit for %llu ms)",
					(unsigned long long)rip, (unsigned long long)budget_ms);
	if (cpl == 3)
		describe_tasks(vm, len, guest_runnable(vm), computes_alone(vm));
	len = strlen(vm->detail);
	if (vm->rescue.looked_at == vm->progress && vm->rescue.note[0] && len < sizeof(vm->detail))
		snprintf(vm->detail + len, sizeof(vm->detail) - len, "%s", vm->rescue.note);
}

/*
 * No exit came for the stuck budget. Stuck is for a spin that waits for a
 * task it keeps off the CPU, or for time to pass. A job that computes alone
 * in user space waits for neither: it computes, or loops alone as it
 * would on any machine. It goes on until the wall budget ends the run, a
 * timeout; a run without one, for VM_LONE_BUDGETS stuck budgets, then it is
 * stuck. A kick that finds it in the guest kernel (its page faults, its
 * system calls that make no exit) is a sample of where it is: only
 * VM_LONE_KERNEL_KICKS of them in a row are a loop in the kernel, stuck.
 * Going on changes nothing the guest sees: the kick interrupted KVM_RUN
 * where the guest made no exit, and KVM_RUN resumes there.
 */
static bool lone_computation_goes_on(struct vm *vm, uint64_t budget_ms, unsigned *kernel_kicks)
{
	int cpl;

	if (!computes_alone(vm))
		return false;
	vcpu_rip(vm, &cpl);
	*kernel_kicks = cpl == 3 ? 0 : *kernel_kicks + 1;
	if (*kernel_kicks >= VM_LONE_KERNEL_KICKS)
		return false;
	if (!vm->cfg.wall_ms && watchdog_quiet_ms(&vm->watchdog) >= budget_ms * VM_LONE_BUDGETS)
		return false;
	watchdog_go_on(&vm->watchdog);
	return true;
}

/*
 * The stuck budget: the job's (--stuck-ms) once rewind-init said READY;
 * before, the kernel boots and unpacks the image, long stretches without an
 * exit that a loaded host makes longer still: a stuck boot is the kernel's,
 * not the job's, and gets VM_BOOT_STUCK_MS at least, and a second more per
 * MiB of image (a test's build folder added whole unpacks for minutes in an
 * emulated box on a loaded host).
 */
static uint64_t stuck_budget(const struct vm *vm)
{
	uint64_t boot = VM_BOOT_STUCK_MS + (vm->image_bytes >> 20) * VM_BOOT_STUCK_MS_MIB;

	if (vm->ready_step || !vm->cfg.stuck_ms)
		return vm->cfg.stuck_ms;
	return vm->cfg.stuck_ms > boot ? vm->cfg.stuck_ms : boot;
}

/* The step at which the run is out of steps. */
static uint64_t step_limit(const struct vm *vm)
{
	return vm->counter.fair ? vm->counter.fair_until : vm->cfg.step_budget;
}

/*
 * Out of steps. Under pct priorities that can be the priorities' doing: a
 * wait the runtime does not recognise keeps the CPU from the thread it
 * waits for, which no fair scheduler does. So a pct run first goes on for
 * one more budget under the kernel's fair scheduler (counter_go_fair); a
 * livelock is a run that this fair continuation does not end either.
 */
static void step_budget_spent(struct vm *vm)
{
	if (vm->cfg.pct && vm->counter.started && !vm->counter.fair) {
		counter_go_fair(vm, vm->cfg.step_budget);
		return;
	}
	if (vm->counter.fair)
		vm_finish(vm, VM_STEP_BUDGET,
			  "step budget of %llu exceeded, and %llu more steps under a fair "
			  "scheduler did not end the job",
			  (unsigned long long)vm->cfg.step_budget,
			  (unsigned long long)vm->cfg.step_budget);
	else
		vm_finish(vm, VM_STEP_BUDGET, "step budget of %llu exceeded",
			  (unsigned long long)vm->cfg.step_budget);
}

/*
 * The watchdog asked for a look at a spin (vmm/spin_rescue.c). Returns
 * -EINTR (no exit: the kick is handled as any other), or what the steps met.
 */
static int rescue(struct vm *vm)
{
	uint64_t yields = vm->rescue.yields;
	int reason = spin_rescue(vm, computes_alone(vm));
	bool yielded = vm->rescue.yields != yields;

	watchdog_rescue_done(&vm->watchdog, yielded);
	if (yielded) /* the stuck budget may have run out while it looked: the yield goes on */
		watchdog_go_on(&vm->watchdog);
	return reason;
}

enum vm_outcome vm_run(struct vm *vm)
{
	uint64_t deadline_ms = vm->cfg.wall_ms ? host_time_ms() + vm->cfg.wall_ms : 0;
	uint64_t clock = vm_stats_clock(&vm->km.stats);
	uint64_t budget = stuck_budget(vm);
	bool exited = true;	   /* the guest made an exit since the last injection point */
	unsigned kernel_kicks = 0; /* kicks in a row in the kernel of a lone computation */

	vm->rescue.note[0] = '\0'; /* a look of an earlier execution says nothing of this one */
	watchdog_set_rescue(&vm->watchdog, vm->rescue_ms);
	if (watchdog_arm(&vm->watchdog, &vm->progress, budget) < 0)
		return VM_HOST_ERROR;
	vm_stats_add_since(&vm->km.stats, clock, &vm->km.stats.watchdog_ns);

	vm->paused = false;
	ports_set_flags(vm); /* a restored keyframe has the flags of the run it was taken in */
	while (vm->outcome == VM_RUNNING && !vm->paused) {
		int reason;

		/* a kick (EINTR) is no exit: the guest resumes as if none had come */
		if (exited) {
			if (!vm->counter.hold) /* held at a counter read: see vm_counter */
				inject_due(vm);
			vm->counter.hold = false;
		}
		reason = kvm_machine_run(&vm->km);
		if (reason == -EINTR && watchdog_rescue_due(&vm->watchdog))
			reason = rescue(vm);
		exited = reason != -EINTR;
		if (exited)
			kernel_kicks = 0;

		if (reason == -EINTR) {
			if (watchdog_fired(&vm->watchdog) &&
			    !lone_computation_goes_on(vm, budget, &kernel_kicks))
				report_stuck(vm, budget);
			else if (deadline_ms && host_time_ms() > deadline_ms)
				vm_finish(vm, VM_WALL_BUDGET, "wall budget of %llu ms exceeded",
					  (unsigned long long)vm->cfg.wall_ms);
			continue;
		}
		if (reason < 0) {
			vm_finish(vm, VM_HOST_ERROR, "KVM_RUN failed: %s", strerror(-reason));
			break;
		}
		if (handle_exit(vm, reason)) {
			if (vm->trace.len > vm->cfg.trace_max)
				vm_finish(vm, VM_TRACE_BUDGET,
					  "the trace passed its budget of %llu MiB (a flood of "
					  "output or events)",
					  (unsigned long long)(vm->cfg.trace_max >> 20));
			if (vm->cfg.step_budget && vm->steps >= step_limit(vm))
				step_budget_spent(vm);
			ports_fire_due_timer(vm);
			if (budget != vm->cfg.stuck_ms && vm->ready_step) { /* booted */
				budget = vm->cfg.stuck_ms;
				watchdog_set_budget(&vm->watchdog, budget);
			}
		}
		if (deadline_ms && host_time_ms() > deadline_ms)
			vm_finish(vm, VM_WALL_BUDGET, "wall budget of %llu ms exceeded",
				  (unsigned long long)vm->cfg.wall_ms);
	}
	clock = vm_stats_clock(&vm->km.stats);
	watchdog_disarm(&vm->watchdog);
	vm_stats_add_since(&vm->km.stats, clock, &vm->km.stats.watchdog_ns);
	if (vm->outcome != VM_RUNNING)
		feedback_read(vm); /* the job's process may still be there */
	return vm->outcome;
}

/* SPDX-License-Identifier: MIT */
/* The Rewind ports: every call the guest makes to the VMM (see rewind_abi.h). */
#include "vmm/ports.h"

#include "vmm/counter.h"
#include "vmm/feedback.h"
#include "vmm/guest_mem.h"
#include "vmm/ports_shared.h"
#include "vmm/runtime_calls.h"
#include "vmm/seed.h"
#include "vmm/vm.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

static void port_shared(struct vm *vm, uint32_t pfn)
{
	uint64_t gpa = (uint64_t)pfn << 12;
	struct rewind_shared *sh = guest_mem_ptr(&vm->km, gpa, sizeof(*sh));

	/* The VMM clears the page it is given: a second registration could clear a
	 * page of a later run's memory that no keyframe restore puts back. */
	if (vm->shared_gpa) {
		vm_finish(vm, VM_GUEST_FAULT,
			  "a second registration of the shared page (pfn %#x): it is registered "
			  "once, at boot",
			  pfn);
		return;
	}
	if (!sh || gpa == 0) {
		vm_finish(vm, VM_GUEST_FAULT, "shared page pfn %#x is outside guest RAM", pfn);
		return;
	}
	vm->shared_gpa = gpa;
	memset(sh, 0, sizeof(*sh));
	sh->abi_version = REWIND_ABI_VERSION;
	/* the guest's wall clock is epoch_ns + now_ns: the job's epoch is the
	 * wall clock at power-on, where now_ns is CLOCK_POWER_ON_NS */
	sh->epoch_ns =
		vm->cfg.epoch_ns > CLOCK_POWER_ON_NS ? vm->cfg.epoch_ns - CLOCK_POWER_ON_NS : 0;
	sh->tsc_khz = REWIND_TSC_KHZ;
}

static void emit_output(struct vm *vm, uint32_t type, const uint8_t *payload, uint32_t len)
{
	FILE *to = type == REWIND_EV_OUTPUT ? vm->cfg.output : vm->cfg.console;

	if (type == REWIND_EV_PANIC && !to)
		to = stderr; /* a panic is always shown */
	if (to && len) {
		fwrite(payload, 1, len, to);
		if (type == REWIND_EV_PANIC && payload[len - 1] != '\n')
			fputc('\n', to);
		fflush(to);
	}
}

/* The record may sit at any guest address: read its header by copy, never in place. */
static void port_event(struct vm *vm, uint32_t gpa)
{
	const uint8_t *at = guest_mem_ptr(&vm->km, gpa, sizeof(struct rewind_event));
	struct rewind_event ev;
	struct trace_record rec;

	if (at)
		memcpy(&ev, at, sizeof(ev));
	if (!at || ev.len > REWIND_EVENT_PAYLOAD_MAX ||
	    !guest_mem_ptr(&vm->km, gpa, sizeof(ev) + ev.len)) {
		vm_finish(vm, VM_GUEST_FAULT,
			  "event record at gpa %#x is outside guest RAM or too long", gpa);
		return;
	}
	if (ev.type < REWIND_EV_EXEC || ev.type > REWIND_EV_PANIC) {
		vm_finish(vm, VM_GUEST_FAULT, "event record of unknown type %u", ev.type);
		return;
	}
	vm->km.stats.events[ev.type]++; /* bench/exec: the guest work before each kind */
	vm->km.stats.event_run_ns[ev.type] += vm->km.stats.last_run_ns;
	rec = (struct trace_record){.step = vm->steps,
				    .type = ev.type,
				    .len = ev.len,
				    .pid = ev.pid,
				    .tid = ev.tid,
				    .args = {ev.args[0], ev.args[1], ev.args[2]}};
	trace_append(&vm->trace, &rec, at + sizeof(ev));
	emit_output(vm, ev.type, at + sizeof(ev), ev.len);
	feedback_on_event(vm, &rec);
	if (ev.type == REWIND_EV_FORK) /* a task of the job (rewind-init's child or its own) */
		vm->job_tasks++;
	else if (ev.type == REWIND_EV_EXIT && vm->job_tasks)
		vm->job_tasks--;
}

/* When the armed timer fires, made late by timer-late injections; the guest's
 * deadline is any u64: never past the end of time by wrapping round. */
static uint64_t late_deadline(const struct vm *vm, const struct rewind_shared *sh)
{
	uint64_t at = sh->timer_deadline + vm->timer_late_ns;

	return at < sh->timer_deadline ? UINT64_MAX : at;
}

/* The guest idles with interrupts disabled: jump to its timer or give up. */
static void port_idle(struct vm *vm, uint32_t value)
{
	struct rewind_shared *sh = ports_shared(vm);

	(void)value; /* ignored (the ABI) */

	if (sh && sh->pending) {
		/* Raised while the guest could not take it (an injection into a
		 * disabled APIC is dropped): inject again, or it idles forever. */
		ports_raise(vm, 0);
		return;
	}
	if (!sh || sh->timer_deadline == 0) {
		vm_finish(vm, VM_DEADLOCK, "the guest is idle with no timer armed");
		return;
	}
	vclock_jump_to(&vm->clock, late_deadline(vm, sh));
}

static void vmm_record(struct vm *vm, uint32_t type, uint64_t arg0)
{
	struct trace_record rec = {.step = vm->steps, .type = type, .args = {arg0}};

	trace_append(&vm->trace, &rec, NULL);
}

static void port_power(struct vm *vm, uint32_t how)
{
	vmm_record(vm, TRACE_POWER, how);
	switch (how) {
	case REWIND_POWER_PANIC:
		vm_finish(vm, VM_PANIC, "guest kernel panic");
		break;
	case REWIND_POWER_OFF:
	case REWIND_POWER_HALT:
	case REWIND_POWER_REBOOT:
		/* the job's status ends a run, so it has not come */
		vm_finish(vm, VM_POWER_OFF, "the guest powered off (%u) before the job ended", how);
		break;
	default:
		vm_finish(vm, VM_GUEST_FAULT, "unknown power request %u", how);
	}
}

/*
 * Ports only the guest kernel uses, rarely (the shared page at boot, power
 * at the end): user space (the job, or rewind-init, which has the other
 * ports) is refused them (kernel_only in the port table). The ports of
 * every step are not checked (a register read per exit); what a job can do
 * with them is add records to its own run, which stays a pure function of
 * its inputs.
 */
static bool from_user(struct vm *vm, uint16_t port)
{
	struct kvm_sregs sregs;

	if (ioctl(vm->km.vcpu_fd, KVM_GET_SREGS, &sregs) < 0) {
		vm_finish(vm, VM_HOST_ERROR, "KVM_GET_SREGS at a port: %s", strerror(errno));
		return true;
	}
	if ((sregs.cs.selector & 3) == 3) {
		vm_finish(vm, VM_GUEST_FAULT, "user space wrote the kernel's port %#x", port);
		return true;
	}
	return false;
}

/*
 * A yield, a full context-switch ring or clock reads past the timer (both
 * taken at every exit): the step itself is the call.
 */
static void port_step(struct vm *vm, uint32_t value)
{
	(void)vm; /* a step: the clock has moved on */
	(void)value;
}

/*
 * The job's status ends the run: what the guest would do after it (sync,
 * power off) cannot change the outcome, and each execution would pay for
 * it (two steps and the kernel's power-off path). Only init reports it: a
 * job runs as root and can grant itself the port, but the context-switch
 * records say which thread is on the CPU.
 */
static void port_job_status(struct vm *vm, uint32_t value)
{
	if (vm->current_tid != 1) {
		vm_finish(vm, VM_GUEST_FAULT, "job status %#x from thread %u, not from init", value,
			  vm->current_tid);
		return;
	}
	vm->job_status = (int)value;
	vm->has_job_status = true;
	vmm_record(vm, TRACE_JOB_STATUS, value);
	vm_finish(vm, VM_EXITED, "job exited");
}

/* value: rewind-init's seed buffer, which gets the execution's seed now and at every restore */
static void port_ready(struct vm *vm, uint32_t value)
{
	if (vm->ready_step) {
		vm_finish(vm, VM_GUEST_FAULT, "a second READY (the job started at step %llu)",
			  (unsigned long long)vm->ready_step);
		return;
	}
	if (!seed_locate(vm, value))
		return;
	seed_put(vm);
	vm->ready_step = vm->steps;
	vm->job_tasks = 0; /* the job starts after READY */
	vm->paused = vm->cfg.stop_at_ready;
	vmm_record(vm, TRACE_READY, 0);
}

/* One port's handlers: an INL's answer, an OUTL's value; NULL: that direction is refused. */
struct port_handlers {
	uint32_t (*in)(struct vm *vm);
	void (*out)(struct vm *vm, uint32_t value);
	bool kernel_only; /* refused from user space (from_user) */
};

#define PORT_INDEX(port) (((port)-REWIND_PORT_BASE) / 4)

/* Every port the ABI has, by (port - REWIND_PORT_BASE) / 4 (include/rewind/abi.h). */
static const struct port_handlers port_table[PORT_INDEX(REWIND_PORT_END)] = {
	[PORT_INDEX(REWIND_PORT_SHARED)] = {.out = port_shared, .kernel_only = true},
	[PORT_INDEX(REWIND_PORT_EVENT)] = {.out = port_event},
	[PORT_INDEX(REWIND_PORT_IDLE)] = {.out = port_idle},
	[PORT_INDEX(REWIND_PORT_YIELD)] = {.out = port_step},
	[PORT_INDEX(REWIND_PORT_POWER)] = {.out = port_power, .kernel_only = true},
	[PORT_INDEX(REWIND_PORT_JOB_STATUS)] = {.out = port_job_status},
	[PORT_INDEX(REWIND_PORT_READY)] = {.out = port_ready},
	[PORT_INDEX(REWIND_PORT_SWITCHES)] = {.out = port_step}, /* ports_take_switches */
	[PORT_INDEX(REWIND_PORT_COUNTER)] = {.in = counter_read, .out = counter_preempt},
	[PORT_INDEX(REWIND_PORT_RUNTIME)] = {.in = runtime_call},
	[PORT_INDEX(REWIND_PORT_CLOCK)] = {.out = port_step}, /* ports_take_clock_reads */
};

/* The port's handlers, or NULL for an address that is no Rewind port. */
static const struct port_handlers *port_handlers(uint16_t port)
{
	if (port < REWIND_PORT_BASE || port >= REWIND_PORT_END || (port - REWIND_PORT_BASE) % 4)
		return NULL;
	return &port_table[PORT_INDEX(port)];
}

void ports_io(struct vm *vm)
{
	struct kvm_run *run = vm->km.run;
	uint8_t *data = (uint8_t *)run + run->io.data_offset;
	const struct port_handlers *h = port_handlers(run->io.port);
	bool out = run->io.direction == KVM_EXIT_IO_OUT;
	uint32_t value = 0;

	/* every call is one 32-bit access, in a direction the port has (KVM
	 * keeps the word in the kvm_run page) */
	if (!h || run->io.size != 4 || !(out ? h->out != NULL : h->in != NULL) ||
	    run->io.count != 1 || run->io.data_offset + 4ull > vm->km.run_size) {
		vm_finish(vm, VM_GUEST_FAULT, "%s of %u byte(s) x%u at unknown port %#x",
			  out ? "write" : "read", run->io.size, run->io.count, run->io.port);
		return;
	}
	if (!out) {
		value = h->in(vm);
		memcpy(data, &value, sizeof(value));
		return;
	}
	memcpy(&value, data, sizeof(value));
	if (h->kernel_only && from_user(vm, run->io.port))
		return;
	h->out(vm, value);
}

/* Called after every step: fires the one-shot timer once virtual time reaches it. */
bool ports_timer_due(struct vm *vm)
{
	const struct rewind_shared *sh = ports_shared(vm);

	return sh && vm->outcome == VM_RUNNING && sh->timer_deadline &&
	       late_deadline(vm, sh) <= vm->clock.now_ns;
}

/*
 * The shared page's flags now: in pct mode, while no runtime counts events
 * (an instrumented job's starts counting before its first thread), the
 * guest kernel makes them at the accesses of a process's threads off their
 * own stacks (linux/patches/0016), from its first thread on; of each such
 * process in turn (a runner's children, one after the other), so the
 * kernel's own counting leaves the flag set.
 */
void ports_set_flags(struct vm *vm)
{
	const struct vm_counter *c = &vm->counter;
	struct rewind_shared *sh = ports_shared(vm);

	if (sh)
		sh->flags = vm->cfg.pct && (!c->started || c->kernel_events) && !c->fair
				    ? REWIND_SHARED_TRAP_MEMORY
				    : 0;
}

void ports_fire_due_timer(struct vm *vm)
{
	struct rewind_shared *sh = ports_shared(vm);

	if (!sh || vm->outcome != VM_RUNNING)
		return;
	sh->now_ns = vm->clock.now_ns;
	ports_set_flags(vm);
	if (vm->counter.hold) /* a counter read: the timer waits for the next exit */
		return;
	if (sh->timer_deadline && late_deadline(vm, sh) <= vm->clock.now_ns) {
		sh->timer_deadline = 0;
		vm->timer_late_ns = 0; /* a late-timer injection delays one firing */
		ports_raise(vm, REWIND_PENDING_TIMER);
	}
}

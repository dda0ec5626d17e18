/* SPDX-License-Identifier: MIT */
/* The page shared with the guest, the VMM's side (vmm/ports_shared.h). */
#include "vmm/ports_shared.h"

#include "vmm/guest_mem.h"
#include "vmm/lapic.h"
#include "vmm/vm.h"

#include <string.h>

_Static_assert(sizeof(struct rewind_shared) == 4096, "struct rewind_shared is one page");

struct rewind_shared *ports_shared(struct vm *vm)
{
	return vm->shared_gpa ? guest_mem_ptr(&vm->km, vm->shared_gpa, sizeof(struct rewind_shared))
			      : NULL;
}

void ports_raise(struct vm *vm, uint32_t pending_bits)
{
	struct rewind_shared *sh = ports_shared(vm);

	if (!sh)
		return;
	sh->pending |= pending_bits;
	if (lapic_inject(&vm->km, REWIND_CALLBACK_VECTOR) < 0)
		vm_finish(vm, VM_HOST_ERROR, "cannot inject an interrupt");
}

/*
 * User space's clock reads moved the guest's clock on (clock_ahead_ns):
 * virtual time takes that step too, before this exit's own quantum. The
 * guest writes the field: a value no run of clock reads between two exits
 * could reach is a fault, not a jump into the far future.
 */
void ports_take_clock_reads(struct vm *vm)
{
	struct rewind_shared *sh = ports_shared(vm);
	uint64_t ahead;

	if (!sh || !(ahead = sh->clock_ahead_ns))
		return;
	sh->clock_ahead_ns = 0;
	if (ahead > REWIND_CLOCK_AHEAD_LIMIT) {
		vm_finish(vm, VM_GUEST_FAULT,
			  "the guest's clock ran %llu ns ahead between two exits (at most %llu)",
			  (unsigned long long)ahead, (unsigned long long)REWIND_CLOCK_AHEAD_LIMIT);
		return;
	}
	vclock_advance(&vm->clock, ahead);
}

/*
 * The guest's context-switch ring: one trace record per switch, stamped with
 * this step. The guest writes the ring; never trust its head.
 */
void ports_take_switches(struct vm *vm)
{
	struct rewind_shared *sh = ports_shared(vm);
	uint32_t head, tail;

	if (!sh)
		return;
	head = __atomic_load_n(&sh->switch_head, __ATOMIC_RELAXED);
	tail = sh->switch_tail;
	if (head - tail > REWIND_SWITCH_RING) {
		vm_finish(vm, VM_GUEST_FAULT, "context-switch ring overrun (head %u, tail %u)",
			  head, tail);
		return;
	}
	for (; tail != head; tail++) {
		struct rewind_switch sw;
		struct trace_record rec = {.step = vm->steps, .type = REWIND_EV_SWITCH};

		memcpy(&sw, &sh->switches[tail % REWIND_SWITCH_RING], sizeof(sw));
		rec.tid = sw.next_tid;
		rec.args[0] = sw.prev_tid;
		rec.args[1] = sw.next_tid;
		trace_append(&vm->trace, &rec, NULL);
		vm->current_tid = sw.next_tid;
	}
	sh->switch_tail = tail;
}

/*
 * The newest record, without taking it: the event log's exits are no steps
 * and must leave the ring (stamps, tail) as the next real exit finds it.
 */
uint32_t ports_current_tid(struct vm *vm)
{
	struct rewind_shared *sh = ports_shared(vm);
	struct rewind_switch sw;
	uint32_t head;

	if (!sh)
		return vm->current_tid;
	head = __atomic_load_n(&sh->switch_head, __ATOMIC_RELAXED);
	if (head == sh->switch_tail || head - sh->switch_tail > REWIND_SWITCH_RING)
		return vm->current_tid;
	memcpy(&sw, &sh->switches[(head - 1) % REWIND_SWITCH_RING], sizeof(sw));
	return sw.next_tid;
}

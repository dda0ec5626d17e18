/* SPDX-License-Identifier: MIT */
/*
 * The page shared with the guest (struct rewind_shared, include/rewind/abi.h),
 * the VMM's side of it: the callback raise, the clock reads and the
 * context-switch ring. The
 * handlers of ports, injections, the counter and single-stepping all raise,
 * so ports_shared.c sits below them and calls none of them.
 */
#ifndef REWIND_PORTS_SHARED_H
#define REWIND_PORTS_SHARED_H

#include <stdint.h>

struct vm;

/* The page shared with the guest, NULL until the guest registers it. */
struct rewind_shared *ports_shared(struct vm *vm);

/* Raises reason bits in the shared page and injects the callback vector. */
void ports_raise(struct vm *vm, uint32_t pending_bits);

/* Takes the virtual time user space's clock reads moved on since the last exit. */
void ports_take_clock_reads(struct vm *vm);

/* Takes the context switches the guest recorded since the last exit. */
void ports_take_switches(struct vm *vm);

/* The thread running now: the newest context-switch record, taken or not. */
uint32_t ports_current_tid(struct vm *vm);

#endif

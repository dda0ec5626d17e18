/* SPDX-License-Identifier: MIT */
/*
 * The Rewind ports (include/rewind/abi.h): every call the guest makes to
 * the VMM, dispatched from one table by port, with the timer the guest arms
 * in the shared page.
 */
#ifndef REWIND_PORTS_H
#define REWIND_PORTS_H

#include <stdbool.h>

struct vm;

/*
 * One port access the guest made (a KVM_EXIT_IO), dispatched from the port
 * table: a port, size or direction the ABI lacks is a guest fault.
 */
void ports_io(struct vm *vm);

/* After every step: refreshes the shared page and fires a due timer (not at a held counter read).
 */
void ports_fire_due_timer(struct vm *vm);

/* Writes the shared page's flags (REWIND_SHARED_*) for this moment of the run. */
void ports_set_flags(struct vm *vm);

/* Would ports_fire_due_timer() fire the guest's timer now? */
bool ports_timer_due(struct vm *vm);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Applying the schedule (vmm/schedule.h): the injections that act at steps
 * after READY; the counter (vmm/counter.h) applies those that count events.
 */
#ifndef REWIND_INJECT_H
#define REWIND_INJECT_H

#include "vmm/schedule.h"

#include <stdbool.h>

struct vm;

/*
 * Sets the injections of the next execution (sorted, kept by the caller;
 * NULL: none) and starts the execution's state afresh: counter, feedback,
 * single-stepping, landings.
 */
void inject_set_schedule(struct vm *vm, const struct schedule *s);

/* Applies every injection due at the current step, before the guest re-enters. */
void inject_due(struct vm *vm);

/* Would inject_due() apply an injection now? */
bool inject_would_act(const struct vm *vm);

#endif

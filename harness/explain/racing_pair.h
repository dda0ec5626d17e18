/* SPDX-License-Identifier: MIT */
/*
 * The racing pair of an instrumented job: from the event logs of a failing
 * run and of the nearest passing one (the same schedule with one injection
 * moved by one event), the first load whose source differs. Both runs are
 * the same up to where they diverge; after that an access is known by its
 * thread, its code address and how many times that thread has made it
 * since. The first load of the failing run that the passing run also makes
 * but that reads another store there names the pair: that load, and the
 * store the passing run let it read, which the failing run ordered after it
 * (or overwrote first).
 */
#ifndef REWIND_RACING_PAIR_H
#define REWIND_RACING_PAIR_H

#include "harness/explain/explain_report.h"
#include "vmm/vm.h"

/* Fills pair (pair->found) from the two logs. 0, or -ENOMEM. */
int racing_pair_find(const struct vm_event_log *fail, const struct vm_event_log *pass,
		     struct racing_pair *pair);

#endif

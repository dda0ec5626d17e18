/* SPDX-License-Identifier: MIT */
/*
 * What an access of the racing pair did, as its schedule event's kind says
 * (include/rewind/abi.h, enum rewind_sched_event): a read, a write, or an
 * atomic read-modify-write (a compare-and-swap, an exchange, a
 * fetch-and-add: the runtime's REWIND_SCHED_ATOMIC). An atomic load or
 * store is a READ or WRITE event like a plain one: the event does not tell
 * them apart, and neither do these names.
 */
#ifndef REWIND_ACCESS_LABEL_H
#define REWIND_ACCESS_LABEL_H

#include <stdint.h>

/* For the text: "reads", "writes", "does an atomic read-modify-write at". */
const char *access_verb(uint32_t what);

/* For JSON's "kind": "read", "write", "atomic read-modify-write". */
const char *access_kind(uint32_t what);

#endif

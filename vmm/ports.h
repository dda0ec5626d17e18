/*
 * The Rewind ports (include/rewind/abi.h): every call the guest makes to
 * the VMM, dispatched from one table by port, with the timer the guest arms
 * in the shared page.
 */
#ifndef REWIND_PORTS_H
#define REWIND_PORTS_H

#include <stdbool.h>
#include <stdint.h>

struct vm;

/* A write to a port only the guest kernel may use, from user space: a guest fault (true). */
bool ports_from_user(struct vm *vm, uint16_t port);
/* One OUTL the guest made. */
void ports_handle(struct vm *vm, uint16_t port, uint32_t value);

/* The one INL the ABI has: the next word of the execution seed. */
uint32_t ports_read_seed(struct vm *vm);

/* After every step: refreshes the shared page and fires a due timer. */
void ports_fire_due_timer(struct vm *vm);

#endif

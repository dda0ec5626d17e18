/* SPDX-License-Identifier: MIT */
/*
 * REWIND_PORT_RUNTIME: the calls of an instrumented job's runtime; see
 * vmm/runtime_calls.c.
 */
#ifndef REWIND_RUNTIME_CALLS_H
#define REWIND_RUNTIME_CALLS_H

#include <stdint.h>

struct vm;

/* An INL on REWIND_PORT_RUNTIME: one call of the job's runtime. */
uint32_t runtime_call(struct vm *vm);

#endif

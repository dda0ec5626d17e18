/* SPDX-License-Identifier: MIT */
/*
 * Names a guest kernel address from the kernel's System.map, which the
 * kernel build leaves beside the bzImage as <bzImage>.map: a stuck run's
 * report says "in select_collect+0x12", not only its RIP. Read only when a
 * run has ended stuck, never on the execution path.
 */
#ifndef REWIND_KERNEL_MAP_H
#define REWIND_KERNEL_MAP_H

#include <stddef.h>
#include <stdint.h>

/*
 * Writes "function+0xoffset" for addr into name (size bytes) from the map
 * beside kernel_path. Returns 0, or -1 when there is no map, it cannot be
 * read or it has no code symbol at or below addr (name left empty): the
 * caller then names the RIP alone.
 */
int kernel_map_name(const char *kernel_path, uint64_t addr, char *name, size_t size);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Where the ELF objects of a guest process are mapped: the program, its
 * loader and shared libraries, each at its own load base (ASLR places
 * them, from the execution seed). Read from the page tables of the
 * address space on the vCPU while a run is stopped in that process: every
 * present user page that starts with an x86-64 ELF header is the first
 * page of a mapped object, at its base. The loader reads each object's
 * headers and hash table there (the kernel's loader the program's, ld.so
 * every library's), so that page is present in any process that has
 * started. Which file it is comes from comparing it with the files of
 * the guest's archives (harness/explain/explain.c). Reads only.
 */
#ifndef REWIND_GUEST_MAPS_H
#define REWIND_GUEST_MAPS_H

#include <stddef.h>
#include <stdint.h>

#define GUEST_MAPS_MAX	   48
#define GUEST_MAP_HEAD_LEN 2048 /* the ELF header, the program headers, the notes */

struct guest_map {
	uint64_t base; /* the user address of the page with the ELF header */
	uint8_t head[GUEST_MAP_HEAD_LEN];
};

struct vm;

/*
 * The objects mapped in the current address space of vm's vCPU (a run
 * that vm_run returned from, before the next one), lowest first. Returns
 * how many (at most max); 0 if the page tables cannot be read.
 */
unsigned int guest_maps_read(struct vm *vm, struct guest_map *out, unsigned int max);

#endif

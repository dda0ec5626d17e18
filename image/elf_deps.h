/* SPDX-License-Identifier: MIT */
/*
 * The shared objects a dynamically linked x86-64 ELF program needs: found on
 * the host the way its dynamic loader (glibc's ld.so or musl's) will look for
 * them in the guest, each with the guest path where that loader finds it.
 *
 * A pure function of the files it reads: never an environment variable
 * (LD_LIBRARY_PATH), never /etc/ld.so.cache, never the time. The guest has no
 * ld.so.cache, so a library the host finds through ld.so.conf goes into one
 * of the loader's default directories in the guest.
 */
#ifndef REWIND_ELF_DEPS_H
#define REWIND_ELF_DEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELF_DEPS_MAX_OBJECTS 256		 /* shared objects, the interpreter included */
#define ELF_DEPS_MAX_BYTES   ((uint64_t)1 << 30) /* their sizes together */

/* What the resolution reads from the host; NULL or 0 fields take the defaults. */
struct elf_deps_config {
	const char *root;	/* absolute prefix of every system path read; NULL or "": / */
	const char *ld_so_conf; /* glibc's directories, under root; NULL: /etc/ld.so.conf */
	size_t max_objects;	/* 0: ELF_DEPS_MAX_OBJECTS */
	uint64_t max_bytes;	/* 0: ELF_DEPS_MAX_BYTES */
};

struct elf_dep {
	char *host_path;  /* the file to read, every symlink resolved */
	char *guest_path; /* where it goes in the guest: where the guest's loader looks for it */
};

struct elf_deps {
	struct elf_dep *items; /* the interpreter first, then the libraries breadth first */
	size_t count;
	bool dynamic;	  /* the program names an interpreter (PT_INTERP) */
	char interp[256]; /* that interpreter's path; "" when !dynamic */
};

/*
 * The interpreter and every shared object (transitively) that the ELF
 * program at host_path, to be placed in the guest at guest_path, needs; glibc
 * programs also get libgcc_s.so.1 where the host has it. A file with no
 * PT_INTERP (a static or static-pie program, a shared library, a file that
 * is not ELF at all) gives dynamic=false and no items. An ELF file that is
 * not x86-64, a corrupt one, a library that cannot be found: -errno, with a
 * message that names the file and which object needs it. *out is always
 * initialised; elf_deps_free it.
 */
int elf_deps_find(const char *host_path, const char *guest_path, const struct elf_deps_config *cfg,
		  struct elf_deps *out);

void elf_deps_free(struct elf_deps *d);

#endif

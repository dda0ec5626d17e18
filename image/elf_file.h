/* SPDX-License-Identifier: MIT */
/*
 * Reading an untrusted x86-64 ELF file, already in memory, as the kernel
 * and the dynamic loaders read it: the ELF header, PT_INTERP, the PT_LOAD
 * segments, and what the dynamic section says a loader needs (DT_NEEDED,
 * DT_SONAME, DT_RPATH, DT_RUNPATH, DT_FLAGS_1). Every offset, size and
 * string is checked against the file before it is used; a corrupt file is
 * refused with -ENOEXEC and a message that names it (rw_err) and says what
 * is wrong.
 */
#ifndef REWIND_ELF_FILE_H
#define REWIND_ELF_FILE_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELF_MAX_NEEDED 1024 /* DT_NEEDED entries of one object */

/* An ELF file read into memory, and how messages name it. */
struct elf_file {
	const uint8_t *data;
	size_t size;
	const char *shown;
	Elf64_Ehdr eh; /* filled by elf_program, elf_library and elf_object */
};

/* The PT_INTERP and PT_DYNAMIC program headers, the first of each. */
struct elf_segments {
	Elf64_Phdr interp, dynamic;
	bool has_interp, has_dynamic;
};

/* The extent of an object's PT_LOAD segments, and the first executable one. */
struct elf_loads {
	uint64_t lo, hi; /* the lowest p_vaddr, the highest p_vaddr + p_memsz; none: lo > hi */
	Elf64_Phdr text; /* the first PF_X PT_LOAD whose bytes lie inside the file */
	bool has_text;
};

/* What a dynamic section says that a loader uses; malloc'd strings (elf_dynamic_free). */
struct elf_dynamic {
	char *soname;
	char *rpath;   /* DT_RPATH; NULL when there is a DT_RUNPATH (both loaders then ignore it) */
	char *runpath; /* DT_RUNPATH */
	char **needed; /* DT_NEEDED, in order, none empty */
	size_t needed_count;
	bool nodeflib; /* DF_1_NODEFLIB: glibc skips the system directories for its needs */
};

/*
 * f as a program to run: 1 if it names an interpreter (*seg read: its
 * PT_INTERP and PT_DYNAMIC), 0 if there is nothing for a loader to do (not
 * ELF, no PT_INTERP, an object file or a core dump), -ENOEXEC if it is
 * corrupt or not x86-64 (reported).
 */
int elf_program(struct elf_file *f, struct elf_segments *seg);

/*
 * f as an x86-64 ELF object to read, whatever its type (a program, a PIE,
 * a shared object): 0 with f->eh read and its program headers inside the
 * file, or -ENOEXEC when it is not ELF, not x86-64 or corrupt (reported,
 * in elf_program's words).
 */
int elf_object(struct elf_file *f);

/* The first PT_INTERP and PT_DYNAMIC of f, read by elf_program or elf_object. */
void elf_segments(const struct elf_file *f, struct elf_segments *seg);

/*
 * The PT_LOAD segments of f, read by elf_program or elf_object: their
 * extent (a segment whose end overflows is left out) and the executable one.
 */
void elf_loads(const struct elf_file *f, struct elf_loads *l);

/*
 * PT_INTERP's path (ph) into out, checked as the kernel checks it: inside
 * the file, NUL-terminated, not empty, absolute. 0, -ENOEXEC or
 * -ENAMETOOLONG when it does not fit in len (reported).
 */
int elf_interp(const struct elf_file *f, const Elf64_Phdr *ph, char *out, size_t len);

/*
 * The dynamic section at ph into d, zeroed by the caller: its names, search
 * paths and needs. 0 or -ENOEXEC (reported); d holds what was read either
 * way: elf_dynamic_free it.
 */
int elf_dynamic_read(const struct elf_file *f, const Elf64_Phdr *ph, struct elf_dynamic *d);

/*
 * f as a candidate library (or an interpreter): 1 if it is an x86-64
 * shared object (its dynamic section read into d, zeroed by the caller), 0
 * if a loader would pass it over (not ELF, such as a linker script; another
 * class or machine, such as a 32-bit library; not ET_DYN), -ENOEXEC if it
 * is corrupt (reported). elf_dynamic_free d in any case.
 */
int elf_library(struct elf_file *f, struct elf_dynamic *d);

void elf_dynamic_free(struct elf_dynamic *d);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Code locations in the job's process: function, file and line of a code
 * address, inlined calls included, from the debug information of the
 * object it is in (binutils' addr2line): the program, whose addresses a
 * static or non-PIE build has on every run, and the objects mapped at
 * bases of the run (a PIE program, its shared libraries:
 * harness/explain/guest_maps.h). The files come from the guest's archives
 * (image/guest_files.h), so what is named is exactly what ran.
 */
#ifndef REWIND_SYMBOLS_H
#define REWIND_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CODE_FRAMES_MAX 4

struct code_frame {
	char function[96]; /* "??" when unknown */
	char file[160];	   /* "" when unknown */
	unsigned int line;
};

/* One address: the innermost frame first, then the functions it is inlined into. */
struct code_location {
	uint64_t addr;
	unsigned int depth;
	struct code_frame frames[CODE_FRAMES_MAX];
};

#define SYMBOLS_OBJECTS 24

/* One ELF object of the process: the program, or a shared object it maps. */
struct symbol_object {
	char name[256];	 /* its guest path */
	char path[4096]; /* a private copy of the file for addr2line (removed by close) */
	const uint8_t *elf;
	size_t size;
	uint64_t bias;				/* the run's address of its file address 0 */
	uint64_t text_lo, text_hi, text_offset; /* the executable segment (file addresses) */
	uint64_t first, span; /* its file addresses: from its first page up to span */
	bool is_shared;	      /* ET_DYN: a shared library or a PIE */
	bool is_dynamic;      /* it has a loader (PT_INTERP) */
};

struct symbols {
	bool ok; /* the program is open */
	struct symbol_object obj[SYMBOLS_OBJECTS];
	unsigned int count; /* obj[0] is the program */
};

/*
 * The guest path of the program a job ran, from the path its exec record
 * names (what the job's execve was given): a relative one ("./regress")
 * is taken from the job's working directory cwd (NULL: /), as the guest's
 * kernel took it. False if it does not fit in len.
 */
bool symbols_program_path(const char *cwd, const char *exe, char *out, size_t len);

/*
 * Prepares lookups in the ELF executable elf (size bytes; must outlive s),
 * at its file addresses: where a static or non-PIE program runs. 0 or
 * -errno.
 */
int symbols_open(struct symbols *s, const uint8_t *elf, size_t size);
void symbols_close(struct symbols *s);

/*
 * The object elf (the program, or a shared object named name) is mapped
 * at base in the run (the page with its ELF header). 0, or -errno (a
 * file that is no ELF object, no room).
 */
int symbols_mapped_at(struct symbols *s, const char *name, const uint8_t *elf, size_t size,
		      uint64_t base);

/* Whether the program's addresses, or its libraries', are the run's own (a PIE, a dynamic program).
 */
bool symbols_need_bases(const struct symbols *s);

/* Whether addr is in an executable segment of an object. */
bool symbols_in_text(const struct symbols *s, uint64_t addr);

/* Whether addr follows a call instruction: a return address on a stack. */
bool symbols_after_call(const struct symbols *s, uint64_t addr);

/*
 * Looks up n addresses at once: function, file and line from each
 * object's debug information; in an object without it, "NAME+0xOFFSET"
 * (its file name, the file address). 0, or -errno with out[] left "??".
 */
int symbols_lookup(const struct symbols *s, const uint64_t *addrs, size_t n,
		   struct code_location *out);

/* "deposit (guest/ledger.c:57), inlined into main (guest/ledger.c:101)" */
void code_location_text(const struct code_location *loc, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Code locations in the test binary: function, file and line of a code
 * address, inlined calls included, from the binary's own debug information
 * (binutils' addr2line; a static binary's addresses are the same on every
 * run). The binary comes from the guest's archives (image/guest_files.h),
 * so what is named is exactly what ran.
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

struct symbols {
	bool ok;
	char path[4096]; /* a private copy of the binary for addr2line (removed by close) */
	const uint8_t *elf;
	size_t size;
	uint64_t text_lo, text_hi, text_offset; /* the executable segment */
};

/* Prepares lookups in the ELF executable elf (size bytes; must outlive s). 0 or -errno. */
int symbols_open(struct symbols *s, const uint8_t *elf, size_t size);
void symbols_close(struct symbols *s);

/* Whether addr is in the executable segment. */
bool symbols_in_text(const struct symbols *s, uint64_t addr);

/* Whether addr follows a call instruction: a return address on a stack. */
bool symbols_after_call(const struct symbols *s, uint64_t addr);

/* Looks up n addresses at once. 0, or -errno with out[] left "??". */
int symbols_lookup(const struct symbols *s, const uint64_t *addrs, size_t n,
		   struct code_location *out);

/* "deposit (guest/ledger.c:57), inlined into main (guest/ledger.c:101)" */
void code_location_text(const struct code_location *loc, char *buf, size_t len);

#endif

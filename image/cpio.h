/* SPDX-License-Identifier: MIT */
/*
 * Deterministic "newc" cpio writer for initramfs images. Owners, times,
 * devices and inode numbers are fixed, so the same entries in the same order
 * give the same bytes on any host, whoever runs it and whenever.
 */
#ifndef REWIND_CPIO_H
#define REWIND_CPIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Longest entry name accepted, not counting its NUL (the kernel's limit). */
#define CPIO_NAME_MAX 4095

struct cpio_writer {
	FILE *out;
	uint64_t offset;   /* bytes written so far */
	uint32_t next_ino; /* inode numbers are handed out in order from 1 */
};

void cpio_writer_init(struct cpio_writer *w, FILE *out);

/* Each add returns 0, or -errno (EINVAL for a bad name or mode, EIO on write). */
int cpio_add_dir(struct cpio_writer *w, const char *name, uint32_t perm);
int cpio_add_file(struct cpio_writer *w, const char *name, uint32_t perm, const void *data,
		  size_t len);
int cpio_add_symlink(struct cpio_writer *w, const char *name, const char *target);

/* Writes the TRAILER!!! entry and pads the archive to a 512-byte block. */
int cpio_finish(struct cpio_writer *w);

#endif

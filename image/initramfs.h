/* SPDX-License-Identifier: MIT */
/*
 * An initramfs image described as a list of entries (directories, host files,
 * symlinks) and written deterministically: entries sorted by guest path,
 * missing parent directories added, nothing of the host's owners or times.
 */
#ifndef REWIND_INITRAMFS_H
#define REWIND_INITRAMFS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum initramfs_kind { INITRAMFS_DIR, INITRAMFS_FILE, INITRAMFS_SYMLINK, INITRAMFS_DATA };

struct initramfs_entry {
	enum initramfs_kind kind;
	char *path; /* guest path without the leading '/', e.g. "bin/hello" */
	uint32_t perm;
	char *source;	  /* FILE: host path to read; SYMLINK: link target */
	const void *data; /* DATA: the file's bytes (owned by the caller) */
	size_t len;
	int implicit; /* a parent directory initramfs_write added */
};

struct initramfs {
	struct initramfs_entry *entries;
	size_t count, capacity;
};

/*
 * Parses one command-line spec into an entry:
 *   dir    "GUEST[:PERM]"
 *   file   "HOST:GUEST[:PERM]"   (PERM defaults to 0755 if HOST is executable, else 0644)
 *   symlink "GUEST:TARGET"
 * PERM is octal. Returns 0 or -EINVAL (message printed).
 */
int initramfs_add_spec(struct initramfs *fs, enum initramfs_kind kind, const char *spec);

/* Adds a regular file whose bytes are in memory; data must outlive the write. */
void initramfs_add_data(struct initramfs *fs, const char *path, uint32_t perm, const void *data,
			size_t len);

/* Entries without a spec string (paths may hold ':'); guest paths as in the specs. */
void initramfs_add_file(struct initramfs *fs, const char *host, const char *guest, uint32_t perm);
void initramfs_add_dir(struct initramfs *fs, const char *guest, uint32_t perm);
void initramfs_add_symlink(struct initramfs *fs, const char *guest, const char *target);

/* Whether an entry with this guest path (leading '/' or not) was added. */
int initramfs_has(const struct initramfs *fs, const char *guest);

/* Sorts, adds parent directories, refuses duplicates, writes a newc archive. */
int initramfs_write(struct initramfs *fs, FILE *out);

void initramfs_free(struct initramfs *fs);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The files the guest sees, read from the archives a run boots it with (the
 * base initramfs and the job's archive: newc cpio in memory). The
 * explainer finds the test binary here to name code locations, artifacts
 * record the content hash of every added file, a crash bundle carries
 * those files without reading any host path again, and a command the guest
 * could not execute is explained from them (vmm/exec_check.c).
 */
#ifndef REWIND_GUEST_FILES_H
#define REWIND_GUEST_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct guest_file {
	char path[256]; /* as the guest sees it, with a leading '/' */
	uint32_t mode;	/* st_mode bits */
	const uint8_t *data;
	size_t size;
};

/*
 * The entry after *at in a newc archive of len bytes (start with *at = 0).
 * False at the end (the trailer) or at a malformed entry.
 */
bool guest_files_next(const uint8_t *archive, size_t len, size_t *at, struct guest_file *f);

/* Whether the archive has an entry of any kind (file, directory, link) at path. */
bool guest_files_has_entry(const uint8_t *archive, size_t len, const char *path);

/* The last regular file named path (later entries win, as in the kernel's unpacking). */
bool guest_files_find(const uint8_t *archive, size_t len, const char *path, struct guest_file *f);

#endif

/* SPDX-License-Identifier: MIT */
/* Whole-file helpers: read a file into memory, write one atomically. */
#ifndef REWIND_FILE_H
#define REWIND_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What file_read_all reads at most, for files with no cap of their own. */
#define FILE_READ_DEFAULT_MAX ((size_t)1 << 30)

struct file_part {
	const void *data;
	size_t len;
};

/*
 * Writes the parts to a temporary file beside path, fsyncs it and renames it
 * over path: a crash or a full disk never leaves a half-written file in place.
 * Returns 0 or -errno (message printed).
 */
int file_write_atomic(const char *path, const struct file_part *parts, size_t count);

/*
 * Reads all of path, an untrusted file, into a malloc'd buffer (*data, *len;
 * the caller frees *data). Never blocks on open and never reads what is not
 * a regular file (a FIFO, a device, a directory: -EINVAL), refuses a file of
 * more than max bytes without reading it (-EFBIG) and one that shrinks or
 * grows while it is read (-EIO). what names the file in messages: "the
 * kernel build/x is a FIFO, not a regular file: refusing to read it".
 * Returns 0 or -errno (message printed; *data and *len untouched).
 */
int file_read_max(const char *path, size_t max, const char *what, uint8_t **data, size_t *len);

/* file_read_max with what "file" and a cap of FILE_READ_DEFAULT_MAX. */
int file_read_all(const char *path, uint8_t **data, size_t *len);

/* What a file of this mode is, for messages: "a FIFO", "a directory", "a regular file". */
const char *file_kind_name(mode_t mode);

/* Whether path is dir or lies under it, by their words ("/a/bc" is not under "/a/b"). */
bool file_path_under(const char *path, const char *dir);

/* out = "dir/name"; -ENAMETOOLONG (reported) if it does not fit in len. */
int file_path_join(char *out, size_t len, const char *dir, const char *name);

/*
 * mkdir -p: path and every missing folder above it (0755); one that is
 * there already is fine. 0, or -1 (said: "cannot create the folder ...").
 */
int file_make_dir(const char *path);

#endif

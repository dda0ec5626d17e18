/* Whole-file helpers: read a file into memory, write one atomically. */
#ifndef REWIND_FILE_H
#define REWIND_FILE_H

#include <stddef.h>
#include <stdint.h>

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

/* Reads all of path into a malloc'd buffer. Returns 0 or -errno (message printed). */
int file_read_all(const char *path, uint8_t **data, size_t *len);

#endif

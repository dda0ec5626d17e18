/* SPDX-License-Identifier: MIT */
#include "image/guest_files.h"

#include "lib/hex.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define NEWC_HEADER 110

/* Field index of a newc header (8 hex digits each, after the 6-byte magic). */
static bool newc_field(const uint8_t *header, int index, uint32_t *out)
{
	uint32_t v = 0;

	for (int i = 0; i < 8; i++) {
		int digit = hex_digit_value((char)header[6 + 8 * index + i]);

		if (digit < 0)
			return false;
		v = v << 4 | (uint32_t)digit;
	}
	*out = v;
	return true;
}

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* The next entry after *at: a regular file, or (any_kind) any entry. */
static bool next_entry(const uint8_t *archive, size_t len, size_t *at, struct guest_file *f,
		       bool any_kind)
{
	/* the base archive may be padded with zeros before the next one starts */
	while (*at + 4 <= len && !memcmp(archive + *at, "\0\0\0\0", 4))
		*at += 4;
	for (;;) {
		const uint8_t *h = archive + *at;
		uint32_t mode, size, namesize;
		size_t name_at = *at + NEWC_HEADER, data_at;
		const char *name;

		if (*at > len || len - *at < NEWC_HEADER || memcmp(h, "070701", 6) != 0 ||
		    !newc_field(h, 1, &mode) || !newc_field(h, 6, &size) ||
		    !newc_field(h, 11, &namesize) || namesize == 0 || namesize > len - name_at ||
		    h[NEWC_HEADER + namesize - 1] != '\0')
			return false;
		data_at = align4(name_at + namesize);
		if (data_at > len || size > len - data_at)
			return false;
		*at = align4(data_at + size);
		if (!strcmp((const char *)h + NEWC_HEADER, "TRAILER!!!"))
			return false;
		if ((!any_kind && !S_ISREG(mode)) || namesize + 1 > sizeof(f->path))
			continue;
		name = (const char *)h + NEWC_HEADER;
		snprintf(f->path, sizeof(f->path), "/%s", name + (name[0] == '/'));
		f->mode = mode;
		f->data = archive + data_at;
		f->size = size;
		return true;
	}
}

bool guest_files_next(const uint8_t *archive, size_t len, size_t *at, struct guest_file *f)
{
	return next_entry(archive, len, at, f, false);
}

bool guest_files_has_entry(const uint8_t *archive, size_t len, const char *path)
{
	struct guest_file cur;

	for (size_t at = 0; next_entry(archive, len, &at, &cur, true);)
		if (!strcmp(cur.path, path))
			return true;
	return false;
}

bool guest_files_find(const uint8_t *archive, size_t len, const char *path, struct guest_file *f)
{
	struct guest_file cur;
	bool found = false;

	for (size_t at = 0; guest_files_next(archive, len, &at, &cur);) {
		if (!strcmp(cur.path, path)) {
			*f = cur;
			found = true;
		}
	}
	return found;
}

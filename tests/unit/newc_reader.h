/* SPDX-License-Identifier: MIT */
/* Test helper: reads back the entries of a newc archive held in memory. */
#ifndef REWIND_TEST_NEWC_READER_H
#define REWIND_TEST_NEWC_READER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct newc_entry {
	char name[256];
	uint32_t mode, uid, gid, mtime, size, ino;
	const char *data;
};

static inline uint32_t newc_field(const char *header, int index)
{
	char hex[9];

	memcpy(hex, header + 6 + 8 * index, 8);
	hex[8] = '\0';
	return (uint32_t)strtoul(hex, NULL, 16);
}

/* Parses the entry at *offset; returns 0 and advances, -1 on a malformed entry. */
static inline int newc_next(const char *buf, size_t len, size_t *offset, struct newc_entry *e)
{
	const char *h = buf + *offset;
	uint32_t namesize;

	if (*offset + 110 > len || memcmp(h, "070701", 6) != 0)
		return -1;
	e->ino = newc_field(h, 0);
	e->mode = newc_field(h, 1);
	e->uid = newc_field(h, 2);
	e->gid = newc_field(h, 3);
	e->mtime = newc_field(h, 5);
	e->size = newc_field(h, 6);
	namesize = newc_field(h, 11);
	if (namesize == 0 || namesize > sizeof(e->name) || *offset + 110 + namesize > len)
		return -1;
	memcpy(e->name, h + 110, namesize);
	*offset = (*offset + 110 + namesize + 3) & ~(size_t)3;
	e->data = buf + *offset;
	*offset = (*offset + e->size + 3) & ~(size_t)3;
	return *offset <= len ? 0 : -1;
}

#endif

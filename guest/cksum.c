/* SPDX-License-Identifier: MIT */
/*
 * cksum [FILE|-]...: POSIX cksum (the CRC-32 of the bytes and their
 * length, and the length), as coreutils prints it: "CRC SIZE NAME", no
 * name for stdin. The guest's busybox has no cksum applet; test scripts
 * use it to compare files.
 */
#include "guest/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

static uint32_t crc_table[256];

/* The table of POSIX's polynomial 0x04C11DB7, most significant bit first. */
static void make_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i << 24;

		for (int bit = 0; bit < 8; bit++)
			c = (c & 0x80000000u) ? (c << 1) ^ 0x04C11DB7u : c << 1;
		crc_table[i] = c;
	}
}

static uint32_t crc_byte(uint32_t crc, uint8_t byte)
{
	return (crc << 8) ^ crc_table[(crc >> 24) ^ byte];
}

/* Reads fd to the end: its CRC and size; false (message printed) on a read error. */
static bool sum(int fd, const char *name, uint32_t *crc_out, uint64_t *size_out)
{
	uint8_t buf[65536];
	uint32_t crc = 0;
	uint64_t size = 0;

	for (;;) {
		ssize_t n = gu_read(fd, buf, sizeof(buf), name);

		if (n < 0)
			return false;
		if (n == 0)
			break;
		for (ssize_t i = 0; i < n; i++)
			crc = crc_byte(crc, buf[i]);
		size += (uint64_t)n;
	}
	for (uint64_t len = size; len; len >>= 8) /* the length, least significant byte first */
		crc = crc_byte(crc, (uint8_t)len);
	*crc_out = ~crc;
	*size_out = size;
	return true;
}

/* Prints one file's line; name NULL: stdin. */
static bool cksum_file(const char *name)
{
	int fd = name ? open(name, O_RDONLY | O_CLOEXEC) : 0;
	uint32_t crc;
	uint64_t size;
	bool ok;

	if (fd < 0) {
		gu_warn_errno("open %s", name);
		return false;
	}
	ok = sum(fd, name ? name : "stdin", &crc, &size);
	if (ok && name)
		gu_say("%" PRIu32 " %" PRIu64 " %s\n", crc, size, name);
	else if (ok)
		gu_say("%" PRIu32 " %" PRIu64 "\n", crc, size);
	if (name && close(fd) < 0) {
		gu_warn_errno("close %s", name);
		ok = false;
	}
	return ok;
}

int main(int argc, char **argv)
{
	bool ok = true;

	make_table();
	if (argc < 2)
		return cksum_file(NULL) ? 0 : 1;
	for (int i = 1; i < argc; i++)
		ok = cksum_file(strcmp(argv[i], "-") ? argv[i] : NULL) && ok;
	return ok ? 0 : 1;
}

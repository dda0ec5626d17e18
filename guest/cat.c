/* SPDX-License-Identifier: MIT */
/*
 * cat: copies each file named on the command line (stdin when there is none
 * or for "-") to stdout. A tiny static tool, so the image needs no busybox.
 */
#include "guest/util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Copies fd to stdout; false (message printed) on a read error. */
static bool copy(int fd, const char *name)
{
	char buf[65536];

	for (;;) {
		ssize_t n = gu_read(fd, buf, sizeof(buf), name);
		int rc;

		if (n <= 0)
			return n == 0;
		rc = gu_write_all(1, buf, (size_t)n);
		if (rc < 0) {
			errno = -rc;
			gu_die_errno("write to stdout");
		}
	}
}

static bool cat_file(const char *name)
{
	int fd;
	bool ok;

	if (strcmp(name, "-") == 0)
		return copy(0, "stdin");
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		gu_warn_errno("open %s", name);
		return false;
	}
	ok = copy(fd, name);
	if (close(fd) < 0) {
		gu_warn_errno("close %s", name);
		ok = false;
	}
	return ok;
}

int main(int argc, char **argv)
{
	bool ok = true;

	if (argc < 2)
		return copy(0, "stdin") ? 0 : 1;
	for (int i = 1; i < argc; i++)
		ok = cat_file(argv[i]) && ok;
	return ok ? 0 : 1;
}

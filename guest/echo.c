/* SPDX-License-Identifier: MIT */
/*
 * echo: prints its arguments separated by spaces and a newline (none with a
 * first argument -n), in one write(). A tiny static tool, so the image needs
 * no busybox.
 */
#include "guest/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	bool newline = !(argc > 1 && strcmp(argv[1], "-n") == 0);
	int first = newline ? 1 : 2;
	size_t len = 1, used = 0;
	char *line;
	int rc;

	for (int i = first; i < argc; i++)
		len += strlen(argv[i]) + 1;
	line = malloc(len);
	if (!line)
		gu_die("out of memory for %zu bytes", len);
	for (int i = first; i < argc; i++) {
		size_t n = strlen(argv[i]);

		if (i > first)
			line[used++] = ' ';
		memcpy(line + used, argv[i], n);
		used += n;
	}
	if (newline)
		line[used++] = '\n';
	rc = gu_write_all(1, line, used);
	if (rc < 0) {
		errno = -rc;
		gu_die_errno("write to stdout");
	}
	free(line);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* What `rewind fuzz` says: its progress and results, and a log's last lines. */
#include "harness/fuzz/fuzz.h"

#include "lib/file.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define LOG_TAIL_MAX (64u << 20)

void fuzz_say(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", rw_log.program);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void fuzz_tail(const char *log, unsigned int lines)
{
	uint8_t *data;
	size_t len, from;
	unsigned int seen = 0;

	if (file_read_max(log, LOG_TAIL_MAX, "log", &data, &len))
		return;
	from = len;
	if (from && data[from - 1] == '\n')
		from--;
	while (from > 0 && seen < lines)
		seen += data[--from] == '\n';
	from += from > 0;
	fwrite(data + from, 1, len - from, stderr);
	free(data);
}

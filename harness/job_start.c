/* SPDX-License-Identifier: MIT */
#include "harness/job_start.h"

#include "harness/guest_output.h"
#include "lib/log.h"
#include "vmm/exec_check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SAID_LINES     4
#define CANNOT_EXECUTE ": cannot execute: "
#define INIT_PREFIX    "rewind-init: "

void job_start_output(const struct trace *t, size_t from, char *out, size_t len)
{
	char *said = guest_output_tail(t, from, SAID_LINES);
	size_t n = 0, end;

	out[0] = '\0';
	if (!said)
		return;
	end = strlen(said);
	while (end > 0 && (said[end - 1] == '\n' || said[end - 1] == '\r'))
		end--;
	for (size_t i = 0; i < end && n + 3 < len; i++) {
		if (said[i] == '\r')
			continue;
		if (said[i] == '\n') {
			out[n++] = ';';
			out[n++] = ' ';
		} else {
			out[n++] = said[i];
		}
	}
	out[n] = '\0';
	free(said);
}

/* The line of said where rewind-init says it cannot execute the command, or NULL. */
static const char *cannot_execute_line(const char *said, const char **cause)
{
	const char *line = NULL, *cannot = strstr(said, CANNOT_EXECUTE);

	for (const char *p = said; cannot && (p = strstr(p, INIT_PREFIX)) && p < cannot; p++)
		line = p;
	*cause = cannot;
	return line;
}

int job_start_check(const struct trace *t, size_t from, const struct run_inputs *in)
{
	char said[1024], path[256];
	const char *cause, *line, *path_at, *line_end;

	job_start_output(t, from, said, sizeof(said));
	line = cannot_execute_line(said, &cause);
	if (!line)
		return 0;
	path_at = line + strlen(INIT_PREFIX);
	snprintf(path, sizeof(path), "%.*s", (int)(cause - path_at), path_at);
	if (exec_check_loader(in, path))
		return -ENOEXEC;
	line_end = strstr(cause, "; ");
	rw_err("the guest cannot execute the job's command: %.*s",
	       (int)(line_end ? line_end - line : (long)strlen(line)), line);
	return -ENOEXEC;
}

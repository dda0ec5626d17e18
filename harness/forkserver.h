/*
 * The AFL++ forkserver, old protocol (the only one Debian's afl-fuzz 4.04c
 * speaks; see ../shared/notes/afl-forkserver-4.04c.md): hello with the map
 * size on fd 199, then per execution: was_killed in on fd 198, a pid out,
 * the run, a wait status out. A KVM VM cannot be used after fork(), so every
 * execution runs in this process and the pid reported is a fake one above
 * PID_MAX_LIMIT: afl's timeout kill() hits nothing.
 */
#ifndef REWIND_FORKSERVER_H
#define REWIND_FORKSERVER_H

#include "harness/harness.h"

#include <stdbool.h>

/* True when started by afl-fuzz (its shared map and control pipes are there). */
bool forkserver_wanted(void);

/*
 * The harness never outlives afl-fuzz, however afl-fuzz ends (a SIGKILL
 * too): the kernel sends it SIGKILL when afl-fuzz dies. 0, or -errno
 * (reported).
 */
int forkserver_tie_to_afl(void);

/*
 * Attaches afl's map, says hello, then serves executions until afl closes
 * the pipe. input_path: the @@ file (NULL: testcases come on stdin, or in
 * shared memory when afl offers it). Returns the process exit status.
 */
int forkserver_serve(struct harness *h, const char *input_path);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The AFL++ forkserver, old protocol (the only one Debian's afl-fuzz 4.04c
 * speaks; its words and fds are harness/afl_protocol.h's): hello with the
 * map size on fd 199, then per execution: afl-fuzz zeroes the map and
 * writes was_killed (1 if it killed the last run on its timeout) on fd 198;
 * the target answers a pid, runs the input, and writes a waitpid() status.
 *
 * A KVM VM cannot be used after fork() (KVM_RUN fails with EIO in another
 * mm), so every execution runs in this process and the pid reported is a
 * fake one above PID_MAX_LIMIT: afl's timeout kill() hits nothing. afl-fuzz
 * then blocks on the status, so a run must end by itself (the harness's
 * step and wall budgets). afl-fuzz counts a run as a crash when its status
 * says a signal killed it; a crash is kept only when its map adds new bits
 * to the crash map, so the failure's class goes into the map. Hit counts
 * are bucketed (1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+) and must saturate,
 * not wrap.
 */
#ifndef REWIND_FORKSERVER_H
#define REWIND_FORKSERVER_H

#include "harness/harness.h"
#include "harness/outcome_cache.h"

#include <stdbool.h>

/* True when started by afl-fuzz (its shared map and control pipes are there). */
bool forkserver_wanted(void);

/*
 * The harness never outlives afl-fuzz, however afl-fuzz ends (a SIGKILL
 * too): the kernel sends it SIGKILL when afl-fuzz dies. 0, or -errno
 * (reported).
 */
int forkserver_tie_to_afl(void);

struct testcase_source {
	const char *path; /* the @@ file, or NULL */
	uint8_t *shm;	  /* afl's testcase shared memory, or NULL */
	uint8_t buf[INPUT_MAX_SIZE + 1];
};

/* The forkserver's state: where testcases come from, outcomes of recent runs. */
struct forkserver {
	struct testcase_source src;
	struct outcome_cache cache; /* zeroed until forkserver_hello sets it up */
};

/*
 * Attaches afl's map (h->map, h->map_size cut to what afl offers) and says
 * hello. input_path: the @@ file (NULL: testcases come on stdin, or in
 * shared memory when afl offers it). The hello comes before the guest
 * boots: afl-fuzz waits for it only 10 times its -t (10 s by default),
 * while it waits for the first execution's pid as long as it takes, and a
 * boot in a loaded box takes longer. 0, or -errno (reported).
 */
int forkserver_hello(struct forkserver *fs, struct harness *h, const char *input_path);

/* Serves executions until afl closes the pipe. Returns the process exit status. */
int forkserver_serve(struct forkserver *fs, struct harness *h);

/* Frees what forkserver_hello set up (nothing, if it did not get that far). */
void forkserver_close(struct forkserver *fs);

#endif

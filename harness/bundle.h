/* SPDX-License-Identifier: MIT */
/*
 * Crash bundles: a directory that carries everything a replay needs, so a
 * failure found on one machine replays on another with a different checkout:
 *   crash.json       the artifact (input, job, identity, outcome, added files)
 *   kernel           the guest kernel, initramfs.cpio the base initramfs
 *   job.cpio         the job's archive as the run had it: the command, its
 *                    setup, the files and directories it added, the loader
 *                    and libraries of a dynamic program
 *   files/HASH       each file the job added, named by its XXH3-64 (hex)
 * A replay reads nothing else and checks every file against the hash the
 * artifact records before it uses it. It runs job.cpio as it is; a replay
 * that changes the job (a fix) builds the job again from files/.
 */
#ifndef REWIND_BUNDLE_H
#define REWIND_BUNDLE_H

#include "harness/replay_case.h"

#include <stdbool.h>

#define BUNDLE_ARTIFACT "crash.json"

/* Whether path is a bundle directory (holds crash.json). */
bool bundle_is(const char *path);

/*
 * Writes the bundle of the run ex just made of c into dir, which must not
 * exist yet (nothing is overwritten). 0 or -errno (reported).
 */
int bundle_write(const char *dir, const struct replay_case *c, const struct executor *ex,
		 const struct exec_result *res);

/*
 * Points c's kernel, initramfs and job archive (or, in a bundle without
 * one, its added files) at the bundle's copies, each checked against its
 * recorded hash. 0 or -EINVAL (reported).
 */
int bundle_locate(const char *dir, struct replay_case *c);

/* Points c's added files at the bundle's copies, for a job built again. */
int bundle_locate_adds(const char *dir, struct replay_case *c);

#endif

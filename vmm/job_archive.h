/* SPDX-License-Identifier: MIT */
/*
 * The job's archive, appended to the base image: /rewind/job (the command),
 * /rewind/setup (user, working directory, environment, the user's files;
 * guest/job_file.h), and what --add puts into the guest: files, whole
 * directories, and the loader and shared libraries a dynamically linked
 * program needs. A pure function of the options and the files they name.
 */
#ifndef REWIND_JOB_ARCHIVE_H
#define REWIND_JOB_ARCHIVE_H

#include "vmm/run.h"

#include <stddef.h>
#include <stdint.h>

/* Builds the archive (newc) into a new buffer. 0 or -errno (reported, naming the option). */
int job_archive_build(const struct run_options *opt, uint8_t **out, size_t *len);

/*
 * The guest path an add "HOST[:GUEST[:PERM]]" puts HOST at, normalised
 * (no "." or ".." parts, no repeated or trailing '/'): GUEST, else
 * /bin/NAME for a file and the host's own absolute path for a directory.
 * 0, or -EINVAL (reported) for a guest path that is not absolute or
 * climbs with "..", or that the guest hides or needs for itself.
 */
int job_archive_guest_path(const char *add, char *out, size_t len);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The job's archive, appended to the base image: /rewind/job (the command),
 * /rewind/setup (user, working directory, environment, the user's files;
 * guest/job_file.h), and what --add puts into the guest: files, whole
 * directories, and the loader and shared libraries a dynamically linked
 * program needs. A pure function of the job and the files it names.
 */
#ifndef REWIND_JOB_ARCHIVE_H
#define REWIND_JOB_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

/* The job as the guest gets it (a run's options name it: vmm/run_options.h). */
struct job_archive_spec {
	char *const *argv; /* the command */
	size_t argc;
	const char *const *adds; /* HOST[:GUEST]: a file, or a directory and all in it */
	size_t add_count;
	const char *user;	 /* NAME or UID[:GID] (NULL: root) */
	const char *cwd;	 /* NULL: / */
	const char *const *envs; /* NAME=VALUE */
	size_t env_count;
};

/* Builds the archive (newc) into a new buffer. 0 or -errno (reported, naming the option). */
int job_archive_build(const struct job_archive_spec *opt, uint8_t **out, size_t *len);

/*
 * The guest path an add "HOST[:GUEST[:PERM]]" puts HOST at, normalised
 * (no "." or ".." parts, no repeated or trailing '/'): GUEST, else
 * /bin/NAME for a file and the host's own absolute path for a directory.
 * 0, or -EINVAL (reported) for a guest path that is not absolute or
 * climbs with "..", or that the guest hides or needs for itself.
 */
int job_archive_guest_path(const char *add, char *out, size_t len);

#endif

/* SPDX-License-Identifier: MIT */
#include "harness/bundle.h"

#include "image/guest_files.h"
#include "lib/file.h"
#include "lib/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#define BUNDLE_KERNEL	 "kernel"
#define BUNDLE_INITRAMFS "initramfs.cpio"
#define BUNDLE_FILES	 "files"
#define BUNDLE_JOB	 "job.cpio"
#define BUNDLE_MAX_FILE	 (1ull << 30)

bool bundle_is(const char *path)
{
	char p[4096];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", path, BUNDLE_ARTIFACT);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode) && lstat(p, &st) == 0 &&
	       S_ISREG(st.st_mode);
}

static int write_file(const char *dir, const char *name, const void *data, size_t len)
{
	char path[4096];
	struct file_part part = {data, len};

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return file_write_atomic(path, &part, 1);
}

static int write_added_files(const char *dir, const struct executor *ex)
{
	char name[64];
	struct guest_file f;
	int rc = 0;

	snprintf(name, sizeof(name), "%s/%s", dir, BUNDLE_FILES);
	if (mkdir(name, 0755) < 0) {
		rw_err_errno(errno, "cannot create %s", name);
		return -errno;
	}
	for (size_t at = 0;
	     !rc && guest_files_next(ex->in.job_archive, ex->in.job_archive_len, &at, &f);) {
		if (!strcmp(f.path, "/rewind/job"))
			continue;
		snprintf(name, sizeof(name), "%s/%016" PRIx64, BUNDLE_FILES,
			 XXH3_64bits(f.data, f.size));
		rc = write_file(dir, name, f.data, f.size);
	}
	return rc;
}

int bundle_write(const char *dir, const struct replay_case *c, const struct executor *ex,
		 const struct exec_result *res)
{
	uint8_t raw[INPUT_MAX_SIZE];
	size_t raw_len = input_encode(&c->input, raw);
	char path[4096];
	int rc;

	if (mkdir(dir, 0755) < 0) {
		rw_err_errno(errno, "cannot create the bundle %s (it must not exist yet)", dir);
		return -errno;
	}
	rc = write_file(dir, BUNDLE_KERNEL, ex->in.kernel, ex->in.kernel_len);
	if (!rc)
		rc = write_file(dir, BUNDLE_INITRAMFS, ex->in.base_initrd, ex->in.base_initrd_len);
	if (!rc)
		rc = write_file(dir, BUNDLE_JOB, ex->in.job_archive, ex->in.job_archive_len);
	if (!rc)
		rc = write_added_files(dir, ex);
	snprintf(path, sizeof(path), "%s/%s", dir, BUNDLE_ARTIFACT);
	/* the artifact last: a bundle with crash.json is complete */
	if (!rc)
		rc = artifact_write_to(path, &c->job, ex, raw, raw_len, &c->input, res);
	return rc;
}

/* dir/name, a regular file (not a link) whose content hashes to want. */
static int checked_path(const char *dir, const char *name, uint64_t want, char *out, size_t len)
{
	struct stat st;
	uint8_t *data;
	size_t size;
	uint64_t got;

	snprintf(out, len, "%s/%s", dir, name);
	if (lstat(out, &st) < 0 || !S_ISREG(st.st_mode)) {
		rw_err("the bundle %s has no file %s (or it is not a regular file)", dir, name);
		return -EINVAL;
	}
	if (file_read_max(out, BUNDLE_MAX_FILE, "bundled file", &data, &size) < 0)
		return -EINVAL;
	got = XXH3_64bits(data, size);
	free(data);
	if (got != want) {
		rw_err("the bundle's %s is damaged: its hash is 0x%016" PRIx64
		       ", the artifact records 0x%016" PRIx64,
		       out, got, want);
		return -EINVAL;
	}
	return 0;
}

static const struct artifact_file *bundled_file(const struct artifact_expect *e, const char *guest)
{
	for (size_t i = 0; i < e->file_count; i++)
		if (!strcmp(e->files[i].guest, guest))
			return &e->files[i];
	return NULL;
}

/* Every add of the job comes from the bundle, found by its guest path. */
int bundle_locate_adds(const char *dir, struct replay_case *c)
{
	char guest[4096], name[64], path[4096], spec[8400];

	for (size_t i = 0; i < c->job.run.add_count; i++) {
		const struct artifact_file *f;

		job_add_guest_path(c->job.adds[i], guest, sizeof(guest));
		f = bundled_file(&c->expect, guest);
		if (!f) {
			rw_err("the bundle %s does not carry %s, which its job adds (a directory "
			       "is "
			       "carried whole only in its job.cpio: replay it without changing the "
			       "job)",
			       dir, guest);
			return -EINVAL;
		}
		snprintf(name, sizeof(name), "%s/%016" PRIx64, BUNDLE_FILES, f->xxh3);
		if (checked_path(dir, name, f->xxh3, path, sizeof(path)) < 0)
			return -EINVAL;
		snprintf(spec, sizeof(spec), "%s:%s:%o", path, guest, f->mode & 0777);
		if (job_add_file(&c->job, spec) < 0)
			return -EINVAL;
	}
	return 0;
}

int bundle_locate(const char *dir, struct replay_case *c)
{
	char path[4096];

	if (checked_path(dir, BUNDLE_KERNEL, c->expect.identity.kernel_xxh3, path, sizeof(path)) <
		    0 ||
	    job_set_kernel(&c->job, path) < 0)
		return -EINVAL;
	if (checked_path(dir, BUNDLE_INITRAMFS, c->expect.identity.initramfs_xxh3, path,
			 sizeof(path)) < 0 ||
	    job_set_initramfs(&c->job, path) < 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%s", dir, BUNDLE_JOB);
	if (access(path, F_OK) < 0) /* a bundle from before job.cpio */
		return bundle_locate_adds(dir, c);
	if (checked_path(dir, BUNDLE_JOB, c->expect.identity.job_xxh3, path, sizeof(path)) < 0 ||
	    job_set_archive(&c->job, path) < 0)
		return -EINVAL;
	return 0;
}

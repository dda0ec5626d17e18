/* SPDX-License-Identifier: MIT */
/* The job's archive: command, setup and the user's files (image/job_archive.h). */
#include "image/job_archive.h"

#include "image/elf_deps.h"
#include "image/initramfs.h"
#include "lib/log.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TREE_MAX_ENTRIES 200000 /* files, directories and links of all added trees */
#define TREE_MAX_DEPTH	 64

/*
 * Guest paths an add may not use: the guest mounts proc, sysfs and devtmpfs
 * over the first three (what is added there would be hidden), /rewind holds
 * the job itself and /init is rewind-init.
 */
static const struct {
	const char *path, *why;
} refused_paths[] = {
	{"/proc", "the guest mounts proc there, which would hide it"},
	{"/sys", "the guest mounts sysfs there, which would hide it"},
	{"/dev", "the guest mounts devtmpfs there, which would hide it"},
	{"/rewind", "it holds the job's own files"},
	{"/init", "it is the guest's init"},
};

/* A growing buffer of NUL-terminated strings (/rewind/job, /rewind/setup). */
struct strings {
	char *buf;
	size_t len, cap;
};

static int strings_add(struct strings *s, const char *a, const char *b)
{
	size_t n = strlen(a) + (b ? strlen(b) : 0) + 1;

	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		char *bigger;

		while (cap < s->len + n)
			cap *= 2;
		bigger = realloc(s->buf, cap);
		if (!bigger)
			return -ENOMEM;
		s->buf = bigger;
		s->cap = cap;
	}
	s->len += (size_t)sprintf(s->buf + s->len, "%s%s", a, b ? b : "") + 1;
	return 0;
}

/*
 * Normalises a guest path to an absolute one (a relative path is taken from
 * the root, as the archive stores it): no "." parts, no repeated or
 * trailing '/'; ".." is refused.
 */
static int normalise(const char *in, char *out, size_t len)
{
	size_t n = 0;

	for (const char *p = in; *p;) {
		size_t part = strcspn(p + strspn(p, "/"), "/");
		const char *start = p + strspn(p, "/");

		p = start + part;
		if (part == 0 || (part == 1 && start[0] == '.'))
			continue;
		if (part == 2 && start[0] == '.' && start[1] == '.')
			return -EINVAL;
		if (n + 1 + part + 1 > len)
			return -ENAMETOOLONG;
		out[n++] = '/';
		memcpy(out + n, start, part);
		n += part;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	return 0;
}

/* The reason a normalised guest path may not be added to, or NULL. */
static const char *refused_why(const char *guest)
{
	for (size_t i = 0; i < sizeof(refused_paths) / sizeof(refused_paths[0]); i++) {
		size_t n = strlen(refused_paths[i].path);

		if (!strncmp(guest, refused_paths[i].path, n) &&
		    (guest[n] == '\0' || guest[n] == '/'))
			return refused_paths[i].why;
	}
	return NULL;
}

/* An add split: host path, guest path (as given, may be empty) and permissions (or -1). */
struct add_spec {
	char host[PATH_MAX], guest[PATH_MAX];
	long perm;
};

static int split_add(const char *add, struct add_spec *a)
{
	const char *colon = strchr(add, ':'), *second = colon ? strchr(colon + 1, ':') : NULL;
	size_t host_len = colon ? (size_t)(colon - add) : strlen(add);
	size_t guest_len = second ? (size_t)(second - colon - 1) : colon ? strlen(colon + 1) : 0;
	char *end;

	a->perm = -1;
	if (host_len == 0 || host_len >= sizeof(a->host) || guest_len >= sizeof(a->guest))
		return -EINVAL;
	memcpy(a->host, add, host_len);
	a->host[host_len] = '\0';
	memcpy(a->guest, colon ? colon + 1 : "", guest_len);
	a->guest[guest_len] = '\0';
	if (second) {
		errno = 0;
		a->perm = strtol(second + 1, &end, 8);
		if (errno || end == second + 1 || *end || a->perm < 0 || a->perm > 07777)
			return -EINVAL;
	}
	return 0;
}

/* The guest path of a split add: as given, else /bin/NAME or a directory's own path. */
static int guest_path_of(const char *add, const struct add_spec *a, bool is_dir, char *out,
			 size_t len)
{
	char given[PATH_MAX + 8];
	const char *why;
	int rc;

	if (a->guest[0]) {
		snprintf(given, sizeof(given), "%s", a->guest);
	} else if (is_dir) {
		if (!realpath(a->host, given)) {
			rw_err_errno(errno, "--add %s: cannot resolve the directory", add);
			return -errno;
		}
	} else {
		const char *slash = strrchr(a->host, '/');

		snprintf(given, sizeof(given), "/bin/%s", slash ? slash + 1 : a->host);
	}
	rc = normalise(given, out, len);
	if (rc < 0) {
		rw_err("--add %s: the guest path %s may not climb with \"..\"", add, given);
		return -EINVAL;
	}
	why = refused_why(out);
	if (why || !strcmp(out, "/")) {
		rw_err("--add %s: cannot put anything at %s in the guest: %s", add, out,
		       why ? why : "a file cannot replace the root directory");
		return -EINVAL;
	}
	return 0;
}

int job_archive_guest_path(const char *add, char *out, size_t len)
{
	struct add_spec a;
	struct stat st;

	if (split_add(add, &a) < 0) {
		rw_err("--add %s: expected HOST[:GUEST[:PERM]] (PERM octal)", add);
		return -EINVAL;
	}
	return guest_path_of(add, &a, stat(a.host, &st) == 0 && S_ISDIR(st.st_mode), out, len);
}

/* What adding the user's trees has cost so far (TREE_MAX_ENTRIES). */
struct tree_walk {
	struct initramfs *fs;
	const char *add; /* for messages */
	size_t entries;
};

static int add_tree(struct tree_walk *w, const char *host, const char *guest, int depth);

/* One entry of a directory being added: a file, a link, or a directory (recursively). */
static int add_tree_entry(struct tree_walk *w, const char *host, const char *guest, int depth)
{
	struct stat st;

	if (++w->entries > TREE_MAX_ENTRIES) {
		rw_err("--add %s: more than %d files and directories", w->add, TREE_MAX_ENTRIES);
		return -E2BIG;
	}
	if (lstat(host, &st) < 0) {
		rw_err_errno(errno, "--add %s: cannot read %s", w->add, host);
		return -errno;
	}
	if (S_ISDIR(st.st_mode))
		return add_tree(w, host, guest, depth + 1);
	if (S_ISREG(st.st_mode)) {
		initramfs_add_file(w->fs, host, guest, st.st_mode & 07777);
		return 0;
	}
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(host, target, sizeof(target) - 1);

		if (n <= 0) {
			rw_err_errno(errno, "--add %s: cannot read the link %s", w->add, host);
			return -EIO;
		}
		target[n] = '\0';
		initramfs_add_symlink(w->fs, guest, target);
		return 0;
	}
	return 0; /* a socket, FIFO or device file: a directory's files only (docs/harness.md) */
}

/* A directory and everything in it; entries keep their permissions, links stay links. */
static int add_tree(struct tree_walk *w, const char *host, const char *guest, int depth)
{
	char child_host[PATH_MAX], child_guest[PATH_MAX];
	struct dirent **names;
	struct stat st;
	int n, rc = 0;

	if (depth > TREE_MAX_DEPTH) {
		rw_err("--add %s: directories nested more than %d deep at %s", w->add,
		       TREE_MAX_DEPTH, host);
		return -ELOOP;
	}
	if (stat(host, &st) < 0 || (n = scandir(host, &names, NULL, alphasort)) < 0) {
		rw_err_errno(errno, "--add %s: cannot read the directory %s", w->add, host);
		return -errno;
	}
	initramfs_add_dir(w->fs, guest, st.st_mode & 07777);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;

		if (!rc && strcmp(name, ".") && strcmp(name, "..")) {
			if (snprintf(child_host, sizeof(child_host), "%s/%s", host, name) >=
				    (int)sizeof(child_host) ||
			    snprintf(child_guest, sizeof(child_guest), "%s/%s", guest, name) >=
				    (int)sizeof(child_guest)) {
				rw_err("--add %s: the path of %s/%s is too long", w->add, host,
				       name);
				rc = -ENAMETOOLONG;
			} else {
				rc = add_tree_entry(w, child_host, child_guest, depth);
			}
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

/* One --add: a file or a whole directory; its guest path goes to the setup's own= list. */
static int add_user_path(struct initramfs *fs, struct strings *setup, const char *add,
			 size_t *tree_entries)
{
	char guest[PATH_MAX];
	struct add_spec a;
	struct stat st;
	int rc;

	if (split_add(add, &a) < 0) {
		rw_err("--add %s: expected HOST[:GUEST[:PERM]] (PERM octal)", add);
		return -EINVAL;
	}
	if (stat(a.host, &st) < 0) {
		rw_err_errno(errno, "--add %s: cannot add %s", add, a.host);
		return -errno;
	}
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
		rw_err("--add %s: %s is neither a regular file nor a directory", add, a.host);
		return -EINVAL;
	}
	rc = guest_path_of(add, &a, S_ISDIR(st.st_mode), guest, sizeof(guest));
	if (rc)
		return rc;
	if (S_ISDIR(st.st_mode)) {
		struct tree_walk w = {.fs = fs, .add = add, .entries = *tree_entries};
		size_t top = fs->count; /* add_tree adds the directory itself first */

		rc = add_tree(&w, a.host, guest, 0);
		*tree_entries = w.entries;
		if (!rc && a.perm >= 0)
			fs->entries[top].perm = (uint32_t)a.perm;
	} else if (a.perm >= 0) {
		initramfs_add_file(fs, a.host, guest, (uint32_t)a.perm);
	} else {
		initramfs_add_file(fs, a.host, guest, (st.st_mode & S_IXUSR) ? 0755u : 0644u);
	}
	return rc ? rc : strings_add(setup, "own=", guest);
}

/*
 * The loader and shared libraries every added program needs (a program:
 * an executable file with an interpreter), from the host, where the
 * guest's loader looks for them. What the user added wins: a library the
 * job adds itself (its build tree's) is not replaced.
 */
static int add_shared_libraries(struct initramfs *fs)
{
	size_t added = fs->count;
	int rc = 0;

	for (size_t i = 0; i < added && !rc; i++) {
		const struct initramfs_entry *e = &fs->entries[i];
		char guest[PATH_MAX];
		struct elf_deps deps;

		if (e->kind != INITRAMFS_FILE || !(e->perm & 0111))
			continue;
		snprintf(guest, sizeof(guest), "/%s", e->path);
		rc = elf_deps_find(e->source, guest, NULL, &deps);
		for (size_t j = 0; !rc && j < deps.count; j++) {
			if (!initramfs_has(fs, deps.items[j].guest_path))
				initramfs_add_file(fs, deps.items[j].host_path,
						   deps.items[j].guest_path, 0755);
		}
		if (rc)
			rw_err("%s, which the job adds at %s, is dynamically linked, and what it "
			       "needs cannot be put into the guest (see above)",
			       e->source, guest);
		elf_deps_free(&deps);
	}
	return rc;
}

/* The job's user, working directory and environment, checked, into the setup strings. */
static int add_setup(struct strings *setup, const struct job_archive_spec *opt)
{
	int rc = 0;

	if (opt->user) {
		if (!opt->user[0] || strchr(opt->user, '/') || strlen(opt->user) > 63) {
			rw_err("--user %s: give a user name of the guest (e.g. rewind), or "
			       "UID[:GID]",
			       opt->user);
			return -EINVAL;
		}
		rc = strings_add(setup, "user=", opt->user);
	}
	if (!rc && opt->cwd) {
		char cwd[PATH_MAX];

		if (normalise(opt->cwd, cwd, sizeof(cwd)) < 0 || refused_why(cwd)) {
			rw_err("--cwd %s: the working directory must be a guest path without "
			       "\"..\", outside /proc, /sys, /dev and /rewind",
			       opt->cwd);
			return -EINVAL;
		}
		rc = strings_add(setup, "cwd=", cwd);
	}
	for (size_t i = 0; !rc && i < opt->env_count; i++) {
		const char *eq = strchr(opt->envs[i], '=');

		if (!eq || eq == opt->envs[i]) {
			rw_err("--env %s: expected NAME=VALUE", opt->envs[i]);
			return -EINVAL;
		}
		rc = strings_add(setup, "env=", opt->envs[i]);
	}
	return rc;
}

int job_archive_build(const struct job_archive_spec *opt, uint8_t **out, size_t *len)
{
	struct initramfs fs = {0};
	struct strings job = {0}, setup = {0};
	size_t tree_entries = 0;
	FILE *f = open_memstream((char **)out, len);
	int rc = f ? add_setup(&setup, opt) : -ENOMEM;

	for (size_t i = 0; !rc && i < opt->argc; i++)
		rc = strings_add(&job, opt->argv[i], NULL);
	if (!rc)
		initramfs_add_data(&fs, "rewind/job", 0644, job.buf, job.len);
	for (size_t i = 0; !rc && i < opt->add_count; i++)
		rc = add_user_path(&fs, &setup, opt->adds[i], &tree_entries);
	if (!rc)
		rc = add_shared_libraries(&fs);
	/* without a user, directory or environment the files are root's: no setup */
	if (!rc && (opt->user || opt->cwd || opt->env_count))
		initramfs_add_data(&fs, "rewind/setup", 0644, setup.buf, setup.len);
	if (!rc)
		rc = initramfs_write(&fs, f);
	if (rc == -ENOMEM)
		rw_err("out of memory for the job's archive");
	if (f)
		fclose(f);
	initramfs_free(&fs);
	free(job.buf);
	free(setup.buf);
	return rc;
}

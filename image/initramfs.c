/* SPDX-License-Identifier: MIT */
#include "image/initramfs.h"

#include "image/cpio.h"
#include "lib/file.h"
#include "lib/log.h"

#include <stdlib.h>
#include <sys/stat.h>

#define INITRAMFS_DIR_PERM 0755u
#define INITRAMFS_MAX_FILE ((size_t)512 << 20) /* one added file, at most */

static void *check_alloc(void *p)
{
	if (!p) {
		rw_err("out of memory");
		abort();
	}
	return p;
}

static void initramfs_push(struct initramfs *fs, enum initramfs_kind kind, const char *path,
			   size_t path_len, uint32_t perm, const char *source)
{
	struct initramfs_entry *e;

	while (*path == '/' && path_len > 0) { /* stored without the leading '/' */
		path++;
		path_len--;
	}
	if (fs->count == fs->capacity) {
		fs->capacity = fs->capacity ? fs->capacity * 2 : 16;
		fs->entries = check_alloc(reallocarray(fs->entries, fs->capacity, sizeof(*e)));
	}
	e = &fs->entries[fs->count++];
	e->kind = kind;
	e->path = check_alloc(strndup(path, path_len));
	e->perm = perm;
	e->source = source ? check_alloc(strdup(source)) : NULL;
	e->data = NULL;
	e->len = 0;
	e->implicit = 0;
}

void initramfs_add_file(struct initramfs *fs, const char *host, const char *guest, uint32_t perm)
{
	initramfs_push(fs, INITRAMFS_FILE, guest, strlen(guest), perm, host);
}

void initramfs_add_dir(struct initramfs *fs, const char *guest, uint32_t perm)
{
	initramfs_push(fs, INITRAMFS_DIR, guest, strlen(guest), perm, NULL);
}

void initramfs_add_symlink(struct initramfs *fs, const char *guest, const char *target)
{
	initramfs_push(fs, INITRAMFS_SYMLINK, guest, strlen(guest), 0777u, target);
}

int initramfs_has(const struct initramfs *fs, const char *guest)
{
	guest += strspn(guest, "/");
	for (size_t i = 0; i < fs->count; i++)
		if (!strcmp(fs->entries[i].path, guest))
			return 1;
	return 0;
}

void initramfs_add_data(struct initramfs *fs, const char *path, uint32_t perm, const void *data,
			size_t len)
{
	initramfs_push(fs, INITRAMFS_DATA, path, strlen(path), perm, NULL);
	fs->entries[fs->count - 1].data = data;
	fs->entries[fs->count - 1].len = len;
}

static int parse_perm(const char *text, uint32_t *perm)
{
	char *end;
	unsigned long value;

	errno = 0;
	value = strtoul(text, &end, 8);
	if (errno || end == text || *end || value > 07777)
		return -EINVAL;
	*perm = (uint32_t)value;
	return 0;
}

/* Splits "PATH[:PERM]" at its last ':'; perm stays as given if there is none. */
static int split_path_perm(const char *text, size_t *path_len, uint32_t *perm)
{
	const char *colon = strrchr(text, ':');

	*path_len = colon ? (size_t)(colon - text) : strlen(text);
	if (colon && parse_perm(colon + 1, perm) < 0)
		return -EINVAL;
	return *path_len > strspn(text, "/") ? 0 : -EINVAL;
}

static int add_dir_spec(struct initramfs *fs, const char *spec)
{
	size_t len;
	uint32_t perm = INITRAMFS_DIR_PERM;

	if (split_path_perm(spec, &len, &perm) < 0)
		return -EINVAL;
	initramfs_push(fs, INITRAMFS_DIR, spec, len, perm, NULL);
	return 0;
}

static int add_file_spec(struct initramfs *fs, const char *spec)
{
	const char *colon = strchr(spec, ':');
	char *host;
	struct stat st;
	size_t len;
	uint32_t perm;
	int rc;

	if (!colon || colon == spec)
		return -EINVAL;
	host = check_alloc(strndup(spec, (size_t)(colon - spec)));
	if (stat(host, &st) < 0) {
		rw_err_errno(errno, "cannot add the file %s", host);
		free(host);
		return -ENOENT;
	}
	if (!S_ISREG(st.st_mode)) {
		rw_err("cannot add %s: it is %s, not a regular file", host,
		       file_kind_name(st.st_mode));
		free(host);
		return -ENOENT;
	}
	perm = (st.st_mode & S_IXUSR) ? 0755u : 0644u;
	rc = split_path_perm(colon + 1, &len, &perm);
	if (!rc)
		initramfs_push(fs, INITRAMFS_FILE, colon + 1, len, perm, host);
	free(host);
	return rc;
}

static int add_symlink_spec(struct initramfs *fs, const char *spec)
{
	const char *colon = strchr(spec, ':');

	if (!colon || colon == spec || colon[1] == '\0' ||
	    (size_t)(colon - spec) <= strspn(spec, "/"))
		return -EINVAL;
	initramfs_push(fs, INITRAMFS_SYMLINK, spec, (size_t)(colon - spec), 0777u, colon + 1);
	return 0;
}

int initramfs_add_spec(struct initramfs *fs, enum initramfs_kind kind, const char *spec)
{
	int rc;

	switch (kind) {
	case INITRAMFS_DIR:
		rc = add_dir_spec(fs, spec);
		break;
	case INITRAMFS_FILE:
		rc = add_file_spec(fs, spec);
		break;
	default:
		rc = add_symlink_spec(fs, spec);
		break;
	}
	if (rc == -EINVAL)
		rw_err("bad initramfs spec '%s' (see --help: permissions are octal, paths "
		       "non-empty)",
		       spec);
	return rc;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct initramfs_entry *)a)->path,
		      ((const struct initramfs_entry *)b)->path);
}

/* Whether sorted[0..n) has an entry of path[0..len). */
static int sorted_has(const struct initramfs_entry *sorted, size_t n, const char *path, size_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(sorted[mid].path, path, len);

		if (c == 0 && sorted[mid].path[len] != '\0')
			c = 1; /* longer than path: after it */
		if (c == 0)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/*
 * Adds every missing parent directory of every entry, then sorts: by a
 * binary search in the sorted entries, so a tree of many files costs
 * n log n, not n squared. A parent added for two entries is kept once.
 */
static void add_parents(struct initramfs *fs)
{
	size_t given = fs->count, kept = 0;

	qsort(fs->entries, given, sizeof(*fs->entries), entry_cmp);
	for (size_t i = 0; i < given; i++) {
		for (const char *slash = strchr(fs->entries[i].path, '/'); slash;
		     slash = strchr(slash + 1, '/')) {
			size_t len = (size_t)(slash - fs->entries[i].path);

			if (!sorted_has(fs->entries, given, fs->entries[i].path, len)) {
				initramfs_push(fs, INITRAMFS_DIR, fs->entries[i].path, len,
					       INITRAMFS_DIR_PERM, NULL);
				fs->entries[fs->count - 1].implicit = 1;
			}
		}
	}
	qsort(fs->entries, fs->count, sizeof(*fs->entries), entry_cmp);
	for (size_t i = 0; i < fs->count; i++) {
		struct initramfs_entry *e = &fs->entries[i];

		if (kept && e->implicit && !strcmp(fs->entries[kept - 1].path, e->path)) {
			free(e->path);
			free(e->source);
			continue;
		}
		fs->entries[kept++] = *e;
	}
	fs->count = kept;
}

static int write_entry(struct cpio_writer *w, const struct initramfs_entry *e)
{
	uint8_t *data;
	size_t len;
	int rc;

	switch (e->kind) {
	case INITRAMFS_DIR:
		return cpio_add_dir(w, e->path, e->perm);
	case INITRAMFS_SYMLINK:
		return cpio_add_symlink(w, e->path, e->source);
	case INITRAMFS_DATA:
		return cpio_add_file(w, e->path, e->perm, e->data, e->len);
	default:
		/* the host file may have changed since its spec was added */
		rc = file_read_max(e->source, INITRAMFS_MAX_FILE, "added file", &data, &len);
		if (rc)
			return rc;
		rc = cpio_add_file(w, e->path, e->perm, data, len);
		free(data);
		return rc;
	}
}

int initramfs_write(struct initramfs *fs, FILE *out)
{
	struct cpio_writer w;

	add_parents(fs);
	for (size_t i = 1; i < fs->count; i++) {
		if (!strcmp(fs->entries[i - 1].path, fs->entries[i].path)) {
			rw_err("initramfs path /%s is given twice", fs->entries[i].path);
			return -EINVAL;
		}
	}
	cpio_writer_init(&w, out);
	for (size_t i = 0; i < fs->count; i++) {
		int rc = write_entry(&w, &fs->entries[i]);

		if (rc) {
			rw_err("cannot add /%s to the initramfs (%s)", fs->entries[i].path,
			       strerror(-rc));
			return rc;
		}
	}
	return cpio_finish(&w);
}

void initramfs_free(struct initramfs *fs)
{
	for (size_t i = 0; i < fs->count; i++) {
		free(fs->entries[i].path);
		free(fs->entries[i].source);
	}
	free(fs->entries);
	*fs = (struct initramfs){0};
}

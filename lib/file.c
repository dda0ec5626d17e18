/* SPDX-License-Identifier: MIT */
#include "lib/file.h"

#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_all(int fd, const void *data, size_t len)
{
	const uint8_t *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The rename is durable only once the directory is on disk too. */
static int sync_directory_of(const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	int fd, rc = 0;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0 && errno != EINVAL) /* some file systems cannot sync a directory */
		rc = -errno;
	close(fd);
	return rc;
}

int file_write_atomic(const char *path, const struct file_part *parts, size_t count)
{
	char tmp[4096];
	int fd, rc = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(tmp)) {
		rw_err("path too long: %s", path);
		return -ENAMETOOLONG;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		rc = -errno;
		rw_err_errno(-rc, "cannot create a file beside %s", path);
		return rc;
	}
	for (size_t i = 0; i < count && !rc; i++)
		rc = write_all(fd, parts[i].data, parts[i].len);
	if (!rc && (fchmod(fd, 0644) < 0 || fsync(fd) < 0))
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	if (rc) {
		rw_err_errno(-rc, "cannot write %s (nothing was replaced)", path);
		unlink(tmp);
		return rc;
	}
	rc = sync_directory_of(path);
	if (rc)
		rw_err_errno(-rc, "wrote %s, but cannot sync its directory to disk", path);
	return rc;
}

bool file_path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (!path[n] || path[n] == '/');
}

int file_path_join(char *out, size_t len, const char *dir, const char *name)
{
	int n = snprintf(out, len, "%s/%s", dir, name);

	if (n >= 0 && (size_t)n < len)
		return 0;
	rw_err("path too long: %s/%s", dir, name);
	return -ENAMETOOLONG;
}

const char *file_kind_name(mode_t mode)
{
	if (S_ISREG(mode))
		return "a regular file";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/* "a" or "an" before what ("an initramfs", "a kernel"). */
static const char *article(const char *what)
{
	return what[0] && strchr("aeiou", what[0]) ? "an" : "a";
}

/* A size for a message: "64 MiB" or "12 KiB" when exact, else "70000001 bytes". */
static void format_size(uint64_t size, char *buf, size_t len)
{
	if (size && size % (1u << 20) == 0)
		snprintf(buf, len, "%" PRIu64 " MiB", size >> 20);
	else if (size && size % (1u << 10) == 0)
		snprintf(buf, len, "%" PRIu64 " KiB", size >> 10);
	else
		snprintf(buf, len, "%" PRIu64 " bytes", size);
}

/* Refuses what is not a regular file, or is bigger than max (message printed). */
static int check_readable(const char *path, const struct stat *st, size_t max, const char *what)
{
	if (!S_ISREG(st->st_mode)) {
		rw_err("the %s %s is %s, not a regular file: refusing to read it", what, path,
		       file_kind_name(st->st_mode));
		return -EINVAL;
	}
	if ((uint64_t)st->st_size > max) {
		char size[32], cap[32];

		format_size((uint64_t)st->st_size, size, sizeof(size));
		format_size(max, cap, sizeof(cap));
		rw_err("the %s %s is %s, more than the %s %s %s may be", what, path, size, cap,
		       article(what), what);
		return -EFBIG;
	}
	return 0;
}

/*
 * Opens path for reading without ever blocking (a FIFO with no writer, a
 * terminal) and checks it is a regular file of at most max bytes; stat first
 * so that a device is never even opened. Returns the fd (blocking again, for
 * the read) with its size in *size, or -errno (message printed).
 */
static int open_regular(const char *path, size_t max, const char *what, size_t *size)
{
	struct stat st;
	int fd, flags, rc;

	if (stat(path, &st) < 0) {
		rc = -errno;
		rw_err_errno(-rc, "cannot read the %s %s", what, path);
		return rc;
	}
	rc = check_readable(path, &st, max, what);
	if (rc)
		return rc;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) < 0 || (flags = fcntl(fd, F_GETFL)) < 0 ||
	    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		rc = -errno;
		rw_err_errno(-rc, "cannot read the %s %s", what, path);
	} else {
		rc = check_readable(path, &st, max, what); /* it may have been replaced */
	}
	if (rc) {
		if (fd >= 0)
			close(fd);
		return rc;
	}
	*size = (size_t)st.st_size;
	return fd;
}

/* Reads up to len bytes, stopping early only at end of file; *got says how many. */
static int read_up_to(int fd, uint8_t *buf, size_t len, size_t *got)
{
	*got = 0;
	while (*got < len) {
		ssize_t n = read(fd, buf + *got, len - *got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		*got += (size_t)n;
	}
	return 0;
}

/* Reads exactly the size fstat gave: a file that shrinks or grows meanwhile is refused. */
static int read_exactly(int fd, const char *path, const char *what, uint8_t *buf, size_t size)
{
	uint8_t extra;
	size_t got, more = 0;
	int rc = read_up_to(fd, buf, size, &got);

	if (!rc && got == size)
		rc = read_up_to(fd, &extra, 1, &more);
	if (rc) {
		rw_err_errno(-rc, "cannot read the %s %s", what, path);
		return rc;
	}
	if (got < size) {
		rw_err("the %s %s shrank while it was read (%zu of %zu bytes): refusing it", what,
		       path, got, size);
		return -EIO;
	}
	if (more) {
		rw_err("the %s %s grew while it was read (past %zu bytes): refusing it", what, path,
		       size);
		return -EIO;
	}
	return 0;
}

int file_read_max(const char *path, size_t max, const char *what, uint8_t **data, size_t *len)
{
	size_t size = 0;
	int fd = open_regular(path, max, what, &size);
	uint8_t *buf;
	int rc;

	if (fd < 0)
		return fd;
	buf = malloc(size ? size : 1);
	if (!buf) {
		rw_err("out of memory reading the %s %s (%zu bytes)", what, path, size);
		close(fd);
		return -ENOMEM;
	}
	rc = read_exactly(fd, path, what, buf, size);
	close(fd);
	if (rc) {
		free(buf);
		return rc;
	}
	*data = buf;
	*len = size;
	return 0;
}

int file_read_all(const char *path, uint8_t **data, size_t *len)
{
	return file_read_max(path, FILE_READ_DEFAULT_MAX, "file", data, len);
}

int file_make_dir(const char *path)
{
	char part[PATH_MAX];

	if ((size_t)snprintf(part, sizeof(part), "%s", path) >= sizeof(part)) {
		rw_err("cannot create the folder %s: the path is too long", path);
		return -1;
	}
	/* each folder above it, then itself */
	for (char *s = part + 1;; s++) {
		if (*s && *s != '/')
			continue;
		char end = *s;

		*s = 0;
		if (mkdir(part, 0755) && errno != EEXIST) {
			rw_err_errno(errno, "cannot create the folder %s", part);
			return -1;
		}
		*s = end;
		if (!end)
			return 0;
	}
}

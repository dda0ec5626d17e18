#include "vmm/file.h"

#include "vmm/log.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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
	}
	return rc;
}

int file_read_all(const char *path, uint8_t **data, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st) < 0) {
		int err = errno;
		rw_err_errno(err, "cannot read %s", path);
		if (fd >= 0)
			close(fd);
		return -err;
	}
	*len = (size_t)st.st_size;
	*data = malloc(*len ? *len : 1);
	if (!*data) {
		close(fd);
		return -ENOMEM;
	}
	for (size_t done = 0; done < *len; done += (size_t)n) {
		n = read(fd, *data + done, *len - done);
		if (n <= 0) {
			int err = n < 0 ? errno : EIO;
			rw_err_errno(err, "short read of %s", path);
			free(*data);
			close(fd);
			return -err;
		}
	}
	close(fd);
	return 0;
}

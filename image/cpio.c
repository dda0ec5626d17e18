/* SPDX-License-Identifier: MIT */
#include "image/cpio.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#define CPIO_MAGIC	"070701"
#define CPIO_HEADER_LEN 110
#define CPIO_ALIGN	4
#define CPIO_BLOCK	512
#define CPIO_PERM_MASK	07777u

static int cpio_write(struct cpio_writer *w, const void *data, size_t len)
{
	if (len && fwrite(data, 1, len, w->out) != len)
		return -EIO;
	w->offset += len;
	return 0;
}

static int cpio_pad(struct cpio_writer *w, uint64_t align)
{
	static const char zeros[CPIO_BLOCK];
	size_t pad = (size_t)((align - w->offset % align) % align);

	return cpio_write(w, zeros, pad);
}

/* Names are relative ("init", "bin/sh"): no leading '/', no empty or ".." part. */
static int cpio_name_ok(const char *name)
{
	size_t len = strlen(name);
	const char *part = name;

	if (len == 0 || len > CPIO_NAME_MAX || name[0] == '/')
		return 0;
	while (part) {
		const char *slash = strchr(part, '/');
		size_t n = slash ? (size_t)(slash - part) : strlen(part);

		if (n == 0 || (n == 2 && part[0] == '.' && part[1] == '.'))
			return 0;
		part = slash ? slash + 1 : NULL;
	}
	return 1;
}

static int cpio_add(struct cpio_writer *w, const char *name, uint32_t mode, const void *data,
		    size_t len)
{
	char header[CPIO_HEADER_LEN + 1];
	size_t name_size = strlen(name) + 1;
	int rc;

	if (!cpio_name_ok(name) || len > UINT32_MAX)
		return -EINVAL;
	/* magic ino mode uid gid nlink mtime filesize devmaj devmin rdevmaj rdevmin namesize check
	 */
	snprintf(header, sizeof(header), "%s%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08zX%08X",
		 CPIO_MAGIC, w->next_ino++, mode, 0u, 0u, S_ISDIR(mode) ? 2u : 1u, 0u,
		 (uint32_t)len, 0u, 0u, 0u, 0u, name_size, 0u);
	rc = cpio_write(w, header, CPIO_HEADER_LEN);
	if (!rc)
		rc = cpio_write(w, name, name_size);
	if (!rc)
		rc = cpio_pad(w, CPIO_ALIGN);
	if (!rc)
		rc = cpio_write(w, data, len);
	if (!rc)
		rc = cpio_pad(w, CPIO_ALIGN);
	return rc;
}

void cpio_writer_init(struct cpio_writer *w, FILE *out)
{
	*w = (struct cpio_writer){.out = out, .offset = 0, .next_ino = 1};
}

int cpio_add_dir(struct cpio_writer *w, const char *name, uint32_t perm)
{
	if (perm & ~CPIO_PERM_MASK)
		return -EINVAL;
	return cpio_add(w, name, S_IFDIR | perm, NULL, 0);
}

int cpio_add_file(struct cpio_writer *w, const char *name, uint32_t perm, const void *data,
		  size_t len)
{
	if (perm & ~CPIO_PERM_MASK)
		return -EINVAL;
	return cpio_add(w, name, S_IFREG | perm, data, len);
}

int cpio_add_symlink(struct cpio_writer *w, const char *name, const char *target)
{
	if (target[0] == '\0')
		return -EINVAL;
	return cpio_add(w, name, S_IFLNK | 0777u, target, strlen(target));
}

int cpio_finish(struct cpio_writer *w)
{
	int rc;

	/* The trailer is a regular entry with this reserved name and no data. */
	w->next_ino = 0;
	rc = cpio_add(w, "TRAILER!!!", 0, NULL, 0);
	if (!rc)
		rc = cpio_pad(w, CPIO_BLOCK);
	if (!rc && fflush(w->out) != 0)
		rc = -EIO;
	return rc;
}

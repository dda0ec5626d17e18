/*
 * rewind-mkinitramfs: writes a deterministic initramfs (newc cpio) from
 * host files, so no host time, owner or directory order leaks into a guest.
 */
#include "guest/initramfs.h"
#include "vmm/log.h"

#include <getopt.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *to)
{
	fprintf(to, "usage: rewind-mkinitramfs -o OUT [--dir GUEST[:PERM]]...\n"
		    "                          [--file HOST:GUEST[:PERM]]... [--symlink "
		    "GUEST:TARGET]...\n"
		    "Writes a newc cpio archive with entries sorted by path, owner 0:0, time 0.\n"
		    "Parent directories are added as needed (0755). PERM is octal; a file's\n"
		    "default is 0755 if the host file is executable, else 0644. OUT is\n"
		    "replaced atomically.\n");
}

/* Writes the archive to a temporary file beside out, then renames it. */
static int write_atomically(struct initramfs *fs, const char *out)
{
	size_t len = strlen(out) + sizeof(".tmp.XXXXXX");
	char *tmp = malloc(len);
	FILE *f;
	int fd, rc;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, len, "%s.tmp.XXXXXX", out);
	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "wb"))) {
		rw_err_errno(errno, "cannot create %s", tmp);
		if (fd >= 0)
			close(fd);
		free(tmp);
		return -EIO;
	}
	rc = initramfs_write(fs, f);
	/* mkstemp creates 0600; an image is not a secret. */
	if (!rc && (fchmod(fd, 0644) < 0 || fsync(fd) < 0))
		rc = -errno;
	if (fclose(f) != 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, out) < 0)
		rc = -errno;
	if (rc) {
		rw_err("cannot write %s: %s", out, strerror(-rc));
		unlink(tmp);
	}
	free(tmp);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{"output", required_argument, NULL, 'o'}, {"dir", required_argument, NULL, 'd'},
		{"file", required_argument, NULL, 'f'},	  {"symlink", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},	  {NULL, 0, NULL, 0},
	};
	struct initramfs fs = {0};
	const char *out = NULL;
	int opt, rc = 0;

	while (!rc && (opt = getopt_long(argc, argv, "o:h", options, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'd':
			rc = initramfs_add_spec(&fs, INITRAMFS_DIR, optarg);
			break;
		case 'f':
			rc = initramfs_add_spec(&fs, INITRAMFS_FILE, optarg);
			break;
		case 's':
			rc = initramfs_add_spec(&fs, INITRAMFS_SYMLINK, optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!rc && (!out || optind != argc)) {
		usage(stderr);
		rc = -EINVAL;
	}
	if (!rc)
		rc = write_atomically(&fs, out);
	initramfs_free(&fs);
	return rc ? 1 : 0;
}

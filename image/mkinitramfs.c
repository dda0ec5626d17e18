/* SPDX-License-Identifier: MIT */
/*
 * rewind-mkinitramfs: writes a deterministic initramfs (newc cpio) from
 * host files, so no host time, owner or directory order leaks into a guest.
 */
#include "image/initramfs.h"
#include "lib/file.h"
#include "lib/log.h"

#include <getopt.h>
#include <stdlib.h>
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

/* Builds the archive in memory, then replaces out atomically. */
static int write_atomically(struct initramfs *fs, const char *out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = f ? initramfs_write(fs, f) : -ENOMEM;

	if (f && fclose(f) != 0 && !rc)
		rc = -EIO;
	if (!rc) {
		struct file_part part = {buf, len};

		rc = file_write_atomic(out, &part, 1);
	}
	free(buf);
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

/* SPDX-License-Identifier: MIT */
/* Unit tests of the initramfs description and writer (image/initramfs.c). */
#include "image/initramfs.h"
#include "tests/unit/newc_reader.h"
#include "tests/unit/stderr_capture.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

static char host_exe[] = "/tmp/rewind-initramfs-exe-XXXXXX";
static char host_txt[] = "/tmp/rewind-initramfs-txt-XXXXXX";

static void make_host_file(char *path, const char *text, mode_t mode)
{
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static int setup_files(void **state)
{
	(void)state;
	make_host_file(host_exe, "#!/bin/sh\n", 0700);
	make_host_file(host_txt, "text", 0600);
	return 0;
}

static int remove_files(void **state)
{
	(void)state;
	unlink(host_exe);
	unlink(host_txt);
	return 0;
}

/* Writes fs and returns the archive's entry names joined by ' '. */
static char *archive_names(struct initramfs *fs, struct newc_entry *entries, size_t max)
{
	static char names[1024];
	char *buf;
	size_t len, off = 0, n = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(initramfs_write(fs, f), 0);
	fclose(f);
	names[0] = '\0';
	while (n < max && newc_next(buf, len, &off, &entries[n]) == 0 &&
	       strcmp(entries[n].name, "TRAILER!!!") != 0) {
		strcat(names, n ? " " : "");
		strcat(names, entries[n].name);
		entries[n].data = NULL; /* buf is freed below */
		n++;
	}
	free(buf);
	return names;
}

static void test_sorted_with_parents_added(void **state)
{
	struct initramfs fs = {0};
	struct newc_entry e[16];
	char spec[128];

	(void)state;
	snprintf(spec, sizeof(spec), "%s:/usr/bin/tool", host_exe);
	assert_int_equal(initramfs_add_spec(&fs, INITRAMFS_FILE, spec), 0);
	assert_int_equal(initramfs_add_spec(&fs, INITRAMFS_SYMLINK, "/bin/sh:busybox"), 0);
	assert_int_equal(initramfs_add_spec(&fs, INITRAMFS_DIR, "/proc:0555"), 0);
	snprintf(spec, sizeof(spec), "%s:/etc/conf", host_txt);
	assert_int_equal(initramfs_add_spec(&fs, INITRAMFS_FILE, spec), 0);
	assert_string_equal(archive_names(&fs, e, 16),
			    "bin bin/sh etc etc/conf proc usr usr/bin usr/bin/tool");
	assert_int_equal(e[3].mode, S_IFREG | 0644); /* host file was 0600, not executable */
	assert_int_equal(e[4].mode, S_IFDIR | 0555);
	assert_int_equal(e[7].mode, S_IFREG | 0755); /* executable on the host */
	assert_int_equal(e[7].size, strlen("#!/bin/sh\n"));
	initramfs_free(&fs);
}

static void test_order_of_arguments_does_not_matter(void **state)
{
	struct initramfs a = {0}, b = {0};
	struct newc_entry e[8];
	char names[1024];

	(void)state;
	assert_int_equal(initramfs_add_spec(&a, INITRAMFS_DIR, "z"), 0);
	assert_int_equal(initramfs_add_spec(&a, INITRAMFS_DIR, "a/b"), 0);
	assert_int_equal(initramfs_add_spec(&b, INITRAMFS_DIR, "a/b"), 0);
	assert_int_equal(initramfs_add_spec(&b, INITRAMFS_DIR, "z"), 0);
	strcpy(names, archive_names(&a, e, 8));
	assert_string_equal(names, archive_names(&b, e, 8));
	initramfs_free(&a);
	initramfs_free(&b);
}

static void test_duplicate_path_is_refused(void **state)
{
	struct initramfs fs = {0};
	FILE *f = fopen("/dev/null", "w");

	(void)state;
	assert_int_equal(initramfs_add_spec(&fs, INITRAMFS_DIR, "/bin"), 0);
	assert_int_equal(initramfs_add_spec(&fs, INITRAMFS_SYMLINK, "bin:usr/bin"), 0);
	assert_int_equal(initramfs_write(&fs, f), -EINVAL);
	fclose(f);
	initramfs_free(&fs);
}

static void test_bad_specs_are_refused(void **state)
{
	struct initramfs fs = {0};
	char spec[128];

	(void)state;
	assert_int_equal(initramfs_add_spec(&fs, INITRAMFS_FILE, "no-colon"), -EINVAL);
	assert_int_equal(initramfs_add_spec(&fs, INITRAMFS_FILE, ":guest"), -EINVAL);
	assert_int_equal(initramfs_add_spec(&fs, INITRAMFS_FILE, "/no/such/file:guest"), -ENOENT);
	snprintf(spec, sizeof(spec), "%s:guest:99999", host_txt);
	assert_int_equal(initramfs_add_spec(&fs, INITRAMFS_FILE, spec), -EINVAL);
	snprintf(spec, sizeof(spec), "%s:/", host_txt);
	assert_int_equal(initramfs_add_spec(&fs, INITRAMFS_FILE, spec), -EINVAL);
	assert_int_equal(initramfs_add_spec(&fs, INITRAMFS_DIR, "/"), -EINVAL);
	assert_int_equal(initramfs_add_spec(&fs, INITRAMFS_DIR, "d:rwx"), -EINVAL);
	assert_int_equal(initramfs_add_spec(&fs, INITRAMFS_SYMLINK, "link:"), -EINVAL);
	assert_int_equal(initramfs_add_spec(&fs, INITRAMFS_SYMLINK, "/:target"), -EINVAL);
	assert_int_equal(fs.count, 0);
	initramfs_free(&fs);
}

/* A scratch directory for the files these tests turn into FIFOs and giants. */
static char *scratch_dir(void)
{
	static char dir[512];
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/rewind-initramfs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	return dir;
}

/* Redirects stderr into a file until captured_text() gives back what was printed. */
static void capture_stderr(struct stderr_capture *capture)
{
	stderr_capture_begin(capture);
	alarm(60); /* a read that blocks is killed: a failure, not a hang */
}

static const char *captured_text(struct stderr_capture *capture)
{
	static char text[2048];

	alarm(0);
	stderr_capture_end(capture, text, sizeof(text));
	return text;
}

static void assert_said(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("printed \"%s\", wanted \"%s\"", text, want);
}

static void test_fifo_added_file_is_refused(void **state)
{
	struct initramfs fs = {0};
	char *dir = scratch_dir(), fifo[600], spec[700], want[800];
	struct stderr_capture err;

	(void)state;
	snprintf(fifo, sizeof(fifo), "%s/pipe", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	snprintf(spec, sizeof(spec), "%s:/bin/pipe", fifo);
	capture_stderr(&err);
	assert_int_equal(initramfs_add_spec(&fs, INITRAMFS_FILE, spec), -ENOENT);
	assert_int_equal(initramfs_add_spec(&fs, INITRAMFS_FILE, "/dev/zero:/bin/zero"), -ENOENT);
	snprintf(want, sizeof(want), "cannot add %s: it is a FIFO, not a regular file", fifo);
	assert_said(captured_text(&err), want);
	assert_int_equal(fs.count, 0);
	assert_int_equal(unlink(fifo), 0);
	assert_int_equal(rmdir(dir), 0);
	initramfs_free(&fs);
}

/* A new file dir/name (mode), added to fs as guest; its path in path, returned open for writing. */
static int added_file(struct initramfs *fs, const char *dir, const char *name, mode_t mode,
		      const char *guest, char *path, size_t len)
{
	char spec[1200];
	int fd;

	snprintf(path, len, "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	assert_true(fd >= 0);
	snprintf(spec, sizeof(spec), "%s:%s", path, guest);
	assert_int_equal(initramfs_add_spec(fs, INITRAMFS_FILE, spec), 0);
	return fd;
}

/* Writing fs fails with rc, saying want; then fs, the file at path and the folder dir go. */
static void expect_write_refused(struct initramfs *fs, int rc, const char *want, const char *path,
				 char *dir)
{
	FILE *out = fopen("/dev/null", "w");
	struct stderr_capture err;

	assert_non_null(out);
	capture_stderr(&err);
	assert_int_equal(initramfs_write(fs, out), rc);
	assert_said(captured_text(&err), want);
	fclose(out);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	initramfs_free(fs);
}

/* A file that becomes a FIFO after it was added is refused when written, without blocking. */
static void test_file_replaced_by_fifo_is_refused(void **state)
{
	struct initramfs fs = {0};
	char *dir = scratch_dir(), path[600], want[800];
	int fd = added_file(&fs, dir, "tool", 0755, "/bin/tool", path, sizeof(path));

	(void)state;
	assert_int_equal(write(fd, "tool", 4), 4);
	assert_int_equal(close(fd), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(want, sizeof(want),
		 "the added file %s is a FIFO, not a regular file: refusing to read it", path);
	expect_write_refused(&fs, -EINVAL, want, path, dir);
}

/* An added file over 512 MiB (a sparse one here) is refused without being read. */
static void test_huge_added_file_is_refused(void **state)
{
	struct initramfs fs = {0};
	char *dir = scratch_dir(), path[600], want[800];
	int fd = added_file(&fs, dir, "giant", 0644, "/giant", path, sizeof(path));

	(void)state;
	assert_int_equal(ftruncate(fd, (off_t)513 << 20), 0);
	assert_int_equal(close(fd), 0);
	snprintf(want, sizeof(want),
		 "the added file %s is 513 MiB, more than the 512 MiB an added file may be", path);
	expect_write_refused(&fs, -EFBIG, want, path, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorted_with_parents_added),
		cmocka_unit_test(test_order_of_arguments_does_not_matter),
		cmocka_unit_test(test_duplicate_path_is_refused),
		cmocka_unit_test(test_bad_specs_are_refused),
		cmocka_unit_test(test_fifo_added_file_is_refused),
		cmocka_unit_test(test_file_replaced_by_fifo_is_refused),
		cmocka_unit_test(test_huge_added_file_is_refused),
	};

	return cmocka_run_group_tests_name("initramfs", tests, setup_files, remove_files);
}

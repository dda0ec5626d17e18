/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of reading untrusted files (lib/file.c): what is refused. A read
 * that would block (a FIFO) is refused without opening it; SIGALRM turns a
 * regression into a failure instead of a hang (a guard, not a timing).
 */
#include "lib/file.h"
#include "tests/unit/stderr_capture.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#define GUARD_SECONDS 60 /* a read that blocks is killed by SIGALRM: a failure, not a hang */
#define SENTINEL      ((uint8_t *)0x5a5a5a5a)

static char dir[512];

/* The messages a read printed to stderr, captured in a file. */
struct read_result {
	int rc;
	uint8_t *data;
	size_t len;
	char message[1024];
};

static int make_dir(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	snprintf(dir, sizeof(dir), "%s/rewind-test-file-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	(void)state;
	return rmdir(dir);
}

static const char *scratch(const char *name)
{
	static char path[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

/*
 * Runs file_read_max (file_read_all when what is NULL) with stderr captured
 * and SIGALRM armed against a hang.
 */
static struct read_result read_file(const char *path, size_t max, const char *what)
{
	struct read_result r = {.data = SENTINEL, .len = 12345};
	struct stderr_capture capture;

	stderr_capture_begin(&capture);
	alarm(GUARD_SECONDS);
	r.rc = what ? file_read_max(path, max, what, &r.data, &r.len)
		    : file_read_all(path, &r.data, &r.len);
	alarm(0);
	stderr_capture_end(&capture, r.message, sizeof(r.message));
	return r;
}

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

/* A refused read: rc, nothing handed back, want in the message. */
static void assert_refused(const struct read_result *r, int rc, const char *want)
{
	if (r->rc != rc || !strstr(r->message, want))
		fail_msg("rc %d, message \"%s\"; wanted %d and \"%s\"", r->rc, r->message, rc,
			 want);
	assert_true(r->data == SENTINEL);
	assert_int_equal(r->len, 12345);
	assert_non_null(strchr(r->message, '\n'));
	assert_int_equal(strchr(r->message, '\n') - r->message + 1,
			 strlen(r->message)); /* one line */
}

static void test_fifo_refused_without_blocking(void **state)
{
	const char *path = scratch("kernel.fifo");
	char want[2048];
	struct read_result r;

	(void)state;
	assert_int_equal(mkfifo(path, 0600), 0);
	r = read_file(path, 64 << 20, "kernel");
	assert_int_equal(unlink(path), 0);
	snprintf(want, sizeof(want),
		 "the kernel %s is a FIFO, not a regular file: refusing to read it", path);
	assert_refused(&r, -EINVAL, want);
}

static void test_char_device_refused(void **state)
{
	struct read_result r = read_file("/dev/zero", FILE_READ_DEFAULT_MAX, "input");

	(void)state;
	assert_refused(&r, -EINVAL,
		       "the input /dev/zero is a character device, not a regular file: "
		       "refusing to read it");
}

static void test_directory_refused(void **state)
{
	char want[2048];
	struct read_result r = read_file(dir, FILE_READ_DEFAULT_MAX, "job file");

	(void)state;
	snprintf(want, sizeof(want), "the job file %s is a directory, not a regular file", dir);
	assert_refused(&r, -EINVAL, want);
}

static void test_sparse_8gib_refused_unread(void **state)
{
	const char *path = scratch("sparse");
	char want[2048];
	struct read_result r, all;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)8 << 30), 0);
	assert_int_equal(close(fd), 0);
	r = read_file(path, 64 << 20, "kernel");
	all = read_file(path, 0, NULL); /* file_read_all is capped too */
	assert_int_equal(unlink(path), 0);
	snprintf(want, sizeof(want),
		 "the kernel %s is 8192 MiB, more than the 64 MiB a kernel may be", path);
	assert_refused(&r, -EFBIG, want);
	snprintf(want, sizeof(want),
		 "the file %s is 8192 MiB, more than the 1024 MiB a file may be", path);
	assert_refused(&all, -EFBIG, want);
}

static void test_cap_is_inclusive(void **state)
{
	const char *path = scratch("hundred");
	uint8_t bytes[100];
	char want[2048];
	struct read_result over, at;

	(void)state;
	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(i * 7);
	write_file(path, bytes, sizeof(bytes));
	over = read_file(path, 99, "artifact");
	at = read_file(path, 100, "artifact");
	assert_int_equal(unlink(path), 0);
	snprintf(want, sizeof(want),
		 "the artifact %s is 100 bytes, more than the 99 bytes an artifact may be", path);
	assert_refused(&over, -EFBIG, want);
	assert_int_equal(at.rc, 0);
	assert_int_equal(at.len, sizeof(bytes));
	assert_memory_equal(at.data, bytes, sizeof(bytes));
	assert_string_equal(at.message, "");
	free(at.data);
}

static void test_regular_file_read_exactly(void **state)
{
	static const uint8_t bytes[] = {'a', 0, 'b', 0xff, '\n', 0, 0, 'z'};
	const char *path = scratch("regular");
	struct read_result r;

	(void)state;
	write_file(path, bytes, sizeof(bytes));
	r = read_file(path, FILE_READ_DEFAULT_MAX, "input");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.len, sizeof(bytes));
	assert_memory_equal(r.data, bytes, sizeof(bytes));
	assert_string_equal(r.message, "");
	free(r.data);
}

static void test_empty_file_read(void **state)
{
	const char *path = scratch("empty");
	struct read_result r;

	(void)state;
	write_file(path, "", 0);
	r = read_file(path, 0, "input"); /* a cap of 0 still allows an empty file */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.len, 0);
	assert_non_null(r.data);
	assert_true(r.data != SENTINEL);
	assert_string_equal(r.message, "");
	free(r.data);
}

static void test_missing_file(void **state)
{
	const char *path = scratch("missing");
	char want[2048];
	struct read_result r = read_file(path, FILE_READ_DEFAULT_MAX, "job file");

	(void)state;
	snprintf(want, sizeof(want), "cannot read the job file %s: No such file or directory",
		 path);
	assert_refused(&r, -ENOENT, want);
}

/* /proc files are regular files that say they are empty: more than fstat said is refused. */
static void test_file_growing_while_read(void **state)
{
	struct read_result r = read_file("/proc/self/status", FILE_READ_DEFAULT_MAX, "input");

	(void)state;
	assert_refused(&r, -EIO,
		       "the input /proc/self/status grew while it was read (past 0 bytes): "
		       "refusing it");
}

/* A path under a folder, by words: the folder itself and what lies below it, nothing beside. */
static void test_path_under(void **state)
{
	(void)state;
	assert_true(file_path_under("/a/b", "/a/b"));
	assert_true(file_path_under("/a/b/c", "/a/b"));
	assert_true(file_path_under("/a/b/c/d.txt", "/a/b"));
	assert_false(file_path_under("/a/bc", "/a/b"));
	assert_false(file_path_under("/a", "/a/b"));
	assert_false(file_path_under("/x/a/b", "/a/b"));
}

static void test_kind_names(void **state)
{
	(void)state;
	assert_string_equal(file_kind_name(S_IFREG | 0644), "a regular file");
	assert_string_equal(file_kind_name(S_IFIFO | 0600), "a FIFO");
	assert_string_equal(file_kind_name(S_IFDIR | 0755), "a directory");
	assert_string_equal(file_kind_name(S_IFCHR | 0666), "a character device");
	assert_string_equal(file_kind_name(S_IFBLK | 0660), "a block device");
	assert_string_equal(file_kind_name(S_IFSOCK | 0777), "a socket");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fifo_refused_without_blocking),
		cmocka_unit_test(test_char_device_refused),
		cmocka_unit_test(test_directory_refused),
		cmocka_unit_test(test_sparse_8gib_refused_unread),
		cmocka_unit_test(test_cap_is_inclusive),
		cmocka_unit_test(test_regular_file_read_exactly),
		cmocka_unit_test(test_empty_file_read),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_file_growing_while_read),
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_path_under),
	};

	return cmocka_run_group_tests_name("file", tests, make_dir, remove_dir);
}

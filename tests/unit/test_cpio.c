/* SPDX-License-Identifier: MIT */
/* Unit tests of the deterministic newc writer (image/cpio.c). */
#include "image/cpio.h"
#include "tests/unit/newc_reader.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

struct archive {
	char *buf;
	size_t len;
	FILE *f;
	struct cpio_writer w;
};

static void archive_open(struct archive *a)
{
	a->f = open_memstream(&a->buf, &a->len);
	assert_non_null(a->f);
	cpio_writer_init(&a->w, a->f);
}

static void archive_close(struct archive *a)
{
	fclose(a->f);
	free(a->buf);
}

static void write_sample(struct archive *a)
{
	archive_open(a);
	assert_int_equal(cpio_add_dir(&a->w, "bin", 0755), 0);
	assert_int_equal(cpio_add_file(&a->w, "bin/hello", 0755, "hi\n", 3), 0);
	assert_int_equal(cpio_add_symlink(&a->w, "init", "bin/hello"), 0);
	assert_int_equal(cpio_finish(&a->w), 0);
}

static void test_header_fields_are_fixed(void **state)
{
	struct archive a;
	struct newc_entry e;
	size_t off = 0;

	(void)state;
	write_sample(&a);
	assert_int_equal(newc_next(a.buf, a.len, &off, &e), 0);
	assert_string_equal(e.name, "bin");
	assert_int_equal(e.mode, S_IFDIR | 0755);
	assert_int_equal(e.ino, 1);
	assert_int_equal(newc_next(a.buf, a.len, &off, &e), 0);
	assert_string_equal(e.name, "bin/hello");
	assert_int_equal(e.mode, S_IFREG | 0755);
	assert_int_equal(e.uid, 0);
	assert_int_equal(e.gid, 0);
	assert_int_equal(e.mtime, 0);
	assert_int_equal(e.size, 3);
	assert_memory_equal(e.data, "hi\n", 3);
	assert_int_equal(newc_next(a.buf, a.len, &off, &e), 0);
	assert_int_equal(e.mode, S_IFLNK | 0777);
	assert_memory_equal(e.data, "bin/hello", 9);
	assert_int_equal(newc_next(a.buf, a.len, &off, &e), 0);
	assert_string_equal(e.name, "TRAILER!!!");
	archive_close(&a);
}

static void test_archive_is_block_padded_and_aligned(void **state)
{
	struct archive a;

	(void)state;
	write_sample(&a);
	assert_int_equal(a.len % 512, 0);
	/* "bin" takes 110+4 -> 116 bytes; "bin/hello" 110+10 = 120, then its data, padded 3 -> 4.
	 */
	assert_memory_equal(a.buf + 116 + 120, "hi\n\0", 4);
	archive_close(&a);
}

static void test_same_entries_same_bytes(void **state)
{
	struct archive a, b;

	(void)state;
	write_sample(&a);
	write_sample(&b);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.buf, b.buf, a.len);
	archive_close(&a);
	archive_close(&b);
}

static void test_bad_names_and_modes_are_refused(void **state)
{
	struct archive a;
	char long_name[CPIO_NAME_MAX + 2];

	(void)state;
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	archive_open(&a);
	assert_int_equal(cpio_add_dir(&a.w, "", 0755), -EINVAL);
	assert_int_equal(cpio_add_dir(&a.w, "/abs", 0755), -EINVAL);
	assert_int_equal(cpio_add_dir(&a.w, "a/../b", 0755), -EINVAL);
	assert_int_equal(cpio_add_dir(&a.w, "a//b", 0755), -EINVAL);
	assert_int_equal(cpio_add_dir(&a.w, "a/", 0755), -EINVAL);
	assert_int_equal(cpio_add_dir(&a.w, long_name, 0755), -EINVAL);
	assert_int_equal(cpio_add_file(&a.w, "f", 010000, "", 0), -EINVAL);
	assert_int_equal(cpio_add_symlink(&a.w, "l", ""), -EINVAL);
	assert_int_equal(a.w.offset, 0); /* nothing was written */
	archive_close(&a);
}

static void test_full_disk_is_reported(void **state)
{
	struct cpio_writer w;
	FILE *full = fopen("/dev/full", "w");
	int rc;

	(void)state;
	assert_non_null(full);
	cpio_writer_init(&w, full);
	rc = cpio_add_file(&w, "f", 0644, "data", 4);
	if (rc == 0)
		rc = cpio_finish(&w);
	assert_int_equal(rc, -EIO);
	fclose(full);
}

/* GNU cpio, an independent implementation, must read what we write. */
static void test_gnu_cpio_lists_the_archive(void **state)
{
	struct archive a;
	char path[] = "/tmp/rewind-cpio-XXXXXX", cmd[128], listing[128] = {0};
	int fd;
	FILE *p;

	(void)state;
	write_sample(&a);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, a.buf, a.len), (ssize_t)a.len);
	close(fd);
	snprintf(cmd, sizeof(cmd), "cpio -it --quiet < %s", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_true(fread(listing, 1, sizeof(listing) - 1, p) > 0);
	assert_int_equal(pclose(p), 0);
	unlink(path);
	assert_string_equal(listing, "bin\nbin/hello\ninit\n");
	archive_close(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_fields_are_fixed),
		cmocka_unit_test(test_archive_is_block_padded_and_aligned),
		cmocka_unit_test(test_same_entries_same_bytes),
		cmocka_unit_test(test_bad_names_and_modes_are_refused),
		cmocka_unit_test(test_full_disk_is_reported),
		cmocka_unit_test(test_gnu_cpio_lists_the_archive),
	};

	return cmocka_run_group_tests_name("cpio", tests, NULL, NULL);
}

/* Unit tests of the initramfs description and writer (guest/initramfs.c). */
#include "guest/initramfs.h"
#include "tests/unit/newc_reader.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorted_with_parents_added),
		cmocka_unit_test(test_order_of_arguments_does_not_matter),
		cmocka_unit_test(test_duplicate_path_is_refused),
		cmocka_unit_test(test_bad_specs_are_refused),
	};

	return cmocka_run_group_tests_name("initramfs", tests, setup_files, remove_files);
}

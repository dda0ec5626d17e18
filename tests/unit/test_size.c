/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the command line's pure parts: memory sizes with suffixes
 * (lib/size.c, what --mem takes in both programs) and the slow-/dev/kvm
 * message and threshold (vmm/kvm_speed.c); the error line's shape
 * (lib/log.h): the program's name, the location only when asked for.
 */
#include "lib/log.h"
#include "lib/size.h"
#include "tests/unit/stderr_capture.h"
#include "vmm/kvm_speed.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define MIB (1ull << 20)

static void expect_size(const char *text, uint64_t bare_unit, uint64_t want, bool want_bare)
{
	uint64_t got = 0;
	bool bare = !want_bare;

	if (size_parse(text, bare_unit, &got, &bare) != 0)
		fail_msg("'%s' was refused", text);
	assert_int_equal(got, want);
	assert_int_equal(bare, want_bare);
}

static void test_sizes_take_suffixes(void **state)
{
	(void)state;
	expect_size("256M", MIB, 256 * MIB, false);
	expect_size("256m", MIB, 256 * MIB, false);
	expect_size("1G", MIB, 1024 * MIB, false);
	expect_size("3g", MIB, 3072 * MIB, false);
	expect_size("131072K", MIB, 128 * MIB, false);
	expect_size("64k", 1, 65536, false);
}

static void test_a_bare_number_counts_the_callers_unit(void **state)
{
	(void)state;
	expect_size("128", MIB, 128 * MIB, true);
	expect_size("268435456", 1, 268435456, true);
	expect_size("0", MIB, 0, true);
}

static void test_sizes_refuse_anything_else(void **state)
{
	static const char *const bad[] = {
		"",   "M",    "-1",   "-1M", "+5M", " 5M",  "5 M", "5MB",
		"5T", "1.5G", "0x10", "5MM", "abc", "12e3", "5M ", "18446744073709551615K",
	};
	uint64_t v = 7;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (size_parse(bad[i], MIB, &v, NULL) == 0)
			fail_msg("'%s' was taken as %llu bytes", bad[i], (unsigned long long)v);
	/* the largest that fits; one more overflows */
	expect_size("17179869183G", 1, 17179869183ull << 30, false);
	assert_int_not_equal(size_parse("17179869184G", 1, &v, NULL), 0);
}

static void test_slow_kvm_message_says_how_slow_and_what_to_do(void **state)
{
	char text[512];

	(void)state;
	rw_log_init("rewind-harness", false);
	kvm_speed_describe(84.25, text, sizeof(text));
	assert_string_equal(
		text, "this /dev/kvm runs guest code 1685 times slower than hardware "
		      "(84.2 ms for a 100000-iteration loop that takes 0.05 ms with hardware "
		      "virtualization): it emulates the guest, so boots would take minutes and "
		      "runs would end stuck. Run through the KVM box instead: rewind box "
		      "rewind-harness ... (REWIND_ALLOW_SLOW_KVM=1 runs here anyway)");
}

static void test_slow_kvm_threshold(void **state)
{
	(void)state;
	unsetenv("REWIND_SLOW_KVM_MS");
	assert_true(kvm_speed_slow_ms() == KVM_SPEED_SLOW_MS);
	setenv("REWIND_SLOW_KVM_MS", "0.5", 1);
	assert_true(kvm_speed_slow_ms() == 0.5);
	setenv("REWIND_SLOW_KVM_MS", "fast", 1);
	assert_true(kvm_speed_slow_ms() == KVM_SPEED_SLOW_MS);
	setenv("REWIND_SLOW_KVM_MS", "-3", 1);
	assert_true(kvm_speed_slow_ms() == KVM_SPEED_SLOW_MS);
	unsetenv("REWIND_SLOW_KVM_MS");
}

/* What rw_err prints, captured from stderr; returns the line of the first rw_err. */
static int capture_error(bool where, const char *debug, char *out, size_t len)
{
	struct stderr_capture capture;
	int line;

	if (debug)
		setenv("REWIND_DEBUG", debug, 1);
	else
		unsetenv("REWIND_DEBUG");
	rw_log_init("rewind-harness", where);
	stderr_capture_begin(&capture);
	line = __LINE__ + 1;
	rw_err("cannot do %s", "it");
	rw_err_errno(2, "cannot open %s", "x");
	stderr_capture_end(&capture, out, len);
	unsetenv("REWIND_DEBUG");
	return line;
}

static void test_errors_name_the_program_and_hide_locations(void **state)
{
	char text[1024], want[1024];
	int line;

	(void)state;
	capture_error(false, NULL, text, sizeof(text));
	assert_string_equal(text,
			    "rewind-harness: error: cannot do it\n"
			    "rewind-harness: error: cannot open x: No such file or directory\n");
	capture_error(false, "0", text, sizeof(text));
	assert_string_equal(text,
			    "rewind-harness: error: cannot do it\n"
			    "rewind-harness: error: cannot open x: No such file or directory\n");
	line = capture_error(true, NULL, text, sizeof(text));
	snprintf(want, sizeof(want),
		 "rewind-harness: error: capture_error:%d: cannot do it\n"
		 "rewind-harness: error: capture_error:%d: cannot open x: No such file or "
		 "directory\n",
		 line, line + 1);
	assert_string_equal(text, want);
	capture_error(false, "1", text, sizeof(text));
	assert_string_equal(text, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes_take_suffixes),
		cmocka_unit_test(test_a_bare_number_counts_the_callers_unit),
		cmocka_unit_test(test_sizes_refuse_anything_else),
		cmocka_unit_test(test_slow_kvm_message_says_how_slow_and_what_to_do),
		cmocka_unit_test(test_slow_kvm_threshold),
		cmocka_unit_test(test_errors_name_the_program_and_hide_locations),
	};

	return cmocka_run_group_tests_name("size", tests, NULL, NULL);
}

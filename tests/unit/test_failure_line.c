/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of "the same failure" (lib/failure_line.c), the rule that
 * minimising (rewind explain) and a night's buckets (rewind explore) both
 * use: a failing run's last output line with the numbers that change from
 * run to run masked, and the digits of names kept.
 */
#include "lib/failure_line.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static const char *line_of(const char *text)
{
	static char out[200];

	failure_line(text, out, sizeof(out));
	return out;
}

static void test_numbers_standing_alone_are_masked(void **state)
{
	(void)state;
	/* counts, negative values, pids */
	assert_string_equal(line_of("lost_update: counter is 23117, expected 40000"),
			    "lost_update: counter is #, expected #");
	assert_string_equal(line_of("balance -20"), "balance #");
	assert_string_equal(line_of("pid 4242 died"), "pid # died");
	/* addresses with 0x, and hashes or addresses without it */
	assert_string_equal(line_of("bad pointer 0x7ffd12ab"), "bad pointer #");
	assert_string_equal(line_of("final c45ca436"), "final #");
	assert_string_equal(line_of("at 00007f3a9c"), "at #");
	/* two runs of one bug: one line */
	assert_string_equal(line_of("counter is 9, expected 40000"), "counter is #, expected #");
	assert_string_equal(line_of("counter is 39999, expected 40000"),
			    "counter is #, expected #");
}

static void test_digits_inside_names_are_kept(void **state)
{
	char three[200];

	(void)state;
	assert_string_equal(line_of("depth3_transfer: sum is 199"), "depth3_transfer: sum is #");
	assert_string_equal(line_of("on x86_64 worker1"), "on x86_64 worker1");
	/* hex-looking words: no digit, too short, or part of a name */
	assert_string_equal(line_of("cafe deadbeef abc12 dead12_x"),
			    "cafe deadbeef abc12 dead12_x");
	snprintf(three, sizeof(three), "%s", line_of("depth3_transfer failed"));
	assert_string_not_equal(three, line_of("depth4_transfer failed"));
}

static void test_the_last_non_empty_line(void **state)
{
	char small[8];

	(void)state;
	assert_string_equal(line_of("worker 1 done\nt: count 7\n\n  \r\n"), "t: count #");
	assert_string_equal(line_of(""), "");
	assert_string_equal(line_of("bell\a here"), "bell? here");
	failure_line("a long line of words", small, sizeof(small));
	assert_string_equal(small, "a long ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers_standing_alone_are_masked),
		cmocka_unit_test(test_digits_inside_names_are_kept),
		cmocka_unit_test(test_the_last_non_empty_line),
	};

	return cmocka_run_group_tests_name("failure_line", tests, NULL, NULL);
}

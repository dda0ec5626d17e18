/*
 * Unit tests of what rewind explore reads and decides without KVM: suite
 * files (reports/suite.c) and failure signatures (reports/signature.c).
 */
#include "reports/signature.h"
#include "reports/suite.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

static char dir[] = "/tmp/rewind-test-suite-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static int make_dir(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

/* Removes the files the tests wrote, then the folder. */
static int remove_dir(void **state)
{
	DIR *d = opendir(dir);
	const struct dirent *e;
	char path[512];

	(void)state;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	return rmdir(dir);
}

static void test_suite_parsed(void **state)
{
	static struct suite s;
	char expected[300];
	const char *path = write_file(
		"ok.json",
		"{\"format\": \"rewind-suite\", \"version\": 1, \"tests\": ["
		"{\"name\": \"a\", \"command\": [\"/tests/a\", \"-q\"]},"
		"{\"name\": \"b.2\", \"command\": [\"/bin/b\"], \"mode\": \"plain\", \"share\": 3,"
		" \"add\": [\"bin/b:/bin/b\"], \"mem_mib\": 256, \"kernel\": \"/k\"}]}");

	(void)state;
	assert_int_equal(suite_load(path, &s), 0);
	assert_int_equal(s.count, 2);
	assert_string_equal(s.tests[0].name, "a");
	assert_false(s.tests[0].plain);
	assert_int_equal(s.tests[0].share, 1);
	assert_int_equal(s.tests[0].command_len, 2);
	assert_string_equal(s.tests[0].command[1], "-q");
	assert_int_equal(s.tests[0].arg_count, 0);
	assert_true(s.tests[1].plain);
	assert_int_equal(s.tests[1].share, 3);
	/* a relative add is relative to the suite file's folder */
	snprintf(expected, sizeof(expected), "%s/bin/b:/bin/b", dir);
	assert_int_equal(s.tests[1].arg_count, 6);
	assert_string_equal(s.tests[1].args[0], "--add");
	assert_string_equal(s.tests[1].args[1], expected);
	assert_string_equal(s.tests[1].args[2], "--kernel");
	assert_string_equal(s.tests[1].args[3], "/k");
	assert_string_equal(s.tests[1].args[4], "--mem");
	assert_string_equal(s.tests[1].args[5], "256");
	assert_ptr_equal(suite_find(&s, "b.2"), &s.tests[1]);
	assert_null(suite_find(&s, "c"));
	suite_free(&s);
}

static void test_suite_round_trip(void **state)
{
	static struct suite s, back;
	cJSON *json;
	const char *path = write_file("rt.json", "{\"format\": \"rewind-suite\", \"tests\": ["
						 "{\"name\": \"x\", \"command\": [\"/x\"],"
						 " \"add\": [\"/h:/g\"], \"mode\": \"plain\"}]}");

	(void)state;
	assert_int_equal(suite_load(path, &s), 0);
	s.tests[0].seconds = 42;
	s.tests[0].worker = 1;
	json = suite_to_json(&s);
	assert_int_equal(suite_from_json(json, &back, "night.json"), 0);
	assert_int_equal(back.count, 1);
	assert_true(back.tests[0].plain);
	assert_int_equal(back.tests[0].seconds, 42);
	assert_int_equal(back.tests[0].worker, 1);
	assert_int_equal(back.tests[0].arg_count, 2);
	assert_string_equal(back.tests[0].args[1], "/h:/g");
	cJSON_Delete(json);
	suite_free(&s);
	suite_free(&back);
}

static void test_suite_refused(void **state)
{
	static struct suite s;
	static const char *const bad[] = {
		"{\"tests\": []}",
		"{\"format\": \"rewind-suite\", \"tests\": []}",
		"{\"format\": \"rewind-suite\", \"tests\": [{\"name\": \"a\"}]}",
		"{\"format\": \"rewind-suite\", \"tests\": [{\"name\": \"a\", \"command\": []}]}",
		"{\"format\": \"rewind-suite\", \"tests\": [{\"name\": \"../x\", \"command\": "
		"[\"/x\"]}]}",
		"{\"format\": \"rewind-suite\", \"tests\": [{\"name\": \".x\", \"command\": "
		"[\"/x\"]}]}",
		"{\"format\": \"rewind-suite\", \"tests\": [{\"name\": \"a\", \"command\": "
		"[\"/x\"],"
		" \"mode\": \"fast\"}]}",
		"{\"format\": \"rewind-suite\", \"tests\": [{\"name\": \"a\", \"command\": "
		"[\"/x\"],"
		" \"share\": 0}]}",
		"{\"format\": \"rewind-suite\", \"tests\": [{\"name\": \"a\", \"command\": "
		"[\"/x\"],"
		" \"mem_mib\": \"big\"}]}",
		"{\"format\": \"rewind-suite\", \"tests\": [{\"name\": \"a\", \"command\": "
		"[\"/x\"]},"
		" {\"name\": \"a\", \"command\": [\"/y\"]}]}",
		"not json",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(suite_load(write_file("bad.json", bad[i]), &s), -1);
	assert_int_equal(suite_load("/nonexistent/suite.json", &s), -1);
}

static void test_signature_blurs_numbers(void **state)
{
	struct signature a, b, hang1, hang2, ex;

	(void)state;
	assert_int_equal(
		signature_of_artifact(
			write_file("a.json",
				   "{\"outcome\": {\"class\": \"signal\", \"job_wait_status\": 6},"
				   " \"output_tail\": \"worker 1\\nt: counter is 23117, "
				   "expected -40000 at 0x7ffd12ab in x86_64\\n\"}"),
			"t", &a),
		0);
	assert_string_equal(a.cls, "signal");
	assert_string_equal(a.status, "signal 6");
	assert_string_equal(a.message, "t: counter is #, expected # at # in x86_64");
	assert_int_equal(
		signature_of_artifact(write_file("hex.json",
						 "{\"outcome\": {\"class\": \"signal\","
						 "  \"job_wait_status\": 6}, \"output_tail\":"
						 " \"hash c45ca436 of cafe, deadbeef0\"}"),
				      "t", &b),
		0);
	assert_string_equal(b.message, "hash # of cafe, #");
	assert_int_equal(strlen(a.id), 16);
	assert_int_equal(
		signature_of_artifact(
			write_file("b.json",
				   "{\"outcome\": {\"class\": \"signal\", \"job_wait_status\": 6},"
				   " \"output_tail\": \"t: counter is 9, expected 40000 at "
				   "-0x1 in x86_64\\n\\n\"}"),
			"t", &b),
		0);
	assert_string_equal(a.id, b.id); /* one bug, one bucket */
	/* a hang's last line is whatever printed last: not part of its signature */
	assert_int_equal(signature_of_artifact(
				 write_file("h1.json", "{\"outcome\": {\"class\": \"deadlock\","
						       " \"job_wait_status\": 0}, \"output_tail\": "
						       "\"worker 1 done\\n\"}"),
				 "t", &hang1),
			 0);
	assert_int_equal(
		signature_of_artifact(write_file("h2.json",
						 "{\"outcome\": {\"class\": \"deadlock\"},"
						 " \"output_tail\": \"worker 2 waiting\\n\"}"),
				      "t", &hang2),
		0);
	assert_string_equal(hang1.status, "");
	assert_string_equal(hang1.message, "");
	assert_string_equal(hang1.id, hang2.id);
	assert_string_not_equal(hang1.id, a.id);
	assert_int_equal(
		signature_of_artifact(write_file("e.json",
						 "{\"outcome\": {\"class\": \"exit\","
						 " \"job_wait_status\": 512}, \"output_tail\": "
						 "\"\"}"),
				      "t", &ex),
		0);
	assert_string_equal(ex.status, "exit 2");
	/* the test is part of the signature */
	assert_int_equal(
		signature_of_artifact(write_file("a2.json", "{\"outcome\": {\"class\": "
							    "\"signal\", \"job_wait_status\":"
							    " 6}, \"output_tail\": \"t: "
							    "counter is 1, expected 2 at "
							    "0x2\"}"),
				      "u", &b),
		0);
	assert_string_not_equal(a.id, b.id);
	assert_int_equal(signature_of_artifact(write_file("x.json", "{\"outcome\": 1}"), "t", &a),
			 -1);
}

static void test_artifact_names(void **state)
{
	(void)state;
	assert_true(signature_is_artifact_name("signal-0123456789abcdef.json"));
	assert_false(signature_is_artifact_name("first-failure.json"));
	assert_false(signature_is_artifact_name("signal-0123.json.min.json"));
	assert_false(signature_is_artifact_name("signal-0123.json.explain.json"));
	assert_false(signature_is_artifact_name(".signal.json.tmp.json"));
	assert_false(signature_is_artifact_name("notes.txt"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suite_parsed),
		cmocka_unit_test(test_suite_round_trip),
		cmocka_unit_test(test_suite_refused),
		cmocka_unit_test(test_signature_blurs_numbers),
		cmocka_unit_test(test_artifact_names),
	};

	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}

/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of rewind-harness's job (harness/job.c): a job file (or an
 * artifact's "job") and the command line go through one table of fields,
 * so every key and every option is checked against it: each is applied,
 * its range refused outside with its name, and a job written as JSON
 * reads back the same.
 */
#include "harness/job.h"
#include "tests/unit/stderr_capture.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

/* What expr printed on stderr goes to msg (an array); the value is expr's. */
#define CAPTURE(msg, expr)                                                                         \
	({                                                                                         \
		struct stderr_capture capture_;                                                    \
		int rc_;                                                                           \
                                                                                                   \
		stderr_capture_begin(&capture_);                                                   \
		rc_ = (expr);                                                                      \
		stderr_capture_end(&capture_, (msg), sizeof(msg));                                 \
		rc_;                                                                               \
	})

static int apply_text(struct harness_job *job, const char *json, char *msg, size_t len)
{
	cJSON *obj = cJSON_Parse(json);
	char out[1024];
	int rc;

	assert_non_null(obj);
	rc = CAPTURE(out, job_apply_json(job, obj, "job.json"));
	snprintf(msg, len, "%s", out);
	cJSON_Delete(obj);
	return rc;
}

static void test_a_job_file_sets_every_field(void **state)
{
	struct harness_job job;
	char msg[1024];

	(void)state;
	assert_int_equal(job_init_defaults(&job), 0);
	assert_int_equal(apply_text(&job,
				    "{\"kernel\":\"/k/bz\",\"initramfs\":\"/k/i.cpio\","
				    "\"command\":[\"/bin/x\",\"-v\"],\"add\":[\"a:/bin/a\",\"b\"],"
				    "\"mem_mib\":256,\"epoch_s\":7,\"step_budget\":5,"
				    "\"stuck_ms\":20,\"wall_ms\":30,\"slice_blocks\":0,"
				    "\"block_ns\":1000,\"user\":\"1000:5\",\"cwd\":\"/w\","
				    "\"env\":[\"X=1\",\"Y=\"],\"skip_status\":7}",
				    msg, sizeof(msg)),
			 0);
	assert_string_equal(job.run.kernel_path, "/k/bz");
	assert_string_equal(job.run.initrd_path, "/k/i.cpio");
	assert_int_equal(job.run.argc, 2);
	assert_string_equal(job.run.argv[1], "-v");
	assert_int_equal(job.run.add_count, 2);
	assert_string_equal(job.run.adds[1], "b");
	assert_int_equal(job.run.mem_bytes, 256ull << 20);
	assert_int_equal(job.run.epoch_s, 7);
	assert_int_equal(job.run.step_budget, 5);
	assert_int_equal(job.run.stuck_ms, 20);
	assert_int_equal(job.wall_ms, 30);
	assert_int_equal(job.slice_blocks, 0);
	assert_int_equal(job.block_ns, 1000);
	assert_string_equal(job.run.user, "1000:5");
	assert_string_equal(job.run.cwd, "/w");
	assert_int_equal(job.run.env_count, 2);
	assert_string_equal(job.run.envs[1], "Y=");
	assert_int_equal(job.skip_status, 7);
	job_free(&job);
}

/* A field at each end of its range and one past: accepted, accepted, refused by name. */
static void expect_range(const char *key, unsigned long long min, unsigned long long max)
{
	struct harness_job job;
	char text[128], msg[1024], says[160];

	assert_int_equal(job_init_defaults(&job), 0);
	snprintf(text, sizeof(text), "{\"%s\":%llu}", key, min);
	assert_int_equal(apply_text(&job, text, msg, sizeof(msg)), 0);
	snprintf(text, sizeof(text), "{\"%s\":%llu}", key, max);
	assert_int_equal(apply_text(&job, text, msg, sizeof(msg)), 0);
	snprintf(text, sizeof(text), "{\"%s\":%llu}", key, max + 1);
	assert_int_equal(apply_text(&job, text, msg, sizeof(msg)), -EINVAL);
	snprintf(says, sizeof(says), "job.json: \"%s\" must be an integer in %llu..%llu", key, min,
		 max);
	if (!strstr(msg, says))
		fail_msg("%s: wanted '%s', got '%s'", key, says, msg);
	if (min > 0) {
		snprintf(text, sizeof(text), "{\"%s\":%llu}", key, min - 1);
		assert_int_equal(apply_text(&job, text, msg, sizeof(msg)), -EINVAL);
	}
	snprintf(text, sizeof(text), "{\"%s\":1.5}", key);
	assert_int_equal(apply_text(&job, text, msg, sizeof(msg)), -EINVAL);
	job_free(&job);
}

static void test_job_file_ranges(void **state)
{
	(void)state;
	expect_range("mem_mib", 64, 3072);
	expect_range("epoch_s", 0, 1ull << 40);
	expect_range("step_budget", 1, 1ull << 40);
	expect_range("stuck_ms", 10, 3600000);
	expect_range("wall_ms", 1, 86400000);
	expect_range("slice_blocks", 0, 1u << 30);
	expect_range("block_ns", 0, 1000);
	expect_range("skip_status", 0, 255);
}

static void test_bad_job_files_are_refused(void **state)
{
	struct harness_job job;
	char msg[1024];

	(void)state;
	assert_int_equal(job_init_defaults(&job), 0);
	assert_int_equal(apply_text(&job, "{\"wall\":5}", msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "job.json: unknown job field \"wall\""));
	assert_int_equal(apply_text(&job, "[1]", msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "job.json: a job must be a JSON object"));
	assert_int_equal(apply_text(&job, "{\"kernel\":\"\"}", msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "\"kernel\" must be a non-empty string"));
	assert_int_equal(apply_text(&job, "{\"command\":[]}", msg, sizeof(msg)), -EINVAL);
	assert_int_equal(apply_text(&job, "{\"add\":\"x\"}", msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "\"add\" must be an array of strings"));
	assert_int_equal(apply_text(&job, "{\"env\":[\"novalue\"]}", msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "--env novalue: expected NAME=VALUE"));
	assert_int_equal(apply_text(&job, "{\"user\":7}", msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "\"user\" must be a non-empty string"));
	/* the first bad field in the table's order is the one named */
	assert_int_equal(apply_text(&job, "{\"block_ns\":9999,\"stuck_ms\":1}", msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "\"stuck_ms\""));
	assert_null(strstr(msg, "block_ns"));
	job_free(&job);
}

/* Every key of the table is in job_to_json's object, and the object reads back the same. */
static void test_a_job_reads_back_from_its_json(void **state)
{
	struct harness_job job, back;
	cJSON *obj;
	char *one, *two, msg[1024];

	(void)state;
	assert_int_equal(job_init_defaults(&job), 0);
	/* without a user, directory, environment or skip status they are absent */
	obj = job_to_json(&job);
	assert_int_equal(cJSON_GetArraySize(obj), 11);
	assert_null(cJSON_GetObjectItemCaseSensitive(obj, "user"));
	cJSON_Delete(obj);
	assert_int_equal(job_apply_option(&job, "add", "x:/bin/x:0700"), 0);
	assert_int_equal(job_apply_option(&job, "stuck-ms", "777"), 0);
	assert_int_equal(job_apply_option(&job, "user", "rewind"), 0);
	assert_int_equal(job_apply_option(&job, "cwd", "/home/rewind/src"), 0);
	assert_int_equal(job_apply_option(&job, "env", "A=1"), 0);
	assert_int_equal(job_apply_option(&job, "env", "B=2=3"), 0);
	assert_int_equal(job_apply_option(&job, "env", "A=4"), 0); /* replaces A */
	assert_int_equal(job_apply_option(&job, "skip-status", "77"), 0);
	assert_int_equal(job.run.env_count, 2);
	assert_string_equal(job.run.envs[0], "A=4");
	assert_string_equal(job.run.envs[1], "B=2=3");
	assert_string_equal(job.run.user, "rewind");
	assert_string_equal(job.run.cwd, "/home/rewind/src");
	assert_int_equal(job.skip_status, 77);
	obj = job_to_json(&job);
	for (const struct job_field *f = job_fields; f->key || f->flag; f++)
		if (f->key && !cJSON_GetObjectItemCaseSensitive(obj, f->key))
			fail_msg("job_to_json has no \"%s\"", f->key);
	assert_int_equal(cJSON_GetArraySize(obj), 15);
	assert_int_equal(job_init_defaults(&back), 0);
	assert_int_equal(CAPTURE(msg, job_apply_json(&back, obj, "artifact")), 0);
	one = cJSON_PrintUnformatted(obj);
	cJSON_Delete(obj);
	obj = job_to_json(&back);
	two = cJSON_PrintUnformatted(obj);
	assert_string_equal(one, two);
	free(one);
	free(two);
	cJSON_Delete(obj);
	job_free(&job);
	job_free(&back);
}

static void test_command_line_options(void **state)
{
	struct harness_job job;
	char msg[1024];

	(void)state;
	assert_int_equal(job_init_defaults(&job), 0);
	assert_int_equal(job_apply_option(&job, "kernel", "/k/bz"), 0);
	assert_string_equal(job.run.kernel_path, "/k/bz");
	assert_int_equal(job_apply_option(&job, "initrd", "/k/i"), 0); /* the alias */
	assert_string_equal(job.run.initrd_path, "/k/i");
	assert_int_equal(job_apply_option(&job, "mem", "1G"), 0);
	assert_int_equal(job.run.mem_bytes, 1ull << 30);
	assert_int_equal(job_apply_option(&job, "step-budget", "0x10"), 0);
	assert_int_equal(job.run.step_budget, 16);
	assert_int_equal(job_apply_option(&job, "wall-ms", "10"), 0);
	assert_int_equal(job.wall_ms, 10);
	assert_int_equal(job_apply_option(&job, "slice-blocks", "0"), 0);
	assert_int_equal(job.slice_blocks, 0);
	assert_int_equal(job_apply_option(&job, "block-ns", "3"), 0);
	assert_int_equal(job.block_ns, 3);
	assert_int_equal(job_apply_option(&job, "add", "p:/bin/p"), 0);
	assert_int_equal(job_apply_option(&job, "add", "q:/bin/p"), 0); /* same guest path */
	assert_int_equal(job.run.add_count, 1);
	assert_string_equal(job.run.adds[0], "q:/bin/p");

	assert_int_equal(CAPTURE(msg, job_apply_option(&job, "stuck-ms", "9")), -EINVAL);
	assert_string_equal(
		msg, "rewind: error: --stuck-ms must be an integer in 10..3600000, not '9'\n");
	assert_int_equal(CAPTURE(msg, job_apply_option(&job, "block-ns", "-1")), -EINVAL);
	assert_int_equal(CAPTURE(msg, job_apply_option(&job, "mem", "12")), -EINVAL);
	assert_non_null(strstr(msg, "--mem must be a whole number of MiB from 64M to 3G"));
	assert_int_equal(CAPTURE(msg, job_apply_option(&job, "epoch_s", "1")), -EINVAL);
	assert_string_equal(msg, "rewind: error: --epoch_s is not a job option\n");
	assert_int_equal(CAPTURE(msg, job_apply_option(&job, "command", "x")), -EINVAL);
	assert_int_equal(CAPTURE(msg, job_apply_option(&job, "env", "=1")), -EINVAL);
	assert_string_equal(msg, "rewind: error: --env =1: expected NAME=VALUE\n");
	assert_int_equal(CAPTURE(msg, job_apply_option(&job, "env", "NOVALUE")), -EINVAL);
	assert_int_equal(CAPTURE(msg, job_apply_option(&job, "skip-status", "256")), -EINVAL);
	assert_int_equal(CAPTURE(msg, job_apply_option(&job, "job", "/no/such.json")), -ENOENT);
	job_free(&job);
}

/* Every option of the table is found by its name; the others are not. */
static void test_options_are_found_by_flag_and_alias(void **state)
{
	(void)state;
	for (const struct job_field *f = job_fields; f->key || f->flag; f++) {
		if (f->flag)
			assert_ptr_equal(job_field_of_flag(f->flag), f);
		if (f->alias)
			assert_ptr_equal(job_field_of_flag(f->alias), f);
	}
	assert_non_null(job_field_of_flag("initrd"));
	assert_string_equal(job_field_of_flag("initrd")->flag, "initramfs");
	assert_null(job_field_of_flag("artifacts"));
	assert_null(job_field_of_flag("mem_mib"));
	assert_null(job_field_of_flag(""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_job_file_sets_every_field),
		cmocka_unit_test(test_job_file_ranges),
		cmocka_unit_test(test_bad_job_files_are_refused),
		cmocka_unit_test(test_a_job_reads_back_from_its_json),
		cmocka_unit_test(test_command_line_options),
		cmocka_unit_test(test_options_are_found_by_flag_and_alias),
	};

	return cmocka_run_group_tests_name("job", tests, NULL, NULL);
}

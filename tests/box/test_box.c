/* SPDX-License-Identifier: MIT */
/*
 * Tests of the KVM box (tests/box/run) itself. The QEMU mode is forced here,
 * so it is exercised on every machine, also where /dev/kvm works natively.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/kvm/command_output.h"

struct box_result {
	int status; /* exit status, or -1 if the command did not exit */
	char output[8192];
	size_t len;
};

/* Runs a shell command line, capturing stdout and stderr merged. */
static void run(const char *cmdline, struct box_result *r)
{
	char full[1024];

	snprintf(full, sizeof(full), "%s 2>&1", cmdline);
	r->len = command_output(full, r->output, sizeof(r->output), &r->status);
}

static void assert_contains(const struct box_result *r, const char *text)
{
	if (!memmem(r->output, r->len, text, strlen(text)))
		fail_msg("expected '%s' in the output:\n%s", text, r->output);
}

static void test_output_status_env_and_cwd_pass_through(void **state)
{
	struct box_result r;

	(void)state;
	run("cd tests && REWIND_BOX_MODE=qemu REWIND_TEST_VALUE='a b' box/run -- "
	    "sh -c 'printf \"out\\t\\001\\n\"; echo \"$REWIND_TEST_VALUE\" >&2; pwd; "
	    "echo \"slow kvm at $REWIND_SLOW_KVM_MS ms\"; exit 7'",
	    &r);
	assert_int_equal(r.status, 7);
	assert_contains(&r, "rewind-box: mode qemu");
	assert_contains(&r, "out\t\001\n");
	assert_contains(&r, "a b\n");
	assert_contains(&r, "/tests\n");
	/* the harness's speed check, inside the box, refuses only a box gone wrong */
	assert_contains(&r, "slow kvm at 100 ms\n");
	assert_null(strstr(r.output, "BOX-READY")); /* the box's chatter stays hidden */
}

/* Also from a folder under /tmp, which the box mounts over a fresh tmpfs. */
static void test_failing_command_fails(void **state)
{
	char dir[] = "/tmp/rewind-box-test-XXXXXX", cmd[512], made[600];
	struct box_result r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "box=$PWD/tests/box/run; cd %s && REWIND_BOX_MODE=qemu REWIND_SLOW_KVM_MS=7 $box "
		 "sh -c 'touch made; echo \"slow kvm at $REWIND_SLOW_KVM_MS ms\"; false'",
		 dir);
	run(cmd, &r);
	assert_int_equal(r.status, 1);
	assert_contains(&r, "slow kvm at 7 ms\n"); /* a user's threshold is kept */
	snprintf(made, sizeof(made), "%s/made", dir);
	assert_int_equal(access(made, F_OK), 0); /* written through the read-write share */
	unlink(made);
	rmdir(dir);
}

static void test_kvm_works_inside_qemu_box(void **state)
{
	struct box_result r;

	(void)state;
	run("REWIND_BOX_MODE=qemu tests/box/run sh -c 'ls -l /dev/kvm && "
	    "build/tests/test_kvm_smoke'",
	    &r);
	assert_contains(&r, "/dev/kvm");
	assert_contains(&r, "[  PASSED  ] 4 test(s).");
	assert_int_equal(r.status, 0);
}

/* Native mode either works (and runs the command as is) or refuses clearly. */
static void test_native_mode_runs_or_refuses(void **state)
{
	struct box_result r;

	(void)state;
	run("REWIND_BOX_MODE=native tests/box/run sh -c 'exit 5'", &r);
	if (r.status == 5) {
		assert_contains(&r, "rewind-box: mode native");
	} else {
		assert_int_equal(r.status, 125);
		assert_contains(&r, "does not work here");
	}
}

static void test_box_failures_are_reported(void **state)
{
	struct box_result r;

	(void)state;
	run("REWIND_BOX_MODE=bogus tests/box/run true", &r);
	assert_int_equal(r.status, 125);
	assert_contains(&r, "REWIND_BOX_MODE must be");
	run("tests/box/run", &r);
	assert_int_equal(r.status, 125);
	assert_contains(&r, "usage:");
	/* QEMU refuses to start with too little memory for its firmware. */
	run("REWIND_BOX_MODE=qemu REWIND_BOX_MEM=1 tests/box/run true", &r);
	assert_int_equal(r.status, 125);
	assert_contains(&r, "the box stopped before CMD finished");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_output_status_env_and_cwd_pass_through),
		cmocka_unit_test(test_failing_command_fails),
		cmocka_unit_test(test_kvm_works_inside_qemu_box),
		cmocka_unit_test(test_native_mode_runs_or_refuses),
		cmocka_unit_test(test_box_failures_are_reported),
	};

	return cmocka_run_group_tests_name("box", tests, NULL, NULL);
}

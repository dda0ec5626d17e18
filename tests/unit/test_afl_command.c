/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the afl-fuzz command that `rewind fuzz` and a night's
 * workers start (afl/afl_command.c): its arguments in order, the
 * settings both get, the user's AFL_FORKSRV_INIT_TMOUT honoured, and a
 * command too long refused, not cut.
 */
#include "afl/afl_command.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static struct afl_command cmd;

/* argv joined by spaces */
static const char *joined(const struct afl_command *c)
{
	static char text[4096];
	size_t n = 0;

	text[0] = 0;
	for (size_t i = 0; i < c->argc; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%s", i ? " " : "", c->argv[i]);
	assert_null(c->argv[c->argc]);
	return text;
}

static bool has_env(const struct afl_command *c, const char *setting)
{
	for (size_t i = 0; i < c->envc; i++)
		if (!strcmp(c->env[i], setting))
			return true;
	return false;
}

static struct afl_run fuzz_run(void)
{
	static const char *const afl_opts[] = {"-p", "fast"};
	static const char *const harness_opts[] = {"--mem", "64M"};
	static const char *const command[] = {"/bin/ledger", "3"};

	return (struct afl_run){.seconds = 60,
				.corpus = "corpus/pct",
				.out = "out",
				.afl_opts = afl_opts,
				.afl_opt_count = 2,
				.harness = "rewind-harness",
				.artifacts = "out/artifacts",
				.progress = "out/progress.json",
				.harness_opts = harness_opts,
				.harness_opt_count = 2,
				.command = command,
				.command_len = 2,
				.mutator = "rewind-mutator.so",
				.until_crash = true};
}

static void test_fuzz_command_in_order(void **state)
{
	struct afl_run r = fuzz_run();

	(void)state;
	unsetenv("AFL_FORKSRV_INIT_TMOUT");
	assert_int_equal(afl_command_build(&r, &cmd), 0);
	assert_string_equal(joined(&cmd),
			    "afl-fuzz -V 60 -t 10000+ -m none -i corpus/pct -o out -p fast -- "
			    "rewind-harness --artifacts out/artifacts --progress out/progress.json "
			    "--mem 64M @@ -- /bin/ledger 3");
	assert_true(has_env(&cmd, "AFL_NO_UI=1"));
	assert_true(has_env(&cmd, "AFL_FORKSRV_INIT_TMOUT=120000"));
	assert_true(has_env(&cmd, "AFL_BENCH_UNTIL_CRASH=1"));
	assert_true(has_env(&cmd, "AFL_CUSTOM_MUTATOR_LIBRARY=rewind-mutator.so"));
	assert_true(has_env(&cmd, "AFL_CUSTOM_MUTATOR_ONLY=1"));
	assert_false(has_env(&cmd, "REWIND_MUTATOR_SAMPLER=stall"));
	r.sampler = "stall"; /* rewind fuzz --sampler stall */
	assert_int_equal(afl_command_build(&r, &cmd), 0);
	assert_true(has_env(&cmd, "REWIND_MUTATOR_SAMPLER=stall"));
	r.sampler = "walk"; /* rewind fuzz --sampler walk */
	assert_int_equal(afl_command_build(&r, &cmd), 0);
	assert_true(has_env(&cmd, "REWIND_MUTATOR_SAMPLER=walk"));
	assert_false(has_env(&cmd, "REWIND_MUTATOR_SAMPLER=stall"));
	assert_true(has_env(&cmd, "REWIND_PROGRESS_FILE=out/progress.json"));
	assert_false(has_env(&cmd, "AFL_AUTORESUME=1"));
	assert_null(cmd.env[cmd.envc]);
}

static void test_worker_command_names_its_instance(void **state)
{
	static const char *const none[] = {NULL};
	struct afl_run r = {.seconds = 5,
			    .corpus = "c",
			    .out = "t/afl",
			    .instance = "worker-1",
			    .harness = "h",
			    .artifacts = "t/artifacts",
			    .progress = "t/p",
			    .command = none,
			    .mutator = "m.so",
			    .resume = true};

	(void)state;
	setenv("AFL_FORKSRV_INIT_TMOUT", "300000", 1);
	assert_int_equal(afl_command_build(&r, &cmd), 0);
	assert_string_equal(joined(&cmd),
			    "afl-fuzz -V 5 -t 10000+ -m none -i c -o t/afl -S "
			    "worker-1 -- h --artifacts t/artifacts --progress t/p @@ --");
	assert_true(has_env(&cmd, "AFL_FORKSRV_INIT_TMOUT=300000"));
	assert_true(has_env(&cmd, "AFL_AUTORESUME=1"));
	assert_false(has_env(&cmd, "AFL_BENCH_UNTIL_CRASH=1"));
	assert_int_equal(afl_init_timeout_ms(), 300000);
	r.main_instance = true;
	assert_int_equal(afl_command_build(&r, &cmd), 0);
	assert_non_null(strstr(joined(&cmd), " -M worker-1 "));
	unsetenv("AFL_FORKSRV_INIT_TMOUT");
}

/* A job with a long wall budget: afl-fuzz waits longer than the harness does. */
static void test_a_long_wall_budget_lengthens_afls_timeout(void **state)
{
	static const char *const long_wall[] = {"--wall-ms", "300000"};
	static const char *const joined_wall[] = {"--wall-ms=60000", "--mem", "64M"};
	static const char *const short_wall[] = {"--wall-ms", "2000"};
	struct afl_run r = fuzz_run();

	(void)state;
	r.harness_opts = long_wall;
	r.harness_opt_count = 2;
	assert_int_equal(afl_command_build(&r, &cmd), 0);
	assert_non_null(strstr(joined(&cmd), "afl-fuzz -V 60 -t 305000+ -m none "));
	r.harness_opts = joined_wall;
	r.harness_opt_count = 3;
	assert_int_equal(afl_command_build(&r, &cmd), 0);
	assert_non_null(strstr(joined(&cmd), " -t 65000+ "));
	r.harness_opts = short_wall;
	r.harness_opt_count = 2;
	assert_int_equal(afl_command_build(&r, &cmd), 0);
	assert_non_null(strstr(joined(&cmd), " -t 10000+ "));
}

static void test_no_mutator_no_command(void **state)
{
	struct afl_run r = fuzz_run();

	(void)state;
	r.mutator = NULL;
	r.command = NULL;
	assert_int_equal(afl_command_build(&r, &cmd), 0);
	assert_string_equal(cmd.argv[cmd.argc - 1], "@@");
	assert_false(has_env(&cmd, "AFL_CUSTOM_MUTATOR_ONLY=1"));
}

static void test_too_long_a_command_is_refused(void **state)
{
	static const char *words[AFL_COMMAND_MAX_ARGS];
	struct afl_run r = fuzz_run();

	(void)state;
	for (size_t i = 0; i < AFL_COMMAND_MAX_ARGS; i++)
		words[i] = "w";
	r.command = words;
	/* 23 words before the command's: afl-fuzz ... @@ -- */
	r.command_len = AFL_COMMAND_MAX_ARGS - 23;
	assert_int_equal(afl_command_build(&r, &cmd), 0);
	assert_int_equal(cmd.argc, AFL_COMMAND_MAX_ARGS);
	r.command_len++;
	assert_int_equal(afl_command_build(&r, &cmd), -1);
	r.harness_opts = words;
	r.harness_opt_count = AFL_COMMAND_MAX_ARGS;
	r.command = NULL;
	assert_int_equal(afl_command_build(&r, &cmd), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fuzz_command_in_order),
		cmocka_unit_test(test_worker_command_names_its_instance),
		cmocka_unit_test(test_a_long_wall_budget_lengthens_afls_timeout),
		cmocka_unit_test(test_no_mutator_no_command),
		cmocka_unit_test(test_too_long_a_command_is_refused),
	};

	return cmocka_run_group_tests_name("afl_command", tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of what rewind explore reads and decides without KVM: suite
 * files (explore/suite.c), their runners (explore/suite_runner.c, with
 * small fake runners and, where cmake is installed, a real CTest build
 * folder), a night's plan (explore/plan.c), failure signatures
 * (explore/signature.c), and children that end with their parent
 * (lib/parent_death.h, through explore/host_command.c).
 */
#include "explore/host_command.h"
#include "explore/plan.h"
#include "explore/signature.h"
#include "explore/suite.h"
#include "lib/log.h"
#include "lib/parent_death.h"
#include "tests/unit/stderr_capture.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

/* A shell script the tests run as a fake runner. */
static void write_script(const char *name, const char *body)
{
	char text[4096];

	snprintf(text, sizeof(text), "#!/bin/sh\n%s\n", body);
	assert_int_equal(chmod(write_file(name, text), 0755), 0);
}

static int make_dir(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Removes everything the tests wrote, then the folder. */
static int remove_dir(void **state)
{
	(void)state;
	return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* words joined by spaces into line (len bytes), to compare whole. */
static const char *joined(char *const *words, size_t count, char *line, size_t len)
{
	size_t used = 0;

	line[0] = 0;
	for (size_t i = 0; i < count; i++)
		used += (size_t)snprintf(line + used, len - used, "%s%s", i ? " " : "", words[i]);
	return line;
}

/* A test's rewind-harness options as one line. */
static const char *args_line(const struct suite_test *t)
{
	static char line[4096];

	return joined(t->args, t->arg_count, line, sizeof(line));
}

/* A test's command as one line. */
static const char *command_line(const struct suite_test *t)
{
	static char line[4096];

	return joined(t->command, t->command_len, line, sizeof(line));
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
	assert_int_equal(s.tests[0].mode, SUITE_MODE_PCT);
	assert_int_equal(s.tests[0].share, 1);
	assert_int_equal(s.tests[0].command_len, 2);
	assert_string_equal(s.tests[0].command[1], "-q");
	assert_int_equal(s.tests[0].arg_count, 0);
	assert_int_equal(s.tests[1].mode, SUITE_MODE_STEPS);
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
	assert_int_equal(back.tests[0].mode, SUITE_MODE_STEPS);
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

static void test_suite_job_keys(void **state)
{
	static struct suite s;
	const char *path = write_file(
		"keys.json",
		"{\"format\": \"rewind-suite\", \"version\": 1, \"tests\": ["
		"{\"name\": \"uv\", \"command\": [\"/bin/uv\", \"active\"], \"user\": \"rewind\","
		" \"cwd\": \"/src/uv\", \"env\": [\"UV_RUN_AS_ROOT=1\", \"X=a=b\"],"
		" \"skip_status\": 7, \"add\": [\"/h:/g\"], \"mem_mib\": 512}]}");

	(void)state;
	assert_int_equal(suite_load(path, &s), 0);
	assert_int_equal(s.count, 1);
	assert_string_equal(
		args_line(&s.tests[0]),
		"--add /h:/g --mem 512 --user rewind --cwd /src/uv --env UV_RUN_AS_ROOT=1 "
		"--env X=a=b --skip-status 7");
	suite_free(&s);
}

/* suite_load of text, which must fail; the one line it printed on stderr (newline cut). */
static const char *load_refused(const char *text)
{
	static struct suite s;
	static char line[2048];
	const char *path = write_file("refused.json", text);
	struct stderr_capture capture;
	size_t end;

	stderr_capture_begin(&capture);
	assert_int_equal(suite_load(path, &s), -1);
	stderr_capture_end(&capture, line, sizeof(line));
	end = strcspn(line, "\n");
	assert_true(end > 0);
	if (line[end])
		assert_string_equal(line + end + 1, ""); /* one line, no more */
	line[end] = 0;
	return line;
}

#define SETTING_KEYS_TEXT                                                                          \
	"add, mode, share, user, cwd, env, skip_status, kernel, initramfs, mem_mib, "              \
	"step_budget, stuck_ms, wall_ms, slice_blocks, block_ns"

/* A misspelt key is refused at every level, named with the file and the keys there are. */
static void test_suite_unknown_keys(void **state)
{
	char expected[1024];

	(void)state;
	snprintf(expected, sizeof(expected),
		 "rewind explore: error: %s/refused.json: test \"lost_update\": unknown key "
		 "\"mdoe\"; the keys are name, command, " SETTING_KEYS_TEXT,
		 dir);
	assert_string_equal(load_refused("{\"format\": \"rewind-suite\", \"tests\": ["
					 "{\"name\": \"lost_update\", \"command\": [\"/x\"],"
					 " \"mdoe\": \"plain\"}]}"),
			    expected);
	snprintf(expected, sizeof(expected),
		 "rewind explore: error: %s/refused.json: the top level: unknown key \"test\"; "
		 "the keys are format, version, tests, runner, " SETTING_KEYS_TEXT,
		 dir);
	assert_string_equal(load_refused("{\"format\": \"rewind-suite\", \"test\": [],"
					 " \"tests\": [{\"name\": \"a\", \"command\": [\"/x\"]}]}"),
			    expected);
	/* a test without a usable name is named by its place in the list */
	snprintf(expected, sizeof(expected),
		 "rewind explore: error: %s/refused.json: test 2: unknown key \"nmae\"; the keys "
		 "are name, command, " SETTING_KEYS_TEXT,
		 dir);
	assert_string_equal(load_refused("{\"format\": \"rewind-suite\", \"tests\": ["
					 "{\"name\": \"a\", \"command\": [\"/x\"]},"
					 "{\"nmae\": \"b\", \"command\": [\"/y\"]}]}"),
			    expected);
	snprintf(expected, sizeof(expected),
		 "rewind explore: error: %s/refused.json: runner \"directory\": unknown key "
		 "\"dirs\"; the keys are kind, dir, exclude, overrides, " SETTING_KEYS_TEXT,
		 dir);
	assert_string_equal(
		load_refused("{\"format\": \"rewind-suite\","
			     " \"runner\": {\"kind\": \"directory\", \"dirs\": \"t\"}}"),
		expected);
	snprintf(expected, sizeof(expected),
		 "rewind explore: error: %s/refused.json: \"version\" must be 1, the only version "
		 "of suite files",
		 dir);
	assert_string_equal(load_refused("{\"format\": \"rewind-suite\", \"version\": 2,"
					 " \"tests\": [{\"name\": \"a\", \"command\": [\"/x\"]}]}"),
			    expected);
}

/* "mode": rewind-harness's words, the older ones, and the word night.json keeps. */
static void test_suite_mode_words(void **state)
{
	static struct suite s, back;
	static const struct {
		const char *word, *kept;
		enum suite_mode mode;
	} WORDS[] = {
		{"pct", "pct", SUITE_MODE_PCT},	      {"counter", "counter", SUITE_MODE_COUNTER},
		{"steps", "steps", SUITE_MODE_STEPS}, {"instrumented", "pct", SUITE_MODE_PCT},
		{"plain", "steps", SUITE_MODE_STEPS}, {NULL, "pct", SUITE_MODE_PCT},
	};
	char text[256], expected[512];

	(void)state;
	for (size_t i = 0; i < sizeof(WORDS) / sizeof(WORDS[0]); i++) {
		cJSON *json;

		snprintf(text, sizeof(text),
			 "{\"format\": \"rewind-suite\", \"tests\": [{\"name\": \"a\","
			 " \"command\": [\"/x\"]%s%s%s}]}",
			 WORDS[i].word ? ", \"mode\": \"" : "", WORDS[i].word ? WORDS[i].word : "",
			 WORDS[i].word ? "\"" : "");
		assert_int_equal(suite_load(write_file("mode.json", text), &s), 0);
		assert_int_equal(s.tests[0].mode, WORDS[i].mode);
		json = suite_to_json(&s);
		assert_string_equal(
			cJSON_GetObjectItem(cJSON_GetArrayItem(json, 0), "mode")->valuestring,
			WORDS[i].kept);
		assert_int_equal(suite_from_json(json, &back, "night.json"), 0);
		assert_int_equal(back.tests[0].mode, WORDS[i].mode);
		cJSON_Delete(json);
		suite_free(&s);
		suite_free(&back);
	}
	snprintf(expected, sizeof(expected),
		 "rewind explore: error: %s/refused.json: test \"a\": \"mode\" is \"pct\", "
		 "\"counter\" or \"steps\" (or the older \"instrumented\", the same as pct, or "
		 "\"plain\", the same as steps)",
		 dir);
	assert_string_equal(load_refused("{\"format\": \"rewind-suite\", \"tests\": [{\"name\": "
					 "\"a\", \"command\": [\"/x\"], \"mode\": \"PCT\"}]}"),
			    expected);
}

/* Settings at the top level are every test's; a test's own win; "env" merges by NAME. */
static void test_suite_top_level_defaults(void **state)
{
	static struct suite s;
	const char *path = write_file(
		"defaults.json",
		"{\"format\": \"rewind-suite\", \"version\": 1, \"user\": \"rewind\","
		" \"cwd\": \"/work\", \"env\": [\"A=1\", \"B=2\"], \"skip_status\": 77, \"tests\": "
		"["
		"{\"name\": \"plain\", \"command\": [\"/t/plain\"]},"
		"{\"name\": \"own\", \"command\": [\"/t/own\"], \"user\": \"nobody\","
		" \"cwd\": \"/\", \"env\": [\"B=3\", \"C=4\"], \"skip_status\": 7},"
		"{\"name\": \"none\", \"command\": [\"/t/none\"], \"skip_status\": 0}]}");

	(void)state;
	assert_int_equal(suite_load(path, &s), 0);
	assert_int_equal(s.count, 3);
	assert_string_equal(args_line(&s.tests[0]),
			    "--user rewind --cwd /work --env A=1 --env B=2 --skip-status 77");
	assert_string_equal(args_line(&s.tests[1]),
			    "--user nobody --cwd / --env A=1 --env B=3 --env C=4 --skip-status 7");
	/* skip_status 0: no skip status, whatever the default */
	assert_string_equal(args_line(&s.tests[2]),
			    "--user rewind --cwd /work --env A=1 --env B=2");
	suite_free(&s);
}

static void test_suite_job_keys_refused(void **state)
{
	static struct suite s;
	static const char *const bad[] = {
		"\"user\": \"two words\"", "\"user\": \"\"",	   "\"user\": 0",
		"\"cwd\": \"relative\"",   "\"cwd\": 1",	   "\"env\": \"A=1\"",
		"\"env\": [\"A\"]",	   "\"env\": [\"=1\"]",	   "\"env\": [\"1A=1\"]",
		"\"env\": [\"A B=1\"]",	   "\"env\": [1]",	   "\"skip_status\": 256",
		"\"skip_status\": -1",	   "\"skip_status\": 1.5", "\"skip_status\": \"7\"",
	};
	char text[512];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text),
			 "{\"format\": \"rewind-suite\", \"tests\": [{\"name\": \"a\", "
			 "\"command\": [\"/a\"], %s}]}",
			 bad[i]);
		assert_int_equal(suite_load(write_file("badkey.json", text), &s), -1);
		/* ... and as a default at the top level */
		snprintf(text, sizeof(text),
			 "{\"format\": \"rewind-suite\", %s, \"tests\": [{\"name\": \"a\", "
			 "\"command\": [\"/a\"]}]}",
			 bad[i]);
		assert_int_equal(suite_load(write_file("badtop.json", text), &s), -1);
		assert_int_equal(s.count, 0);
	}
}

/*
 * What libuv's uv_run_tests_a --list prints (1.44.2): every test but the
 * helpers, sorted, one a line; a test with helper processes padded to 25
 * columns and followed by "(helpers: ...)". Here also lines a runner might
 * print around its list, names to sanitise, and what "exclude" leaves out.
 */
static const char FAKE_LIST[] =
	"[ \"$UV_RUN_AS_ROOT\" = 1 ] || { echo 'The libuv test suite cannot be run as root.' >&2; "
	"exit 1; }\n"
	"[ \"$1\" = --list ] || exit 2\n"
	"cat <<'END'\n"
	"Available tests:\n"
	"active\n"
	"\n"
	"  async_null_cb  \r\n"
	"callback_stack            (helpers: tcp4_echo_server)\n"
	"pipe_ping_pong            (helpers: pipe_echo_server)\n"
	"tcp_open                  (helpers: tcp4_echo_server)\n"
	"udp_ref3                  (helpers: udp4_echo_server)\n"
	"# a comment\n"
	"--------\n"
	"Suite/case:1\n"
	"Suite_case_1\n"
	"x123456789x123456789x123456789x123456789x123456789x123456789_long_name\n"
	"Total: 13 tests\n"
	"END";

static void test_runner_list(void **state)
{
	static struct suite s;
	const char *path;

	(void)state;
	write_script("uv_list", FAKE_LIST);
	path = write_file("list.json",
			  "{\"format\": \"rewind-suite\", \"version\": 1, \"env\": [\"HOME=/\"],"
			  " \"tests\": [{\"name\": \"active\", \"command\": [\"/bin/mine\"]}],"
			  " \"runner\": {\"kind\": \"list\", \"list\": [\"./uv_list\", \"--list\"],"
			  " \"list_env\": [\"UV_RUN_AS_ROOT=1\"],"
			  " \"command\": [\"/bin/uv_run_tests_a\", \"{test}\", \"--x={test}.log\"],"
			  " \"add\": [\"uv_list:/bin/uv_run_tests_a\"], \"user\": \"rewind\","
			  " \"skip_status\": 7, \"mode\": \"plain\","
			  " \"exclude\": [\"tcp_*\", \"re:^udp\", \"pipe_ping_?ong\"]}}");
	assert_int_equal(suite_load(path, &s), 0);
	assert_int_equal(s.count, 7);
	/* the suite's own test first; the runner's "active" is renamed to stay unique */
	assert_string_equal(s.tests[0].name, "active");
	assert_string_equal(command_line(&s.tests[0]), "/bin/mine");
	assert_int_equal(s.tests[0].mode, SUITE_MODE_PCT);
	assert_string_equal(args_line(&s.tests[0]), "--env HOME=/");
	assert_string_equal(s.tests[1].name, "active-2");
	assert_string_equal(command_line(&s.tests[1]), "/bin/uv_run_tests_a active --x=active.log");
	assert_int_equal(s.tests[1].mode, SUITE_MODE_STEPS);
	assert_string_equal(s.tests[2].name, "async_null_cb");
	assert_string_equal(command_line(&s.tests[2]),
			    "/bin/uv_run_tests_a async_null_cb --x=async_null_cb.log");
	assert_string_equal(s.tests[3].name, "callback_stack");
	assert_string_equal(command_line(&s.tests[3]),
			    "/bin/uv_run_tests_a callback_stack --x=callback_stack.log");
	/* the name in the command is the runner's; the suite's is sanitised and unique */
	assert_string_equal(s.tests[4].name, "Suite_case_1");
	assert_string_equal(command_line(&s.tests[4]),
			    "/bin/uv_run_tests_a Suite/case:1 --x=Suite/case:1.log");
	assert_string_equal(s.tests[5].name, "Suite_case_1-2");
	assert_string_equal(command_line(&s.tests[5]),
			    "/bin/uv_run_tests_a Suite_case_1 --x=Suite_case_1.log");
	assert_string_equal(s.tests[6].name,
			    "x123456789x123456789x123456789x123456789x123456789x123456789_lo");
	assert_int_equal(strlen(s.tests[6].name), SUITE_NAME_MAX - 1);
	for (size_t i = 1; i < s.count; i++) {
		char expected[512];

		snprintf(expected, sizeof(expected),
			 "--add %s/uv_list:/bin/uv_run_tests_a --user rewind --env HOME=/ "
			 "--skip-status 7",
			 dir);
		assert_string_equal(args_line(&s.tests[i]), expected);
	}
	suite_free(&s);
}

static const char *runner_suite(const char *name, const char *runner)
{
	char text[2048];

	snprintf(text, sizeof(text), "{\"format\": \"rewind-suite\", \"runner\": %s}", runner);
	return write_file(name, text);
}

static void test_runner_list_refused(void **state)
{
	static struct suite s;
	static const char *const bad[] = {
		/* the runner: its kind, its keys */
		"[]",
		"{\"kind\": \"make\"}",
		"{\"list\": [\"./ok_list\"], \"command\": [\"/t\", \"{test}\"]}",
		"{\"kind\": \"list\", \"list\": [\"./ok_list\"], \"command\": [\"/t\", \"{test}\"],"
		" \"filter\": \"x\"}",
		"{\"kind\": \"list\", \"command\": [\"/t\", \"{test}\"]}",
		"{\"kind\": \"list\", \"list\": [], \"command\": [\"/t\", \"{test}\"]}",
		"{\"kind\": \"list\", \"list\": \"./ok_list\", \"command\": [\"/t\", \"{test}\"]}",
		"{\"kind\": \"list\", \"list\": [\"./ok_list\"], \"command\": [\"/t\"]}",
		"{\"kind\": \"list\", \"list\": [\"./ok_list\"], \"command\": [\"/t\", \"{test}\"],"
		" \"exclude\": [\"re:(\"]}",
		"{\"kind\": \"list\", \"list\": [\"./ok_list\"], \"command\": [\"/t\", \"{test}\"],"
		" \"list_env\": [\"NOVALUE\"]}",
		"{\"kind\": \"list\", \"list\": [\"./ok_list\"], \"command\": [\"/t\", \"{test}\"],"
		" \"timeout_s\": 0}",
		/* a runner setting checked as a test's */
		"{\"kind\": \"list\", \"list\": [\"./ok_list\"], \"command\": [\"/t\", \"{test}\"],"
		" \"skip_status\": 300}",
		/* the command fails, is missing, prints too much, takes too long, lists nothing */
		"{\"kind\": \"list\", \"list\": [\"./fails\"], \"command\": [\"/t\", \"{test}\"]}",
		"{\"kind\": \"list\", \"list\": [\"./missing\"], \"command\": [\"/t\", "
		"\"{test}\"]}",
		"{\"kind\": \"list\", \"list\": [\"no-such-program-here\"], \"command\": [\"/t\","
		" \"{test}\"]}",
		"{\"kind\": \"list\", \"list\": [\"./chatty\"], \"command\": [\"/t\", \"{test}\"]}",
		"{\"kind\": \"list\", \"list\": [\"./slow\"], \"command\": [\"/t\", \"{test}\"],"
		" \"timeout_s\": 1}",
		"{\"kind\": \"list\", \"list\": [\"./ok_list\"], \"command\": [\"/t\", \"{test}\"],"
		" \"exclude\": [\"*\"]}",
		/* overrides: a list of objects with a glob or a regex, and settings */
		"{\"kind\": \"list\", \"list\": [\"./ok_list\"], \"command\": [\"/t\", \"{test}\"],"
		" \"overrides\": {\"match\": \"one\"}}",
		"{\"kind\": \"list\", \"list\": [\"./ok_list\"], \"command\": [\"/t\", \"{test}\"],"
		" \"overrides\": [{\"wall_ms\": 1000}]}",
		"{\"kind\": \"list\", \"list\": [\"./ok_list\"], \"command\": [\"/t\", \"{test}\"],"
		" \"overrides\": [{\"match\": \"re:(\", \"wall_ms\": 1000}]}",
		"{\"kind\": \"list\", \"list\": [\"./ok_list\"], \"command\": [\"/t\", \"{test}\"],"
		" \"overrides\": [{\"match\": \"one\", \"wall_sm\": 1000}]}",
		"{\"kind\": \"list\", \"list\": [\"./ok_list\"], \"command\": [\"/t\", \"{test}\"],"
		" \"overrides\": [{\"match\": \"one\", \"wall_ms\": -1}]}",
	};
	struct timespec t0, t1;

	(void)state;
	write_script("ok_list", "echo one; echo two");
	write_script("fails", "echo one; echo 'it broke' >&2; exit 3");
	write_script("chatty",
		     "i=0; while [ $i -lt 70000 ]; do "
		     "echo 0123456789012345678901234567890123456789012345678901234567890123;"
		     " i=$((i + 1)); done");
	write_script("slow", "echo one; exec sleep 30");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		assert_int_equal(suite_load(runner_suite("badrunner.json", bad[i]), &s), -1);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		assert_int_equal(s.count, 0);
		assert_true(t1.tv_sec - t0.tv_sec < 10); /* "timeout_s": 1 kills slow */
	}
	assert_int_equal(suite_load(runner_suite("okrunner.json",
						 "{\"kind\": \"list\", \"list\": [\"./ok_list\"],"
						 " \"command\": [\"/t\", \"{test}\"]}"),
				    &s),
			 0);
	assert_int_equal(s.count, 2);
	suite_free(&s);
}

/*
 * A runner's "overrides": the first whose "match" (a glob on the whole
 * name, or "re:" anywhere) fits a test gives it settings over the
 * runner's, e.g. a long execution budget for a suite's stress tests.
 */
static void test_runner_overrides(void **state)
{
	static struct suite s;

	(void)state;
	write_script("three_list", "echo stress_ring; echo stress_pool; echo quick");
	assert_int_equal(
		suite_load(runner_suite(
				   "overrides.json",
				   "{\"kind\": \"list\", \"list\": [\"./three_list\"],"
				   " \"command\": [\"/t\", \"{test}\"], \"wall_ms\": 60000,"
				   " \"overrides\": [{\"match\": \"re:ring$\", \"wall_ms\": 900000,"
				   " \"stuck_ms\": 120000}, {\"match\": \"stress_*\","
				   " \"wall_ms\": 600000}, {\"match\": \"quick\"}]}"),
			   &s),
		0);
	assert_int_equal(s.count, 3);
	assert_string_equal(s.tests[0].name, "stress_ring");
	assert_string_equal(args_line(&s.tests[0]), "--stuck-ms 120000 --wall-ms 900000");
	assert_string_equal(s.tests[1].name, "stress_pool");
	assert_string_equal(args_line(&s.tests[1]), "--wall-ms 600000");
	assert_string_equal(s.tests[2].name, "quick");
	assert_string_equal(args_line(&s.tests[2]), "--wall-ms 60000");
	suite_free(&s);
}

/* What ctest --show-only=json-v1 printed for a small project (CMake 3.25), trimmed. */
static const char FAKE_CTEST[] =
	"[ \"$1\" = --show-only=json-v1 ] && [ \"$2\" = -C ] && [ \"$3\" = Debug ] || exit 9\n"
	"cat <<'END'\n"
	"{\"backtraceGraph\": {\"commands\": [\"add_test\"], \"files\": [], \"nodes\": []},\n"
	" \"kind\": \"ctestInfo\", \"version\": {\"major\": 1, \"minor\": 0}, \"tests\": [\n"
	"  {\"backtrace\": 1, \"command\": [\"BUILD/t_alpha\", \"--x\", \"a b\"], \"name\": "
	"\"alpha\","
	"   \"properties\": [{\"name\": \"WORKING_DIRECTORY\", \"value\": \"BUILD\"}]},\n"
	"  {\"backtrace\": 3, \"command\": [\"/bin/sh\", \"-c\", \"exit 77\"], \"name\": \"beta\","
	"   \"properties\": [{\"name\": \"ENVIRONMENT\", \"value\": [\"A=1\", \"B=two=2\"]},"
	"   {\"name\": \"LABELS\", \"value\": [\"x\", \"y\"]},"
	"   {\"name\": \"SKIP_RETURN_CODE\", \"value\": 77},"
	"   {\"name\": \"WORKING_DIRECTORY\", \"value\": \"/tmp\"}]},\n"
	"  {\"command\": [\"/bin/false\"], \"name\": \"gamma\","
	"   \"properties\": [{\"name\": \"DISABLED\", \"value\": true}]},\n"
	"  {\"name\": \"delta\", \"properties\": []},\n"
	"  {\"command\": [\"/bin/true\"], \"name\": \"inverted\","
	"   \"properties\": [{\"name\": \"WILL_FAIL\", \"value\": true}]},\n"
	"  {\"command\": [\"/bin/true\"], \"name\": \"by_output\","
	"   \"properties\": [{\"name\": \"PASS_REGULAR_EXPRESSION\", \"value\": [\"ok\"]}]},\n"
	"  {\"command\": [\"/bin/true\"], \"name\": \"slow_one\", \"properties\": []},\n"
	"  {\"command\": [\"BUILD/t x\"], \"name\": \"with space/and:colon\","
	"   \"properties\": [{\"name\": \"SKIP_RETURN_CODE\", \"value\": \"4\"},"
	"   {\"name\": \"WORKING_DIRECTORY\", \"value\": \"BUILD/sub\"}]}\n"
	"]}\n"
	"END";

static void test_runner_ctest(void **state)
{
	static struct suite s;
	char script[sizeof(FAKE_CTEST) + 2048], build[300], expected[1024];
	const char *path;
	size_t used;

	(void)state;
	snprintf(build, sizeof(build), "%s/build", dir);
	assert_int_equal(mkdir(build, 0755), 0);
	/* BUILD in the fake output is the build folder; ctest runs in it */
	used = (size_t)snprintf(script, sizeof(script), "[ \"$PWD\" = %s ] || exit 8\n", build);
	for (const char *p = FAKE_CTEST; *p && used + sizeof(build) < sizeof(script); p++)
		if (!strncmp(p, "BUILD", 5)) {
			used += (size_t)snprintf(script + used, sizeof(script) - used, "%s", build);
			p += 4;
		} else {
			script[used++] = *p;
			script[used] = 0;
		}
	write_script("fake_ctest", script);
	path = write_file(
		"ctest.json",
		"{\"format\": \"rewind-suite\", \"version\": 1, \"env\": [\"A=0\"],"
		" \"runner\": {\"kind\": \"ctest\", \"build_dir\": \"build\","
		" \"ctest\": \"./fake_ctest\", \"config\": \"Debug\", \"mode\": \"plain\","
		" \"user\": \"rewind\", \"exclude\": [\"slow_*\"]}}");
	assert_int_equal(suite_load(path, &s), 0);
	assert_int_equal(s.count, 3);
	assert_string_equal(s.tests[0].name, "alpha");
	snprintf(expected, sizeof(expected), "%s/t_alpha --x a b", build);
	assert_string_equal(command_line(&s.tests[0]), expected);
	snprintf(expected, sizeof(expected), "--add %s:%s --user rewind --cwd %s --env A=0", build,
		 build, build);
	assert_string_equal(args_line(&s.tests[0]), expected);
	assert_int_equal(s.tests[0].mode, SUITE_MODE_STEPS);
	assert_string_equal(s.tests[1].name, "beta");
	assert_string_equal(command_line(&s.tests[1]), "/bin/sh -c exit 77");
	snprintf(expected, sizeof(expected),
		 "--add %s:%s --user rewind --cwd /tmp --env A=1 --env B=two=2 --skip-status 77",
		 build, build);
	assert_string_equal(args_line(&s.tests[1]), expected);
	assert_string_equal(s.tests[2].name, "with_space_and_colon");
	snprintf(expected, sizeof(expected), "%s/t x", build);
	assert_string_equal(command_line(&s.tests[2]), expected);
	snprintf(expected, sizeof(expected),
		 "--add %s:%s --user rewind --cwd %s/sub --env A=0 --skip-status 4", build, build,
		 build);
	assert_string_equal(args_line(&s.tests[2]), expected);
	suite_free(&s);
	/* not ctest's JSON */
	write_script("not_ctest", "echo '{\"kind\": \"codemodel\", \"tests\": []}'");
	assert_int_equal(suite_load(runner_suite("notctest.json",
						 "{\"kind\": \"ctest\", \"build_dir\": \"build\","
						 " \"ctest\": \"./not_ctest\"}"),
				    &s),
			 -1);
	assert_int_equal(suite_load(runner_suite("nobuild.json",
						 "{\"kind\": \"ctest\", \"build_dir\": \"nope\"}"),
				    &s),
			 -1);
}

static bool have_cmake(void)
{
	return system("cmake --version > /dev/null 2>&1") == 0 &&
	       system("ctest --version > /dev/null 2>&1") == 0;
}

/* The same against a real CTest build folder, where cmake is installed. */
static void test_runner_ctest_real(void **state)
{
	static struct suite s;
	char cmd[1024], expected[1024], build[300];

	(void)state;
	if (!have_cmake()) {
		fprintf(stderr, "test_runner_ctest_real: no cmake/ctest here: skipped\n");
		skip();
	}
	snprintf(build, sizeof(build), "%s/cmake-build", dir);
	assert_int_equal(mkdir(build, 0755), 0);
	assert_int_equal(mkdir(strcat(strcpy(cmd, dir), "/cmake-src"), 0755), 0);
	write_file("cmake-src/CMakeLists.txt",
		   "cmake_minimum_required(VERSION 3.19)\n"
		   "project(t NONE)\n"
		   "enable_testing()\n"
		   "add_test(NAME alpha COMMAND /bin/true --x \"a b\")\n"
		   "add_test(NAME beta COMMAND /bin/sh -c \"exit 77\")\n"
		   "set_tests_properties(beta PROPERTIES SKIP_RETURN_CODE 77 WORKING_DIRECTORY /tmp"
		   " ENVIRONMENT \"A=1;B=two=2\")\n"
		   "add_test(NAME gamma COMMAND /bin/false)\n"
		   "set_tests_properties(gamma PROPERTIES DISABLED TRUE)\n"
		   "add_test(NAME \"delta with space\" COMMAND /bin/echo hi)\n"
		   "add_test(NAME inverted COMMAND /bin/true)\n"
		   "set_tests_properties(inverted PROPERTIES WILL_FAIL TRUE)\n"
		   "add_test(NAME release_only COMMAND /bin/true CONFIGURATIONS Release)\n");
	snprintf(cmd, sizeof(cmd), "cmake -S %s/cmake-src -B %s > %s/cmake.log 2>&1", dir, build,
		 dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(
		suite_load(runner_suite("real.json", "{\"kind\": \"ctest\", \"build_dir\": "
						     "\"cmake-build\"}"),
			   &s),
		0);
	assert_int_equal(s.count, 3);
	assert_string_equal(s.tests[0].name, "alpha");
	assert_string_equal(command_line(&s.tests[0]), "/bin/true --x a b");
	/* the folder holds CMake's own files only: nothing of it goes into the guest */
	snprintf(expected, sizeof(expected), "--cwd %s", build);
	assert_string_equal(args_line(&s.tests[0]), expected);
	assert_string_equal(s.tests[1].name, "beta");
	assert_string_equal(args_line(&s.tests[1]),
			    "--cwd /tmp --env A=1 --env B=two=2 --skip-status 77");
	assert_string_equal(s.tests[2].name, "delta_with_space");
	assert_string_equal(command_line(&s.tests[2]), "/bin/echo hi");
	suite_free(&s);
}

/* Makes the parent folders of a file in the test folder, then the file. */
static void write_in_tree(const char *name, const char *text)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (char *slash = strchr(path + strlen(dir) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = 0;
		mkdir(path, 0755);
		*slash = '/';
	}
	write_file(name, text);
}

/*
 * A CTest test gets its part of the build folder: not CMake's own files,
 * objects or archives, nor the other tests' programs; a folder it keeps
 * whole is one --add.
 */
static void test_runner_ctest_takes_its_part_of_the_build_folder(void **state)
{
	static const char *const tree[] = {"parts/CMakeCache.txt",
					   "parts/Makefile",
					   "parts/CMakeFiles/x.dir/a.c.o",
					   "parts/lib/libx.a",
					   "parts/lib/libx.so.1",
					   "parts/bin/t_alpha",
					   "parts/bin/t_beta",
					   "parts/bin/helper",
					   "parts/data/in.txt",
					   "parts/data/more/b.txt",
					   "parts/tests/Makefile",
					   "parts/tests/cmake_install.cmake",
					   "parts/tests/CTestTestfile.cmake",
					   "parts/tests/CMakeFiles/y.o"};
	static struct suite s;
	char script[2048], build[200], expected[4096];

	(void)state;
	for (size_t i = 0; i < sizeof(tree) / sizeof(tree[0]); i++)
		write_in_tree(tree[i], "x");
	snprintf(build, sizeof(build), "%s/parts", dir);
	snprintf(
		script, sizeof(script),
		"cat <<'END'\n{\"kind\": \"ctestInfo\", \"version\": {\"major\": 1}, \"tests\": [\n"
		" {\"name\": \"alpha\", \"command\": [\"%s/bin/t_alpha\"], \"properties\": []},\n"
		" {\"name\": \"beta\", \"command\": [\"/bin/sh\", \"-c\", \"x\", "
		"\"%s/bin/t_beta\"],"
		" \"properties\": [{\"name\": \"WORKING_DIRECTORY\", \"value\": \"%s/tests\"}]}\n"
		"]}\nEND\n",
		build, build, build);
	write_script("parts_ctest", script);
	assert_int_equal(suite_load(runner_suite("parts.json",
						 "{\"kind\": \"ctest\", \"build_dir\": \"parts\","
						 " \"ctest\": \"./parts_ctest\"}"),
				    &s),
			 0);
	assert_int_equal(s.count, 2);
	snprintf(expected, sizeof(expected),
		 "--add %s/bin/helper:%s/bin/helper --add %s/bin/t_alpha:%s/bin/t_alpha"
		 " --add %s/data:%s/data --add %s/lib/libx.so.1:%s/lib/libx.so.1",
		 build, build, build, build, build, build, build, build);
	assert_string_equal(args_line(&s.tests[0]), expected);
	snprintf(expected, sizeof(expected),
		 "--add %s/bin/helper:%s/bin/helper --add %s/bin/t_beta:%s/bin/t_beta"
		 " --add %s/data:%s/data --add %s/lib/libx.so.1:%s/lib/libx.so.1 --cwd %s/tests",
		 build, build, build, build, build, build, build, build, build);
	assert_string_equal(args_line(&s.tests[1]), expected);
	suite_free(&s);
}

static void test_runner_directory(void **state)
{
	static struct suite s;
	char tests[300], expected[1024];
	static const char *const files[] = {"b_test",  "a_test",   "data.txt",
					    ".hidden", "odd:name", "sp ace"};
	const char *path;

	(void)state;
	snprintf(tests, sizeof(tests), "%s/t", dir);
	assert_int_equal(mkdir(tests, 0755), 0);
	assert_int_equal(mkdir(strcat(strcpy(expected, tests), "/subdir"), 0755), 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "t/%s", files[i]);
		write_script(name, "exit 77");
	}
	assert_int_equal(chmod(strcat(strcpy(expected, tests), "/data.txt"), 0644), 0);
	path = write_file("dir.json",
			  "{\"format\": \"rewind-suite\", \"version\": 1, \"runner\": {"
			  "\"kind\": \"directory\", \"dir\": \"t\", \"skip_status\": 77,"
			  " \"mode\": \"plain\", \"exclude\": [\"b_*\"]}}");
	assert_int_equal(suite_load(path, &s), 0);
	assert_int_equal(s.count, 2);
	assert_string_equal(s.tests[0].name, "a_test");
	assert_string_equal(command_line(&s.tests[0]), "/tests/a_test");
	snprintf(expected, sizeof(expected), "--add %s/a_test:/tests/a_test --skip-status 77",
		 tests);
	assert_string_equal(args_line(&s.tests[0]), expected);
	assert_string_equal(s.tests[1].name, "sp_ace");
	assert_string_equal(command_line(&s.tests[1]), "/tests/sp ace");
	suite_free(&s);
	assert_int_equal(suite_load(runner_suite("nodir.json", "{\"kind\": \"directory\","
							       " \"dir\": \"none\"}"),
				    &s),
			 -1);
}

/* suite_print: a line a test; words a shell would split are quoted. */
static void test_suite_print(void **state)
{
	static struct suite s;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(suite_load(write_file("print.json",
					       "{\"format\": \"rewind-suite\", \"tests\": ["
					       "{\"name\": \"a\", \"command\": [\"/a\", \"x y\","
					       " \"it's\"], \"env\": [\"E=1 2\"]},"
					       "{\"name\": \"b\", \"command\": [\"/b\", \"\"]}]}"),
				    &s),
			 0);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	suite_print(&s, f);
	fclose(f);
	assert_string_equal(text, "a\t/a 'x y' 'it'\\''s'\t--env 'E=1 2'\nb\t/b ''\n");
	free(text);
	suite_free(&s);
}

/* A runner's list of n tests (t0, t1, ...) as a suite. */
static void load_many(size_t n, struct suite *s, int expect)
{
	char body[256];

	snprintf(body, sizeof(body), "i=0; while [ $i -lt %zu ]; do echo t$i; i=$((i + 1)); done",
		 n);
	write_script("many", body);
	assert_int_equal(
		suite_load(runner_suite("many.json", "{\"kind\": \"list\", \"list\": [\"./many\"],"
						     " \"command\": [\"/t\", \"{test}\"]}"),
			   s),
		expect);
}

static void test_suite_max_tests(void **state)
{
	static struct suite s;

	(void)state;
	load_many(SUITE_MAX_TESTS, &s, 0);
	assert_int_equal(s.count, 4096);
	assert_string_equal(s.tests[4095].name, "t4095");
	assert_string_equal(command_line(&s.tests[4095]), "/t t4095");
	suite_free(&s);
	load_many(SUITE_MAX_TESTS + 1, &s, -1);
	assert_int_equal(s.count, 0);
}

/* The bundled suite loads as it is. */
static void test_bundled_suite(void **state)
{
	static struct suite s;

	(void)state;
	assert_int_equal(suite_load("guest/tests/suite.json", &s), 0);
	assert_int_equal(s.count, 13);
	assert_string_equal(s.tests[0].name, "lost_update");
	assert_string_equal(command_line(&s.tests[0]), "/tests/lost_update");
	assert_string_equal(s.tests[12].name, "account_cxx");
	for (size_t i = 0; i < s.count; i++) {
		assert_int_equal(s.tests[i].arg_count, 0);
		assert_int_equal(s.tests[i].share, strcmp(s.tests[i].name, "reorder_many") ? 1 : 2);
		assert_int_equal(s.tests[i].mode, SUITE_MODE_PCT);
	}
	suite_free(&s);
}

/* n tests t0, t1, ... of share 1. */
static void make_suite(struct suite *s, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->tests = calloc(n, sizeof(*s->tests));
	assert_non_null(s->tests);
	s->count = s->capacity = n;
	for (size_t i = 0; i < n; i++) {
		snprintf(s->tests[i].name, sizeof(s->tests[i].name), "t%zu", i);
		s->tests[i].share = 1;
	}
}

/* The bundled suite's night as before: every test the same share, spread in turn. */
static void test_plan_few_tests(void **state)
{
	static struct suite s;
	struct plan p = {.seconds = 300, .workers = 2, .layout = LAYOUT_AUTO, .night = 7};

	(void)state;
	make_suite(&s, 13);
	plan_night(&s, &p);
	assert_int_equal(p.layout, LAYOUT_TESTS);
	assert_int_equal(p.planned, 13);
	assert_int_equal(p.first, 0);
	/* 7 tests on a worker: 300 - 70 s of fuzzing a worker, 460 s in all, 13 shares */
	for (size_t i = 0; i < s.count; i++) {
		assert_int_equal(s.tests[i].seconds, 35);
		assert_int_equal(s.tests[i].worker, (int)(i % 2));
	}
	suite_free(&s);
	/* fewer tests than workers: every worker on each test in turn */
	make_suite(&s, 1);
	p = (struct plan){.seconds = 100, .workers = 4, .layout = LAYOUT_AUTO, .night = 1};
	plan_night(&s, &p);
	assert_int_equal(p.layout, LAYOUT_INSTANCES);
	assert_int_equal(s.tests[0].seconds, 90);
	assert_int_equal(s.tests[0].worker, SUITE_WORKER_EVERY);
	suite_free(&s);
}

/* A test whose share would give it less than the minimum gets the minimum. */
static void test_plan_minimum_slice(void **state)
{
	static struct suite s;
	struct plan p = {.seconds = 3600, .workers = 1, .layout = LAYOUT_AUTO, .night = 1};

	(void)state;
	make_suite(&s, 3);
	s.tests[1].share = 1000;
	plan_night(&s, &p);
	/* 3570 s of fuzzing: 20 each for the small ones, the rest for the big one */
	assert_int_equal(s.tests[0].seconds, PLAN_MIN_FUZZ_S);
	assert_int_equal(s.tests[1].seconds, 3530);
	assert_int_equal(s.tests[2].seconds, PLAN_MIN_FUZZ_S);
	assert_int_equal(s.tests[1].worker, 0);
	suite_free(&s);
	/* a budget too small for the minimum: shared as it is */
	make_suite(&s, 2);
	p = (struct plan){.seconds = 40, .workers = 2, .layout = LAYOUT_AUTO, .night = 1};
	plan_night(&s, &p);
	assert_int_equal(p.planned, 2);
	assert_int_equal(s.tests[0].seconds, 30);
	assert_int_equal(s.tests[1].seconds, 30);
	assert_int_equal(s.tests[0].worker, 0);
	assert_int_equal(s.tests[1].worker, 1);
	suite_free(&s);
}

/* Thousands of tests: those that fit get the minimum, night by night in turn. */
static void test_plan_many_tests(void **state)
{
	static struct suite s;
	struct plan p = {.seconds = 3600, .workers = 2, .layout = LAYOUT_AUTO, .night = 1};
	size_t load[2] = {0};

	(void)state;
	make_suite(&s, 1000);
	plan_night(&s, &p);
	/* 3600 s fits 120 tests of 10 + 20 s on a worker */
	assert_int_equal(p.planned, 240);
	assert_int_equal(p.first, 0);
	for (size_t i = 0; i < s.count; i++) {
		if (i < 240) {
			assert_int_equal(s.tests[i].seconds, PLAN_MIN_FUZZ_S);
			assert_in_range(s.tests[i].worker, 0, 1);
			load[s.tests[i].worker]++;
		} else {
			assert_int_equal(s.tests[i].seconds, 0);
			assert_int_equal(s.tests[i].worker, SUITE_WORKER_NONE);
		}
	}
	assert_int_equal(load[0], 120);
	assert_int_equal(load[1], 120);
	/* night 5 goes on at test 960 and wraps */
	p = (struct plan){.seconds = 3600, .workers = 2, .layout = LAYOUT_AUTO, .night = 5};
	plan_night(&s, &p);
	assert_int_equal(p.first, 960);
	assert_int_equal(s.tests[959].worker, SUITE_WORKER_NONE);
	assert_int_not_equal(s.tests[960].worker, SUITE_WORKER_NONE);
	assert_int_not_equal(s.tests[999].worker, SUITE_WORKER_NONE);
	assert_int_not_equal(s.tests[199].worker, SUITE_WORKER_NONE);
	assert_int_equal(s.tests[200].worker, SUITE_WORKER_NONE);
	assert_int_equal(s.tests[200].seconds, 0);
	suite_free(&s);
	/* the largest suite on many workers: every test gets time */
	make_suite(&s, SUITE_MAX_TESTS);
	p = (struct plan){.seconds = 8 * 3600, .workers = 64, .layout = LAYOUT_AUTO, .night = 3};
	plan_night(&s, &p);
	assert_int_equal(p.planned, SUITE_MAX_TESTS);
	for (size_t i = 0; i < s.count; i++)
		assert_true(s.tests[i].seconds >= PLAN_MIN_FUZZ_S);
	suite_free(&s);
}

/* A late worker cuts its tests' seconds to end on time, down to PLAN_LATE_FUZZ_S. */
static void test_plan_late_worker(void **state)
{
	(void)state;
	/* on time: 10 tests, 300 s left, 10 s starts -> 30 - 10 = 20 each, as planned */
	assert_int_equal(plan_test_seconds(20, 300, 10, PLAN_STARTUP_S), 20);
	/* early: never more than planned */
	assert_int_equal(plan_test_seconds(20, 3000, 10, PLAN_STARTUP_S), 20);
	/* starts of 14 s: 30 - 14 = 16 */
	assert_int_equal(plan_test_seconds(20, 300, 10, 14.0), 16);
	/* far behind: the floor */
	assert_int_equal(plan_test_seconds(20, 100, 10, 14.0), PLAN_LATE_FUZZ_S);
	assert_int_equal(plan_test_seconds(20, -50, 3, 14.0), PLAN_LATE_FUZZ_S);
	/* a test planned below the floor keeps its seconds; no test left counts as one */
	assert_int_equal(plan_test_seconds(3, 1, 5, 14.0), 3);
	assert_int_equal(plan_test_seconds(60, 100, 0, 10.0), 60);
}

/* night.json keeps a test without time as such. */
static void test_plan_round_trip(void **state)
{
	static struct suite s, back;
	struct plan p = {.seconds = 30, .workers = 1, .layout = LAYOUT_AUTO, .night = 2};
	cJSON *json;

	(void)state;
	load_many(3, &s, 0);
	plan_night(&s, &p);
	assert_int_equal(p.planned, 1);
	assert_int_equal(p.first, 1);
	json = suite_to_json(&s);
	assert_int_equal(suite_from_json(json, &back, "night.json"), 0);
	assert_int_equal(back.tests[0].worker, SUITE_WORKER_NONE);
	assert_int_equal(back.tests[0].seconds, 0);
	assert_int_equal(back.tests[1].worker, 0);
	assert_int_equal(back.tests[2].worker, SUITE_WORKER_NONE);
	cJSON_Delete(json);
	suite_free(&s);
	suite_free(&back);
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

/* The child asks for SIGTERM at its parent's end, and notices a parent already gone. */
static void test_parent_death_signal(void **state)
{
	pid_t parent = getpid(), child;
	int status;

	(void)state;
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		int sig = 0;

		if (parent_death_signal(parent) || prctl(PR_GET_PDEATHSIG, &sig) || sig != SIGTERM)
			_exit(1);
		/* a parent that ended before the prctl: getppid() names another */
		_exit(parent_death_signal(parent + 1) == -ESRCH ? 0 : 2);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Waits up to 10 s for pid (our child, or an orphan we reap); its wait status or -1. */
static int wait_up_to_10s(pid_t pid)
{
	int status;

	for (int i = 0; i < 1000; i++) {
		pid_t got = waitpid(pid, &status, WNOHANG);

		if (got == pid)
			return status;
		if (got < 0)
			return -1;
		usleep(10 * 1000);
	}
	return -1;
}

/* Reads the pid a script wrote into dir/name, waiting up to 10 s for the file. */
static pid_t read_pid_file(const char *name)
{
	char path[256];
	long pid = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (int i = 0; i < 1000 && !pid; i++) {
		FILE *f = fopen(path, "r");

		if (f) {
			if (fscanf(f, "%ld", &pid) != 1)
				pid = 0;
			fclose(f);
		}
		if (!pid)
			usleep(10 * 1000);
	}
	return (pid_t)pid;
}

/*
 * A kill -9 of rewind explore while a runner's list command runs: the
 * command (host_command.c's child) gets SIGTERM and ends; it is not left
 * to run on its own. As the children's subreaper this test reaps the orphan
 * and sees how it ended.
 */
static void test_runner_ends_with_its_parent(void **state)
{
	char body[512], script[256];
	pid_t middle, tool;
	int status;

	(void)state;
	snprintf(body, sizeof(body),
		 "echo $$ > %s/stay.tmp && mv %s/stay.tmp %s/stay.pid\nexec sleep 60", dir, dir,
		 dir);
	write_script("stay", body);
	snprintf(script, sizeof(script), "%s/stay", dir);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	middle = fork();
	assert_true(middle >= 0);
	if (middle == 0) {
		char *argv[] = {script, NULL};
		struct host_output o;

		_exit(host_command_run(argv, dir, NULL, 120, 4096, &o) < 0 ? 1 : 0);
	}
	tool = read_pid_file("stay.pid");
	assert_true(tool > 0);
	assert_int_equal(kill(middle, SIGKILL), 0);
	status = wait_up_to_10s(middle);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	status = wait_up_to_10s(tool);
	if (status < 0 && !kill(tool, SIGKILL)) /* still running: the check failed */
		waitpid(tool, NULL, 0);		/* leave nothing behind */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
	assert_true(status >= 0 && WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suite_parsed),
		cmocka_unit_test(test_suite_round_trip),
		cmocka_unit_test(test_suite_refused),
		cmocka_unit_test(test_suite_job_keys),
		cmocka_unit_test(test_suite_top_level_defaults),
		cmocka_unit_test(test_suite_unknown_keys),
		cmocka_unit_test(test_suite_mode_words),
		cmocka_unit_test(test_suite_job_keys_refused),
		cmocka_unit_test(test_runner_list),
		cmocka_unit_test(test_runner_list_refused),
		cmocka_unit_test(test_runner_overrides),
		cmocka_unit_test(test_runner_ctest),
		cmocka_unit_test(test_runner_ctest_real),
		cmocka_unit_test(test_runner_ctest_takes_its_part_of_the_build_folder),
		cmocka_unit_test(test_runner_directory),
		cmocka_unit_test(test_suite_print),
		cmocka_unit_test(test_suite_max_tests),
		cmocka_unit_test(test_bundled_suite),
		cmocka_unit_test(test_plan_few_tests),
		cmocka_unit_test(test_plan_minimum_slice),
		cmocka_unit_test(test_plan_many_tests),
		cmocka_unit_test(test_plan_late_worker),
		cmocka_unit_test(test_plan_round_trip),
		cmocka_unit_test(test_signature_blurs_numbers),
		cmocka_unit_test(test_artifact_names),
		cmocka_unit_test(test_parent_death_signal),
		cmocka_unit_test(test_runner_ends_with_its_parent),
	};

	rw_log_init("rewind explore", false); /* as rewind explore speaks */
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}

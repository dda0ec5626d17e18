/* SPDX-License-Identifier: MIT */
/* Unit tests of the job-file parsing and command lookup of rewind-init (guest/job_file.c). */
#include "guest/job_file.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#define CAP 8

static void test_split_argv(void **state)
{
	char buf[] = "/bin/echo\0hello\0\0world"; /* sizeof includes the final NUL */
	char *argv[CAP];

	(void)state;
	assert_int_equal(job_count_strings(buf, sizeof(buf)), 4);
	assert_int_equal(job_parse_argv(buf, sizeof(buf), argv, CAP), 4);
	assert_string_equal(argv[0], "/bin/echo");
	assert_string_equal(argv[1], "hello");
	assert_string_equal(argv[2], ""); /* an empty argument is kept */
	assert_string_equal(argv[3], "world");
	assert_null(argv[4]);
}

static void test_single_string(void **state)
{
	char buf[] = "true";
	char *argv[2];

	(void)state;
	assert_int_equal(job_parse_argv(buf, sizeof(buf), argv, 2), 1);
	assert_string_equal(argv[0], "true");
	assert_null(argv[1]);
}

static void test_errors(void **state)
{
	char empty[1] = "";
	char unterminated[] = {'a', '\0', 'b'};
	char three[] = "a\0b\0c";
	char no_command[] = "\0arg";
	char *vec[CAP];

	(void)state;
	assert_int_equal(job_parse_argv(empty, 0, vec, CAP), JOB_ERR_EMPTY);
	assert_int_equal(job_parse_argv(unterminated, sizeof(unterminated), vec, CAP),
			 JOB_ERR_UNTERMINATED);
	assert_int_equal(job_count_strings(unterminated, sizeof(unterminated)), 1);
	/* three strings need four slots */
	assert_int_equal(job_split(three, sizeof(three), vec, 3), JOB_ERR_TOO_MANY);
	assert_int_equal(job_split(three, sizeof(three), vec, 4), 3);
	assert_int_equal(job_parse_argv(no_command, sizeof(no_command), vec, CAP),
			 JOB_ERR_EMPTY_COMMAND);
	assert_string_equal(job_error_text(JOB_ERR_UNTERMINATED),
			    "last string is not NUL-terminated");
}

static void test_env(void **state)
{
	char good[] = "PATH=/bin\0EMPTY=\0A=b=c";
	char no_eq[] = "PATH=/bin\0JUNK";
	char no_name[] = "=value";
	char *envp[CAP];

	(void)state;
	assert_int_equal(job_parse_env(good, sizeof(good), envp, CAP), 3);
	assert_string_equal(job_getenv(envp, "PATH"), "/bin");
	assert_string_equal(job_getenv(envp, "EMPTY"), "");
	assert_string_equal(job_getenv(envp, "A"), "b=c");
	assert_null(job_getenv(envp, "PAT"));
	assert_null(job_getenv(envp, "HOME"));
	assert_int_equal(job_parse_env(no_eq, sizeof(no_eq), envp, CAP), JOB_ERR_BAD_ENV);
	assert_int_equal(job_parse_env(no_name, sizeof(no_name), envp, CAP), JOB_ERR_BAD_ENV);
	envp[0] = good;
	assert_int_equal(job_parse_env(good, 0, envp, 1), 0); /* empty file: empty environment */
	assert_null(envp[0]);
	assert_null(job_getenv(envp, "PATH"));
}

/* A fake file system: ctx is a NULL-terminated list of executable paths; records the probes. */
struct fake_fs {
	const char *const *executables;
	char probes[256];
};

static bool fake_is_exec(const char *path, void *ctx)
{
	struct fake_fs *fs = ctx;

	strcat(fs->probes, path);
	strcat(fs->probes, " ");
	for (const char *const *e = fs->executables; *e; e++)
		if (strcmp(*e, path) == 0)
			return true;
	return false;
}

static void test_resolve_path_search(void **state)
{
	static const char *const files[] = {"/usr/bin/tool", "/bin/tool", "./local", NULL};
	struct fake_fs fs = {.executables = files};
	char out[64];

	(void)state;
	assert_int_equal(job_resolve_command("tool", "/sbin:/usr/bin:/bin", fake_is_exec, &fs, out,
					     sizeof(out)),
			 0);
	assert_string_equal(out, "/usr/bin/tool"); /* the first match wins */
	assert_string_equal(fs.probes, "/sbin/tool /usr/bin/tool ");

	fs.probes[0] = '\0';
	assert_int_equal(
		job_resolve_command("local", "/bin::/usr/bin", fake_is_exec, &fs, out, sizeof(out)),
		0);
	assert_string_equal(out, "./local"); /* an empty entry is the current directory */
	assert_string_equal(fs.probes, "/bin/local ./local ");

	fs.probes[0] = '\0';
	assert_int_equal(job_resolve_command("missing", "/bin:/usr/bin", fake_is_exec, &fs, out,
					     sizeof(out)),
			 JOB_ERR_NOT_FOUND);
	assert_string_equal(fs.probes, "/bin/missing /usr/bin/missing ");
}

static void test_resolve_slash_and_limits(void **state)
{
	static const char *const files[] = {"/bin/tool", "sub/prog", NULL};
	struct fake_fs fs = {.executables = files};
	char out[64], tiny[8];

	(void)state;
	/* a name with '/' is never searched in PATH */
	assert_int_equal(
		job_resolve_command("sub/prog", "/bin", fake_is_exec, &fs, out, sizeof(out)), 0);
	assert_string_equal(out, "sub/prog");
	assert_int_equal(
		job_resolve_command("/usr/bin/tool", "/bin", fake_is_exec, &fs, out, sizeof(out)),
		JOB_ERR_NOT_FOUND);
	assert_string_equal(fs.probes, "sub/prog /usr/bin/tool ");
	assert_int_equal(job_resolve_command("", "/bin", fake_is_exec, &fs, out, sizeof(out)),
			 JOB_ERR_EMPTY_COMMAND);
	/* "/bin/tool" needs 10 bytes: too long for tiny, never probed */
	fs.probes[0] = '\0';
	assert_int_equal(job_resolve_command("tool", "/bin", fake_is_exec, &fs, tiny, sizeof(tiny)),
			 JOB_ERR_TOO_LONG);
	assert_string_equal(fs.probes, "");
	assert_int_equal(
		job_resolve_command("/bin/tool", "", fake_is_exec, &fs, tiny, sizeof(tiny)),
		JOB_ERR_TOO_LONG);
	/* a fitting later entry still wins over a too-long earlier one */
	assert_int_equal(job_resolve_command("tool", "/a/b/c/d:/bin", fake_is_exec, &fs, out, 10),
			 0);
	assert_string_equal(out, "/bin/tool");
}

static void test_setup(void **state)
{
	char buf[] = "user=rewind\0cwd=/home/rewind/src\0env=A=1\0own=/work\0env=B=\0";
	char bad_key[] = "shell=/bin/sh";
	char bad_cwd[] = "cwd=relative";
	char bad_env[] = "env==1";
	char unterminated[] = {'u', 's', 'e', 'r', '=', 'x'};
	struct job_setup setup;

	(void)state;
	assert_int_equal(job_parse_setup(buf, sizeof(buf) - 1, &setup), 0);
	assert_string_equal(setup.user, "rewind");
	assert_string_equal(setup.cwd, "/home/rewind/src");
	assert_int_equal(setup.env_count, 2);
	assert_string_equal(setup.env[0], "A=1");
	assert_string_equal(setup.env[1], "B=");
	assert_int_equal(setup.own_count, 1);
	assert_string_equal(setup.own[0], "/work");
	assert_int_equal(job_parse_setup(buf, 0, &setup), 0); /* empty: root, "/" */
	assert_null(setup.user);
	assert_null(setup.cwd);
	assert_int_equal(job_parse_setup(bad_key, sizeof(bad_key), &setup), JOB_ERR_BAD_SETUP);
	assert_int_equal(job_parse_setup(bad_cwd, sizeof(bad_cwd), &setup), JOB_ERR_BAD_SETUP);
	assert_int_equal(job_parse_setup(bad_env, sizeof(bad_env), &setup), JOB_ERR_BAD_SETUP);
	assert_int_equal(job_parse_setup(unterminated, sizeof(unterminated), &setup),
			 JOB_ERR_UNTERMINATED);
}

static const char passwd[] = "root:x:0:0:root:/root:/bin/sh\n"
			     "broken line\n"
			     "rewind:x:1000:1000:Rewind job:/home/rewind:/bin/sh\n"
			     "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin";

static void test_find_user(void **state)
{
	struct job_user u;

	(void)state;
	assert_int_equal(job_find_user(passwd, strlen(passwd), "rewind", &u), 0);
	assert_int_equal(u.uid, 1000);
	assert_int_equal(u.gid, 1000);
	assert_string_equal(u.home, "/home/rewind");
	assert_int_equal(job_find_user(passwd, strlen(passwd), "nobody", &u), 0);
	assert_int_equal(u.uid, 65534);
	assert_string_equal(u.home, "/nonexistent"); /* the last line has no newline */
	assert_int_equal(job_find_user(passwd, strlen(passwd), "1000", &u), 0);
	assert_string_equal(u.name, "rewind");
	assert_int_equal(job_find_user(passwd, strlen(passwd), "1000:5", &u), 0);
	assert_int_equal(u.gid, 5);
	assert_string_equal(u.home, "/home/rewind");
	assert_int_equal(job_find_user(passwd, strlen(passwd), "4242", &u), 0);
	assert_int_equal(u.uid, 4242);
	assert_int_equal(u.gid, 4242);
	assert_string_equal(u.name, "");
	assert_string_equal(u.home, "/");
	assert_int_equal(job_find_user(NULL, 0, "7:8", &u), 0);
	assert_int_equal(u.gid, 8);
	assert_int_equal(job_find_user(passwd, strlen(passwd), "alice", &u), JOB_ERR_BAD_USER);
	assert_int_equal(job_find_user(passwd, strlen(passwd), "broken line", &u),
			 JOB_ERR_BAD_USER);
	assert_int_equal(job_find_user(passwd, strlen(passwd), "1:x", &u), JOB_ERR_BAD_USER);
	assert_int_equal(job_find_user(passwd, strlen(passwd), "4294967295", &u),
			 JOB_ERR_BAD_USER); /* (uid_t)-1 */
	assert_int_equal(job_find_user(NULL, 0, "rewind", &u), JOB_ERR_BAD_USER);
}

static void test_env_set(void **state)
{
	char path[] = "PATH=/bin", home[] = "HOME=/", user_home[] = "HOME=/home/rewind";
	char path2[] = "PATHS=x", bad[] = "=x";
	char *envp[4] = {path, home, NULL, NULL};

	(void)state;
	assert_int_equal(job_env_set(envp, 4, user_home), 0);
	assert_string_equal(envp[1], "HOME=/home/rewind");
	assert_null(envp[2]);
	assert_int_equal(job_env_set(envp, 4, path2), 0); /* PATHS is not PATH */
	assert_string_equal(envp[0], "PATH=/bin");
	assert_string_equal(envp[2], "PATHS=x");
	assert_null(envp[3]);
	assert_int_equal(job_env_set(envp, 4, bad), JOB_ERR_BAD_ENV);
	envp[3] = NULL;
	assert_int_equal(job_env_set(envp, 3, path2), 0); /* replacing needs no room */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_argv),
		cmocka_unit_test(test_single_string),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_resolve_path_search),
		cmocka_unit_test(test_resolve_slash_and_limits),
		cmocka_unit_test(test_setup),
		cmocka_unit_test(test_find_user),
		cmocka_unit_test(test_env_set),
	};

	return cmocka_run_group_tests_name("job_file", tests, NULL, NULL);
}

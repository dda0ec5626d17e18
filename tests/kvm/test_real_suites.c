/* SPDX-License-Identifier: MIT */
/*
 * What a real project's test suite needs of the guest, end to end with
 * `rewind run` (natively or inside the box): sockets over the loopback
 * (TCP and UDP over IPv4 and IPv6, Unix-domain sockets), names, clocks
 * that move while a program polls them, a job that is not root, its
 * environment and working directory, files and directories added anywhere
 * (/tmp too), and dynamically linked programs. Every run stays a pure
 * function of its inputs: 20 runs from a keyframe and a fresh boot give
 * one trace.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define DIR	 "build/test-runs/real-suites"
#define ERR_FILE DIR "/stderr.txt"
#define HARNESS	 "build/tests/rewind-harness-asan"
#define REWIND	 "build/tests/rewind-asan"
#include "tests/kvm/shell.h"

/* The trace hash of the last summary line "rewind: run ... trace HASH", or "". */
static const char *trace_of(const struct run *r, char *out, size_t len)
{
	const char *line = NULL, *at;

	for (const char *p = r->err; (p = strstr(p, "rewind: run ")); p++)
		line = p;
	at = line ? strstr(line, " trace ") : NULL;
	snprintf(out, len, "%.16s", at ? at + 7 : "");
	return out;
}

static void expect_status(const struct run *r, int status, const char *said)
{
	if (r->status != status || (said && !strstr(r->out, said) && !strstr(r->err, said)))
		fail_msg("expected status %d and \"%s\", got %d\nstdout:\n%s\nstderr:\n%s", status,
			 said ? said : "", r->status, r->out, r->err);
}

/*
 * `rewind run` of a command twice: booted, and restored from a keyframe
 * 21 times (--repeat 20 checks every trace is the same); the two runs
 * print the same and end with the same trace.
 */
static void expect_deterministic(const char *args, const char *said)
{
	struct run *booted = new_run(), *restored = new_run();
	char cmd[1024], a[17], b[17], twice[sizeof(booted->out) * 2];

	snprintf(cmd, sizeof(cmd), REWIND " run --out " DIR "/boot %s", args);
	sh(cmd, booted);
	expect_status(booted, 0, said);
	snprintf(cmd, sizeof(cmd),
		 "rm -f " DIR "/kf && " REWIND " run --out " DIR "/kf-run --keyframe " DIR
		 "/kf %s && " REWIND " run --out " DIR "/kf-run --keyframe " DIR
		 "/kf --repeat 20 %s",
		 args, args);
	sh(cmd, restored);
	expect_status(restored, 0, "20 repeats from the keyframe, identical traces");
	/* the run that writes the keyframe and the one restored from it print the same */
	snprintf(twice, sizeof(twice), "%s%s", booted->out, booted->out);
	assert_string_equal(restored->out, twice);
	assert_string_equal(trace_of(booted, a, sizeof(a)), trace_of(restored, b, sizeof(b)));
	assert_int_not_equal(a[0], '\0');
}

/* A client and an echo server over each kind of socket: the same run every time. */
static void test_loopback_sockets_are_deterministic(void **state)
{
	static const char *const modes[] = {"tcp",  "tcp6",	  "udp",
					    "unix", "unix-dgram", "socketpair"};
	char args[128], said[128];

	(void)state;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		snprintf(args, sizeof(args), "-- /bin/net_echo %s", modes[i]);
		snprintf(said, sizeof(said), "net_echo %s: 32 rounds, 32890 bytes echoed",
			 modes[i]);
		expect_deterministic(args, said);
	}
}

/* The ephemeral port comes from the kernel RNG: the seed decides it. */
static void test_the_seed_picks_the_ports(void **state)
{
	struct run *a = new_run(), *b = new_run();

	(void)state;
	sh(REWIND " run --out " DIR "/run --seed 0 -- /bin/net_echo tcp", a);
	sh(REWIND " run --out " DIR "/run --seed 1 -- /bin/net_echo tcp", b);
	expect_status(a, 0, "server port ");
	expect_status(b, 0, "server port ");
	assert_string_not_equal(strstr(a->out, "server port "), strstr(b->out, "server port "));
}

/* There is no outside: a connection fails at once; localhost and the host name resolve. */
static void test_outside_fails_and_names_resolve(void **state)
{
	struct run *r = new_run();

	(void)state;
	sh(REWIND " run --out " DIR "/run -- /bin/net_echo outside", r);
	expect_status(r, 0, "connect to 192.0.2.1:80: Network unreachable");
	sh(REWIND " run --out " DIR "/run -- /bin/net_echo names", r);
	expect_status(r, 0, "net_echo names: host name rewind");
	assert_non_null(strstr(r->out, "localhost -> 127.0.0.1"));
	assert_non_null(strstr(r->out, "localhost -> ::1"));
	assert_non_null(strstr(r->out, "rewind -> 127.0.1.1"));
}

/*
 * Busy-waits on every clock end: each read moves virtual time on. The
 * number of reads a wait takes is a pure function of the run (the runs are
 * compared); for a fine clock it is the wait over the read's 1 us. The
 * coarse clock's count also depends on where in a tick the wait starts,
 * which moves with anything before it (init's work), so only its line is
 * asked for.
 */
static void test_clock_polling_loops_finish(void **state)
{
	struct run *r = new_run();

	(void)state;
	expect_deterministic("-- /bin/clock_wait 20",
			     "clock_wait: 20 ms of CLOCK_MONOTONIC took 19900 reads\n"
			     "clock_wait: 20 ms of CLOCK_MONOTONIC_COARSE took ");
	sh(REWIND " run --out " DIR "/run -- /bin/clock_wait 20", r);
	expect_status(r, 0,
		      "clock_wait: 20 ms of CLOCK_REALTIME took 19900 reads\n"
		      "clock_wait: 20 ms of gettimeofday took 19900 reads\n"
		      "clock_wait: 20 ms of RDTSC took 19900 reads\n");
}

/* The job as another user: its own files, home, working directory and environment. */
static void test_a_job_that_is_not_root(void **state)
{
	struct run *r = new_run();

	(void)state;
	sh(REWIND " run --out " DIR "/run --user rewind -- /bin/id", r);
	expect_status(r, 0, "uid=1000(rewind) gid=1000(rewind) groups=1000(rewind)");
	assert_non_null(strstr(r->out, "cwd=/ home=/home/rewind writable=no"));
	sh(REWIND " run --out " DIR "/run --user rewind --cwd /home/rewind/src/build -- /bin/id",
	   r);
	expect_status(r, 0, "cwd=/home/rewind/src/build home=/home/rewind writable=yes");
	sh(REWIND " run --out " DIR "/run --user 4242:100 --env HOME=/tmp --env X=1 -- /bin/env",
	   r);
	expect_status(r, 0, "PATH=/bin:/usr/bin\nHOME=/tmp\nTERM=dumb\nX=1\n");
	sh(REWIND " run --out " DIR "/run -- /bin/env", r); /* root: the defaults, unchanged */
	expect_status(r, 0, "PATH=/bin:/usr/bin\nHOME=/\nTERM=dumb\n");
	assert_null(strstr(r->out, "USER="));
	sh(REWIND " run --out " DIR "/run --user alice -- /bin/id", r);
	expect_status(r, 1, "rewind-init: user alice: no such user");
	expect_status(r, 1, " exited status 127 steps "); /* the job's own status */
}

/* A file added under /tmp is there (no tmpfs hides it), and /tmp is writable by all. */
static void test_files_added_under_tmp_are_seen(void **state)
{
	struct run *r = new_run();

	(void)state;
	sh("printf 'fixture data\\n' >" DIR "/data.txt && " REWIND " run --out " DIR
	   "/run --add " DIR "/data.txt:/tmp/data.txt -- /bin/cat /tmp/data.txt",
	   r);
	expect_status(r, 0, "fixture data");
}

/*
 * A whole directory, with a nested file and a link, belongs to the job's
 * user; guest paths the guest hides or needs are refused with the reason.
 */
static void test_directories_are_added_and_hidden_paths_refused(void **state)
{
	struct run *r = new_run();

	(void)state;
	sh("rm -rf " DIR "/tree && mkdir -p " DIR "/tree/fixtures/deep && printf 'deep\\n' >" DIR
	   "/tree/fixtures/deep/f.txt && ln -s fixtures/deep/f.txt " DIR "/tree/link && " REWIND
	   " run --out " DIR "/run --add " DIR "/tree:/work --user rewind --cwd /work -- /bin/cat "
	   "fixtures/deep/f.txt link",
	   r);
	expect_status(r, 0, "deep\ndeep\n");
	sh(REWIND " run --out " DIR "/run --add " DIR "/tree:/work --user rewind --cwd /work -- "
		  "/bin/id",
	   r);
	expect_status(r, 0, "cwd=/work home=/home/rewind writable=yes");
	sh(REWIND " run --out " DIR "/run --add " DIR "/data.txt:/proc/x -- /bin/true", r);
	expect_status(r, 2, "cannot put anything at /proc/x in the guest: the guest mounts proc");
	sh(REWIND " run --out " DIR "/run --add " DIR "/data.txt:/a/../init -- /bin/true", r);
	expect_status(r, 2, "may not climb with \"..\"");
	sh(REWIND " run --out " DIR "/run --add " DIR "/data.txt:/rewind/job -- /bin/true", r);
	expect_status(r, 2, "it holds the job's own files");
	sh(REWIND " run --out " DIR "/run --cwd /proc -- /bin/true", r);
	expect_status(r, 2, "--cwd /proc: the working directory must be");
}

/*
 * Programs linked dynamically, as a project's build system makes them (gcc
 * with glibc, musl-gcc without -static, a program with its own library
 * found by RUNPATH): --add brings the loader and the libraries, and the
 * runs are as deterministic as a static program's.
 */
static void test_dynamic_programs_run_as_they_are(void **state)
{
	static const char program[] =
		"#include <pthread.h>\n#include <pwd.h>\n#include <stdio.h>\n#include <unistd.h>\n"
		"int greet(const char *who);\n"
		"static void *run(void *who) { greet(who); return NULL; }\n"
		"int main(void) { pthread_t t; struct passwd *pw = getpwuid(getuid());\n"
		"  pthread_create(&t, NULL, run, pw ? pw->pw_name : \"?\");\n"
		"  return pthread_join(t, NULL); }\n";
	static const char library[] =
		"#include <stdio.h>\n"
		"int greet(const char *who) { return printf(\"hello, %s, from "
		"a shared library\\n\", who); }\n";
	struct run *r = new_run();
	char cmd[2048];

	(void)state;
	snprintf(
		cmd, sizeof(cmd),
		"rm -rf " DIR "/dyn && mkdir -p " DIR "/dyn/lib " DIR "/dyn/bin && cd " DIR
		"/dyn && "
		"printf '%%s' '%s' >main.c && printf '%%s' '%s' >greet.c && "
		"gcc -shared -fPIC -Wl,-soname,libgreet.so.1 -o lib/libgreet.so.1 greet.c && "
		"gcc -o bin/glibc main.c lib/libgreet.so.1 -pthread -Wl,-rpath,'$ORIGIN/../lib' && "
		"musl-gcc -shared -fPIC -Wl,-soname,libmgreet.so.1 -o lib/libmgreet.so.1 greet.c "
		"&& "
		"musl-gcc -o musl main.c lib/libmgreet.so.1 -Wl,-rpath,$PWD/lib && "
		"cp lib/libmgreet.so.1 libgone.so.1 && "
		"musl-gcc -o gone main.c libgone.so.1 -Wl,-rpath,$PWD/gone && rm libgone.so.1",
		program, library);
	sh(cmd, r);
	expect_status(r, 0, NULL);
	/* glibc: the loader, libc, and the program's own library by $ORIGIN/../lib */
	expect_deterministic("--add " DIR "/dyn/bin/glibc:/app/bin/glibc --add " DIR
			     "/dyn/lib/libgreet.so.1:/app/lib/libgreet.so.1 --user rewind -- "
			     "/app/bin/glibc",
			     "hello, rewind, from a shared library");
	/* musl: its library from the build tree by the absolute RUNPATH, as CMake links */
	expect_deterministic("--add " DIR "/dyn/musl -- /bin/musl",
			     "hello, root, from a shared library");
	/* a library that is nowhere: a setup error that names it */
	sh(REWIND " run --out " DIR "/run --add " DIR "/dyn/gone -- /bin/gone", r);
	expect_status(r, 2, "cannot find libmgreet.so.1, needed by " DIR "/dyn/gone");
	/* a program that came in a base image of the user's, without its loader: explained */
	sh("build/bin/rewind-mkinitramfs -o " DIR "/dyn.cpio --file "
	   "build/guest/bin/rewind-init:init:0755 --file " DIR "/dyn/bin/glibc:bin/glibc:0755 "
	   "--dir proc --dir sys --dir dev --dir tmp --dir run --dir rewind && " REWIND
	   " run --out " DIR "/run --initramfs " DIR "/dyn.cpio -- /bin/glibc",
	   r);
	expect_status(r, 1, " exited status 127 steps ");
	expect_status(
		r, 1,
		"rewind run: error: the job's command /bin/glibc is dynamically linked: it asks "
		"for /lib64/ld-linux-x86-64.so.2, which the guest does not have; add the "
		"program with --add");
}

/*
 * A crash bundle of a job that adds a directory (with a link) and a
 * dynamically linked program carries the job's whole archive: it replays
 * identically elsewhere after the program, its tree and the artifact are
 * gone; a replay that changes the job builds it again from the bundle's files.
 */
static void test_a_bundle_carries_trees_and_libraries(void **state)
{
	static const char program[] = "#include <stdio.h>\n#include <stdlib.h>\n"
				      "int main(void) { char line[64]; FILE *f = fopen(\"conf/"
				      "limit\", \"r\");\n"
				      "  if (!f || !fgets(line, sizeof(line), f)) return 2;\n"
				      "  fprintf(stderr, \"limit %s\", line); return atoi(line) > "
				      "3 ? 3 : 0; }\n";
	struct run *r = new_run();
	char cmd[2048];

	(void)state;
	snprintf(cmd, sizeof(cmd),
		 "rm -rf " DIR "/bun " DIR "/bun-moved && mkdir -p " DIR "/bun/tree/etc && cd " DIR
		 "/bun && "
		 "printf '%%s' '%s' >limit.c && gcc -o limit limit.c && printf '7\n' "
		 ">tree/etc/limit && ln -s etc tree/conf && printf "
		 "'{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"steps\","
		 "\"seed\":\"0x0\",\"injections\":[]}' >in.json && ../../../../" HARNESS
		 " --from-json in.json -o in && cd ../../../.. && " HARNESS " --artifacts " DIR
		 "/bun/art --add " DIR "/bun/limit:/app/limit --add " DIR
		 "/bun/tree:/app --user rewind --cwd /app " DIR "/bun/in -- /app/limit; ls " DIR
		 "/bun/art/exit-*.json",
		 program);
	sh(cmd, r);
	assert_non_null(strstr(r->out, DIR "/bun/art/exit-"));
	sh("a=$(ls " DIR "/bun/art/exit-*.json) && " HARNESS " --bundle \"$a\" --trust -o " DIR
	   "/bun/bundle && mv " DIR "/bun/bundle " DIR "/bun-moved && rm -rf " DIR
	   "/bun && " HARNESS " --replay " DIR "/bun-moved",
	   r);
	/* the job exits 3: the failure reproduces (1) */
	expect_status(r, 1, "replay identical (outcome, step and trace as in the artifact");
	assert_non_null(strstr(r->out, "limit 7"));
	/* a fix changes the job: built again from the bundle's files, which lack the tree */
	sh(HARNESS " --replay " DIR
		   "/bun-moved --add build/guest/bin/true:/app/true --expect-fixed",
	   r);
	expect_status(r, 2, "a directory is carried whole only in its job.cpio");
	sh("rm -rf " DIR "/bun-moved", r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loopback_sockets_are_deterministic),
		cmocka_unit_test(test_the_seed_picks_the_ports),
		cmocka_unit_test(test_outside_fails_and_names_resolve),
		cmocka_unit_test(test_clock_polling_loops_finish),
		cmocka_unit_test(test_a_job_that_is_not_root),
		cmocka_unit_test(test_files_added_under_tmp_are_seen),
		cmocka_unit_test(test_directories_are_added_and_hidden_paths_refused),
		cmocka_unit_test(test_dynamic_programs_run_as_they_are),
		cmocka_unit_test(test_a_bundle_carries_trees_and_libraries),
	};

	return cmocka_run_group_tests_name("real_suites", tests, NULL, NULL);
}

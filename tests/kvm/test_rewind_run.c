/* SPDX-License-Identifier: MIT */
/*
 * End-to-end tests of `rewind run`: the patched guest kernel on real KVM
 * (natively or inside the box). A run must be a pure function of its inputs:
 * same output, steps and trace hash every time; each failure mode must end
 * in its own outcome, never a hang or a broken VMM.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>
#include <xxhash.h>

#include "tests/kvm/command_output.h"
#include "vmm/keyframe_file.h"
#include "vmm/vcpu_state.h"

#define REWIND	  "build/tests/rewind-asan"
#define OUT_BYTES (64 * 1024)
#define ERR_FILE  "build/test-runs/stderr.txt"

struct run {
	int status;
	char out[OUT_BYTES]; /* the guest's output (stdout of rewind) */
	size_t len;
	char err[8192]; /* rewind's stderr, ending with the summary line */
	char run_id[17], outcome[32], trace[17];
	unsigned long long steps;
	double virtual_s, wall_s;
};

static void parse_summary(struct run *r)
{
	const char *line = strstr(r->err, "rewind: run ");
	const char *steps;

	r->run_id[0] = r->outcome[0] = r->trace[0] = '\0';
	if (!line)
		return;
	sscanf(line, "rewind: run %16s %31s", r->run_id, r->outcome);
	steps = strstr(line, " steps ");
	if (steps)
		sscanf(steps, " steps %llu virtual %lfs wall %lfs trace %16s", &r->steps,
		       &r->virtual_s, &r->wall_s, r->trace);
}

/* Runs a shell command (its stderr must go to ERR_FILE) and captures everything. */
static void capture(const char *cmd, struct run *r)
{
	r->len = command_output(cmd, r->out, sizeof(r->out), &r->status);
	file_text(ERR_FILE, r->err, sizeof(r->err));
}

/* Runs `rewind run ARGS` (a shell fragment) and captures everything. */
static void rewind_run(const char *args, struct run *r)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd),
		 "mkdir -p build/test-runs && %s run --out build/test-runs/last %s 2>%s", REWIND,
		 args, ERR_FILE);
	capture(cmd, r);
	parse_summary(r);
}

/* Runs a shell command line as a user types it and captures everything. */
static void shell(const char *cmdline, struct run *r)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "mkdir -p build/test-runs && (%s) 2>%s", cmdline, ERR_FILE);
	capture(cmd, r);
}

static void expect(const struct run *r, int status, const char *outcome)
{
	if (r->status != status || strcmp(r->outcome, outcome) != 0)
		fail_msg("expected status %d outcome %s, got %d %s\nstdout:\n%s\nstderr:\n%s",
			 status, outcome, r->status, r->outcome, r->out, r->err);
}

static void assert_same_run(const struct run *a, const struct run *b)
{
	assert_string_equal(a->out, b->out);
	assert_string_equal(a->run_id, b->run_id);
	assert_string_equal(a->trace, b->trace);
	assert_int_equal(a->steps, b->steps);
	assert_true(a->virtual_s == b->virtual_s);
}

/* Runs are big; a failed assertion leaves a test early, so they are static. */
static struct run *new_run(void)
{
	static struct run runs[4];
	static unsigned int next;

	return memset(&runs[next++ % 4], 0, sizeof(runs[0]));
}

static void test_hello_is_identical_twice(void **state)
{
	struct run *a = new_run(), *b = new_run();

	(void)state;
	rewind_run("-- /bin/hello", a);
	expect(a, 0, "exited");
	rewind_run("-- /bin/hello", b);
	assert_same_run(a, b);
	print_message("hello: %s steps %llu virtual %.6fs wall %.3fs\n%s", a->run_id, a->steps,
		      a->virtual_s, a->wall_s, a->out);
}

/* Keeps every host CPU busy while it lives. */
static pid_t start_cpu_load(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		setpgid(0, 0); /* one group, killed at once */
		for (long i = 1; i < n; i++) {
			if (fork() == 0)
				break;
		}
		for (volatile unsigned long x = 0;; x++)
			;
	}
	return pid;
}

static void test_adversarial_is_identical_20_times_under_load(void **state)
{
	struct run *first = new_run(), *r = new_run();
	pid_t load = 0;

	(void)state;
	rewind_run("-- /bin/adversarial", first);
	expect(first, 0, "exited");
	for (int i = 1; i < 20; i++) {
		if (i == 10)
			load = start_cpu_load();
		rewind_run("-- /bin/adversarial", r);
		assert_same_run(first, r);
	}
	kill(-load, SIGKILL);
	waitpid(load, NULL, 0);
	print_message("adversarial: 20 identical runs, steps %llu trace %s\n", first->steps,
		      first->trace);
}

static void test_seed_changes_randomness_and_run_id(void **state)
{
	struct run *a = new_run(), *b = new_run(), *c = new_run();

	(void)state;
	rewind_run("--seed 1 -- /bin/hello", a);
	rewind_run("--seed 2 -- /bin/hello", b);
	rewind_run("--seed 1 -- /bin/hello", c);
	expect(a, 0, "exited");
	expect(b, 0, "exited");
	assert_string_not_equal(a->run_id, b->run_id);
	assert_string_not_equal(a->out, b->out);
	assert_same_run(a, c);
}

static void test_sleep_costs_a_few_steps(void **state)
{
	struct run *t = new_run(), *s = new_run();

	(void)state;
	rewind_run("-- /bin/true", t);
	rewind_run("-- /bin/sleep 10", s);
	expect(t, 0, "exited");
	expect(s, 0, "exited");
	assert_true(s->virtual_s - t->virtual_s >= 10.0);
	/* Deterministic, whatever the machine's load: the idle guest jumps to its
	 * timer, so ten virtual seconds cost a few exits, not ten seconds of them
	 * (wall times are printed only; bench/ measures them). */
	assert_true(s->steps - t->steps < 64);
	print_message("sleep 10: %llu steps vs %llu for true; %.3fs wall vs %.3fs\n", s->steps,
		      t->steps, s->wall_s, t->wall_s);
}

/*
 * Every failure exits 1 (docs/exit-status.md); the summary line's outcome
 * word, and for a job that exited its own status, tell them apart.
 */
static void test_failures_have_their_own_outcome(void **state)
{
	struct run *r = new_run();

	(void)state;
	rewind_run("-- /bin/false", r);
	expect(r, 1, "exited");
	assert_non_null(strstr(r->err, " exited status 1 steps "));
	rewind_run("-- /bin/panic", r);
	expect(r, 1, "panic");
	rewind_run("-- /bin/deadlock", r);
	expect(r, 1, "deadlock");
	/* a job that loops alone goes on for 30 stuck budgets, then is stuck */
	rewind_run("--stuck-ms 200 -- /bin/spin", r);
	expect(r, 1, "stuck");
	assert_non_null(strstr(r->err, "stuck in user space at RIP"));
	assert_non_null(strstr(r->err, "it computed alone"));
	rewind_run("--step-budget 5 -- /bin/true", r);
	expect(r, 1, "step-budget");
	rewind_run("-- /bin/no-such-program", r);
	expect(r, 1, "exited");
	assert_non_null(strstr(r->err, " exited status 127 steps "));
	assert_non_null(strstr(r->out, "command not found in the guest"));
}

/* A --json run's object (its stdout); fails the test if it is not one. */
static cJSON *json_of(const struct run *r)
{
	cJSON *o = cJSON_Parse(r->out);

	if (!o || !cJSON_IsObject(o))
		fail_msg("--json printed no JSON object:\nstdout:\n%s\nstderr:\n%s", r->out,
			 r->err);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "format")), "rewind-run");
	assert_int_equal(cJSON_GetObjectItem(o, "version")->valueint, 1);
	return o;
}

/*
 * A job that exits 66 and a kernel panic both exit 1; --json tells them
 * apart: outcome and job_status, with the settings the run used. The
 * job's output goes to stderr then: stdout is the object alone.
 */
static void test_json_tells_a_job_status_from_an_outcome(void **state)
{
	struct run *r = new_run(), *sh_run = new_run();
	cJSON *o, *settings;

	(void)state;
	shell("mkdir -p build/test-runs/exit66 && cd build/test-runs/exit66 && printf '%s\\n' "
	      "'#include <stdio.h>' 'int main(void) { puts(\"exiting 66\"); return 66; }' "
	      ">exit66.c && musl-gcc -static -o exit66 exit66.c",
	      sh_run);
	assert_int_equal(sh_run->status, 0);
	rewind_run("--json --add build/test-runs/exit66/exit66 -- /bin/exit66", r);
	expect(r, 1, "exited");
	assert_non_null(strstr(r->err, "exiting 66\n"));
	assert_non_null(strstr(r->err, " exited status 66 steps "));
	o = json_of(r);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "outcome")), "exited");
	assert_int_equal(cJSON_GetObjectItem(o, "job_status")->valueint, 66);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "signal")));
	assert_int_equal(cJSON_GetObjectItem(o, "exit_status")->valueint, 1);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "run_id")), r->run_id);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "trace")), r->trace);
	assert_int_equal(cJSON_GetObjectItem(o, "steps")->valuedouble, r->steps);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "run_dir")),
			    "build/test-runs/last");
	settings = cJSON_GetObjectItem(o, "settings");
	assert_int_equal(cJSON_GetObjectItem(settings, "mem_bytes")->valuedouble, 256 << 20);
	assert_int_equal(cJSON_GetObjectItem(settings, "step_budget")->valuedouble, 1000000);
	assert_int_equal(cJSON_GetObjectItem(settings, "stuck_ms")->valuedouble, 10000);
	assert_int_equal(cJSON_GetObjectItem(settings, "seed")->valuedouble, 0);
	cJSON_Delete(o);

	rewind_run("--json -- /bin/panic", r);
	expect(r, 1, "panic");
	o = json_of(r);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "outcome")), "panic");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "job_status")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "signal")));
	assert_int_equal(cJSON_GetObjectItem(o, "exit_status")->valueint, 1);
	cJSON_Delete(o);
	print_message("%s", r->out);
}

/* A guest that floods its output ends in a bounded trace with its own outcome. */
static void test_a_flood_meets_the_trace_budget(void **state)
{
	struct run *r = new_run();

	(void)state;
	rewind_run("-- /bin/cat /dev/zero >/dev/null", r); /* 64 MiB of output */
	expect(r, 1, "trace-budget");
	assert_non_null(strstr(r->err, "the trace passed its budget of 64 MiB"));
}

/*
 * Outputs are crash-safe: under a file size limit the run says "File too
 * large", exits 4 (the host could not finish) and leaves neither a half
 * trace nor a manifest without its trace, nor temporary files; an output
 * folder that cannot be made gives 4 too. An --out whose parent is not
 * there is refused before the run (2).
 */
static void test_lost_outputs_are_reported_and_leave_nothing_half_written(void **state)
{
	struct run *r = new_run(), *ls = new_run();
	char cmd[512];

	(void)state;
	snprintf(cmd, sizeof(cmd),
		 "rm -rf build/test-runs/limited && ulimit -f 8 && %s run --out "
		 "build/test-runs/limited -- /bin/hello",
		 REWIND);
	shell(cmd, r);
	assert_int_equal(r->status, 4);
	assert_non_null(strstr(r->err, "File too large"));
	shell("ls -A build/test-runs/limited", ls);
	assert_string_equal(ls->out, "");
	snprintf(cmd, sizeof(cmd), "%s run --out /proc/run -- /bin/true", REWIND);
	shell(cmd, r);
	assert_int_equal(r->status, 4);
	assert_non_null(strstr(r->err, "cannot create the run directory /proc/run"));
	snprintf(cmd, sizeof(cmd), "%s run --out /proc/nope/run -- /bin/true", REWIND);
	shell(cmd, r);
	assert_int_equal(r->status, 2);
	assert_string_equal(r->err, "rewind run: error: --out /proc/nope/run: there is no folder "
				    "/proc/nope to make it in\n");
}

static void test_bad_inputs_are_refused_clearly(void **state)
{
	struct run *r = new_run();

	(void)state;
	rewind_run("--kernel /no/such/bzImage -- /bin/true", r);
	assert_int_equal(r->status, 2);
	assert_string_equal(r->err, "rewind run: error: no guest kernel at /no/such/bzImage (build "
				    "it with `make`, or pass --kernel)\n");
	rewind_run("--kernel GNUmakefile -- /bin/true", r);
	assert_int_equal(r->status, 2);
	assert_non_null(strstr(r->err, "not a bzImage"));
	rewind_run("--initrd GNUmakefile -- /bin/true", r);
	assert_int_equal(r->status, 2);
	assert_non_null(strstr(r->err, "not an uncompressed newc cpio"));
	rewind_run("--mem 12 -- /bin/true", r);
	assert_int_equal(r->status, 2);
	/* a test folder too large for the guest's RAM: said before the boot, not "no job" after */
	assert_int_equal(system("mkdir -p build/test-runs/big && truncate -s 100M "
				"build/test-runs/big/data"),
			 0);
	rewind_run("--mem 256M --add build/test-runs/big:/big -- /bin/true", r);
	assert_int_equal(r->status, 2);
	assert_non_null(strstr(r->err, "rewind run: error: the guest image with the files added to "
				       "it is 1")); /* 100 MiB and the image's own */
	assert_non_null(strstr(r->err, " MiB, and unpacking it needs about "));
	assert_non_null(strstr(r->err, "the guest has 256 MiB: give it more (--mem "));
	rewind_run("", r);
	assert_int_equal(r->status, 2);
	/* getopt's own words name no fix: ours name the program and where options are listed */
	rewind_run("--foo -- /bin/true", r);
	assert_int_equal(r->status, 2);
	assert_string_equal(r->err, "rewind run: error: unknown option '--foo'; rewind run --help "
				    "lists the options\n");
	rewind_run("--seed", r);
	assert_int_equal(r->status, 2);
	assert_string_equal(r->err,
			    "rewind run: error: --seed needs a value; rewind run --help lists the "
			    "options\n");
}

#define KEYFRAME "build/test-runs/hello.keyframe"

/* For several seeds, a run restored from the keyframe equals a run booted from scratch. */
static void test_keyframe_restore_equals_boot(void **state)
{
	struct run *booted = new_run(), *restored = new_run();
	char args[256];

	(void)state;
	unlink(KEYFRAME);
	rewind_run("--keyframe " KEYFRAME " -- /bin/hello", restored); /* writes it */
	expect(restored, 0, "exited");
	assert_non_null(strstr(restored->err, "keyframe written"));
	/* six seeds, two boots each (20 identical runs:
	 * test_adversarial_is_identical_20_times_under_load) */
	for (int seed = 0; seed < 6; seed++) {
		snprintf(args, sizeof(args), "--seed %d -- /bin/hello", seed);
		rewind_run(args, booted);
		snprintf(args, sizeof(args), "--seed %d --keyframe " KEYFRAME " -- /bin/hello",
			 seed);
		rewind_run(args, restored);
		expect(restored, 0, "exited");
		assert_same_run(booted, restored);
	}
}

/* Many restore+run cycles in one process: no state leaks between executions. */
static void test_keyframe_repeats_are_identical(void **state)
{
	struct run *r = new_run();

	(void)state;
	rewind_run("--keyframe " KEYFRAME " --repeat 1000 -- /bin/hello", r);
	expect(r, 0, "exited");
	assert_non_null(strstr(r->err, "1000 repeats from the keyframe, identical traces"));
	print_message("%s", strstr(r->err, "rewind: 1000 repeats"));
	unlink("build/test-runs/adversarial.keyframe"); /* boot, write it, then repeat */
	rewind_run("--keyframe build/test-runs/adversarial.keyframe --repeat 20 -- "
		   "/bin/adversarial 300",
		   r);
	expect(r, 0, "exited");
	assert_non_null(strstr(r->err, "identical traces"));
}

/*
 * A guest that dirties almost all of its memory is restored correctly.
 * Its 23,040 first writes make no exit: in the KVM box they take seconds
 * of the vCPU thread's time, and more than the default stuck budget (10 s)
 * when another job keeps the host's cores busy (the box's kernel counts the
 * time its own host takes the CPU away as the thread's: the run ended as
 * `stuck`), so the budget is raised: this test is about restores, not
 * about a guest that never exits.
 */
static void test_keyframe_restores_a_fully_dirtied_guest(void **state)
{
	struct run *r = new_run();

	(void)state;
	unlink("build/test-runs/dirty.keyframe");
	/* 90 of 128 MiB: the kernel and the image's files (unpacked in RAM, the
	 * busybox userland among them) hold the rest, with room for the image to grow */
	rewind_run("--mem 128M --stuck-ms 600000 --keyframe build/test-runs/dirty.keyframe "
		   "--repeat 3 -- /bin/dirty 90",
		   r);
	expect(r, 0, "exited");
	assert_non_null(strstr(r->out, "dirtied 23040 pages"));
	assert_non_null(strstr(r->err, "3 repeats from the keyframe, identical traces"));
	print_message("%s", strstr(r->err, "rewind: 3 repeats"));
}

/* Writes a damaged copy of the keyframe: truncated, or one byte flipped at offset. */
static void damage_keyframe(const char *to, long truncate_to, long flip_at)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "cp %s %s", KEYFRAME, to);
	assert_int_equal(system(cmd), 0);
	if (truncate_to >= 0)
		assert_int_equal(truncate(to, truncate_to), 0);
	if (flip_at >= 0) {
		FILE *f = fopen(to, "r+b");
		int c;

		assert_non_null(f);
		fseek(f, flip_at, SEEK_SET);
		c = fgetc(f);
		fseek(f, flip_at, SEEK_SET);
		fputc(c ^ 0x40, f);
		fclose(f);
	}
}

/*
 * An edited keyframe whose checksums are made to match again: writes a copy
 * of KEYFRAME with n bytes at offset at replaced, re-sealed.
 */
static void reseal_keyframe_with(const char *to, size_t at, const void *bytes, size_t n)
{
	struct keyframe_file_header h;
	FILE *f = fopen(KEYFRAME, "rb");
	uint8_t *data;
	long len;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	rewind(f);
	data = malloc((size_t)len);
	assert_non_null(data);
	assert_int_equal(fread(data, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	memcpy(data + at, bytes, n);
	memcpy(&h, data, sizeof(h));
	h.payload_xxh3 = XXH3_64bits(data + sizeof(h), h.payload_len);
	h.header_xxh3 = XXH3_64bits(&h, offsetof(struct keyframe_file_header, header_xxh3));
	memcpy(data, &h, sizeof(h));
	f = fopen(to, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	free(data);
}

static void test_bad_keyframes_are_refused(void **state)
{
	const uint64_t gpa = 0xfffffffffffff000ull;
	const uint32_t efer = 0xc0000080;
	struct run *r = new_run();

	(void)state;
	damage_keyframe("build/test-runs/truncated.keyframe", 5000, -1);
	rewind_run("--keyframe build/test-runs/truncated.keyframe -- /bin/hello", r);
	assert_int_equal(r->status, 2);
	assert_non_null(strstr(r->err, "corrupt or truncated"));
	damage_keyframe("build/test-runs/flipped.keyframe", -1, 100000);
	rewind_run("--keyframe build/test-runs/flipped.keyframe -- /bin/hello", r);
	assert_int_equal(r->status, 2);
	assert_non_null(strstr(r->err, "corrupt or truncated"));
	rewind_run("--keyframe GNUmakefile -- /bin/hello", r);
	assert_int_equal(r->status, 2);
	assert_non_null(strstr(r->err, "not a Rewind keyframe file"));
	/* another command is another initramfs: the keyframe belongs to other inputs */
	rewind_run("--keyframe " KEYFRAME " -- /bin/true", r);
	assert_int_equal(r->status, 2);
	assert_non_null(strstr(r->err, "belongs to other inputs: initrd_xxh3"));
	rewind_run("--mem 128M --keyframe " KEYFRAME " -- /bin/hello", r);
	assert_int_equal(r->status, 2);
	assert_non_null(strstr(r->err, "belongs to other inputs"));
	/* checksums made to match again: the fields themselves are checked */
	reseal_keyframe_with("build/test-runs/resealed.keyframe",
			     sizeof(struct keyframe_file_header) + sizeof(struct vcpu_state) +
				     offsetof(struct keyframe_file_vmm, shared_gpa),
			     &gpa, sizeof(gpa));
	rewind_run("--keyframe build/test-runs/resealed.keyframe -- /bin/hello", r);
	assert_int_equal(r->status, 2);
	assert_non_null(strstr(r->err, "its shared page is not a page of guest RAM"));
	/* the vCPU state may not name MSRs of its own (EFER for SYSENTER_CS) */
	reseal_keyframe_with("build/test-runs/msr.keyframe",
			     sizeof(struct keyframe_file_header) +
				     offsetof(struct vcpu_state, msrs[0].index),
			     &efer, sizeof(efer));
	rewind_run("--keyframe build/test-runs/msr.keyframe -- /bin/hello", r);
	if (r->status == 0 || !strstr(r->err, "lists other MSRs than this build saves"))
		fail_msg("a keyframe naming EFER among its MSRs: status %d\n%s", r->status, r->err);
}

#define TRACE_DIR     "build/scratch/trace"
#define HELLO_TRACE   "build/test-runs/trace-hello/trace.bin"
#define HARNESS	      "build/tests/rewind-harness-asan"
#define OUTCOME_BYTES (48 + 10) /* the last record: outcome, detail "job exited" */

/* Finds needle in haystack at or after from, failing the test with both shown if it is not. */
static const char *find_after(const char *haystack, const char *from, const char *needle)
{
	const char *at = strstr(from, needle);

	if (!at)
		fail_msg("expected \"%s\" after offset %td in:\n%s", needle, from - haystack,
			 haystack);
	return at;
}

/* Copies file to copy; then truncates it to size bytes (if >= 0) and writes with at offset 0. */
static void damaged_copy(const char *file, const char *copy, long size, const char *with)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "mkdir -p " TRACE_DIR " && cp %s %s", file, copy);
	assert_int_equal(system(cmd), 0);
	if (size >= 0)
		assert_int_equal(truncate(copy, size), 0);
	if (with) {
		FILE *f = fopen(copy, "r+b");

		assert_non_null(f);
		assert_int_equal(fwrite(with, 1, strlen(with), f), strlen(with));
		assert_int_equal(fclose(f), 0);
	}
}

/* Runs /bin/hello: its trace is HELLO_TRACE. */
static void run_hello_for_its_trace(void)
{
	struct run *r = new_run();

	rewind_run("--out build/test-runs/trace-hello -- /bin/hello", r);
	expect(r, 0, "exited");
}

/* Prints the first lines of text (cmocka cuts long messages short). */
static void print_head(const char *text, int lines)
{
	const char *end = text;

	while (lines-- > 0 && (end = strchr(end, '\n')))
		end++;
	print_message("%.*s", (int)(end ? end - text : (long)strlen(text)), text);
}

static long file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return (long)st.st_size;
}

/* Runs hello (once) and reads its trace back with `rewind trace`: JSON lines from READY on. */
static void read_hello_trace(struct run *t)
{
	run_hello_for_its_trace();
	shell("mkdir -p " TRACE_DIR " && " REWIND " trace " HELLO_TRACE " >" TRACE_DIR
	      "/job.jsonl && cat " TRACE_DIR "/job.jsonl",
	      t);
	assert_int_equal(t->status, 0);
}

/* `rewind trace` reads a run's trace.bin back: the job from READY on, as JSON lines. */
static void test_trace_reads_back_the_run(void **state)
{
	struct run *t = new_run();
	const char *at;

	(void)state;
	read_hello_trace(t);
	assert_null(strstr(t->out, "\"boot\""));
	at = find_after(t->out, t->out, "{\"step\":0,\"pid\":0,\"tid\":0,\"type\":\"ready\"}\n");
	assert_ptr_equal(at, t->out); /* the first line */
	at = find_after(t->out, at,
			"\"type\":\"exec\",\"path\":\"/bin/hello\",\"argv\":[\"/bin/hello\"]}\n");
	at = find_after(t->out, at, "\"type\":\"output\",\"text\":\"realtime: 1767225601.");
	at = find_after(t->out, at,
			"\"type\":\"exit\",\"wait_status\":0,\"exit_code\":0,"
			"\"process\":true}\n");
	at = find_after(t->out, at, "\"type\":\"job_status\",\"wait_status\":0,\"exit_code\":0}\n");
	at = find_after(t->out, at,
			"\"type\":\"outcome\",\"outcome\":\"exited\",\"detail\":\"job exited\"}\n");
	assert_string_equal(strchr(at, '\n'), "\n"); /* the outcome is the last line */
	print_head(t->out, 7);
}

/* --text is a table of the same records; --all adds the boot, before step 0. */
static void test_trace_text_and_all(void **state)
{
	struct run *t = new_run(), *x = new_run();
	const char *at;
	long long step;
	size_t lines = 0, rows = 0;

	(void)state;
	read_hello_trace(t);
	shell(REWIND " trace --text " HELLO_TRACE, x);
	assert_int_equal(x->status, 0);
	at = find_after(x->out, x->out,
			"      STEP     PID     TID WHAT       DETAIL\n"
			"         0       0       0 ready\n");
	assert_ptr_equal(at, x->out);
	at = find_after(x->out, at, " exec       path=\"/bin/hello\" argv=[\"/bin/hello\"]\n");
	at = find_after(x->out, at, " output     \"realtime: 1767225601.");
	at = find_after(x->out, at, " job_status wait_status=0 exit_code=0\n");
	find_after(x->out, at, " outcome    outcome=exited detail=\"job exited\"\n");
	for (const char *c = t->out; *c; c++)
		lines += *c == '\n';
	for (const char *c = x->out; *c; c++)
		rows += *c == '\n';
	assert_int_equal(rows, lines + 1); /* the header */
	print_head(x->out, 8);

	shell(REWIND " trace --all " HELLO_TRACE " >" TRACE_DIR "/all.jsonl && head -1 " TRACE_DIR
		     "/all.jsonl",
	      x);
	assert_int_equal(x->status, 0);
	if (sscanf(x->out, "{\"step\":%lld,\"boot\":true,", &step) != 1 || step >= 0)
		fail_msg("the first record of --all is not a boot record before READY: %s", x->out);
	/* every boot record is before READY; without them, the job's records are left */
	shell("grep '\"boot\":true' " TRACE_DIR
	      "/all.jsonl | grep -c -v '^{\"step\":\\(-[1-9]\\|0,\\)'",
	      x);
	assert_string_equal(x->out, "0\n");
	shell("grep -v '\"boot\":true' " TRACE_DIR "/all.jsonl | cmp - " TRACE_DIR
	      "/job.jsonl && echo same",
	      x);
	assert_string_equal(x->out, "same\n");
}

/* A damaged trace: the records before the damage, then exit 2 naming the byte offset. */
static void test_trace_refuses_a_damaged_file(void **state)
{
	struct run *t = new_run();
	long size;
	char want[160];

	(void)state;
	run_hello_for_its_trace();
	size = file_size(HELLO_TRACE);
	damaged_copy(HELLO_TRACE, TRACE_DIR "/cut.bin", size - 1, NULL);
	shell(REWIND " trace " TRACE_DIR "/cut.bin", t);
	assert_int_equal(t->status, 2);
	snprintf(want, sizeof(want),
		 "cut.bin is truncated: the record at byte offset %ld runs past the end of the "
		 "file (%ld bytes)",
		 size - OUTCOME_BYTES, size - 1);
	find_after(t->err, t->err, want);
	find_after(t->out, t->out, "\"type\":\"job_status\",\"wait_status\":0,\"exit_code\":0}\n");
	assert_null(strstr(t->out, "\"type\":\"outcome\""));

	damaged_copy(HELLO_TRACE, TRACE_DIR "/magic.bin", -1, "RWTRACE0");
	shell(REWIND " trace --text " TRACE_DIR "/magic.bin", t);
	assert_int_equal(t->status, 2);
	assert_string_equal(t->out, "");
	find_after(t->err, t->err, "magic.bin is not a Rewind event trace");
	shell(REWIND " trace " TRACE_DIR "/no-such.bin", t);
	assert_int_equal(t->status, 2);
}

/* An injection is in the trace at the step its input names, relative to READY. */
static void test_trace_shows_an_injection_at_its_input_step(void **state)
{
	struct run *j = new_run(), *h = new_run(), *t = new_run();
	cJSON *input, *inj;
	char want[256];

	(void)state;
	shell(HARNESS " --to-json corpus/ledger/stall-1", j);
	assert_int_equal(j->status, 0);
	input = cJSON_Parse(j->out);
	assert_non_null(input);
	inj = cJSON_GetArrayItem(cJSON_GetObjectItem(input, "injections"), 0);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(inj, "kind")), "stall");
	snprintf(
		want, sizeof(want),
		"{\"step\":%d,\"pid\":0,\"tid\":0,\"type\":\"inject\",\"kind\":\"stall\",\"us\":%d,"
		"\"index\":0}\n",
		cJSON_GetObjectItem(inj, "step")->valueint,
		cJSON_GetObjectItem(inj, "us")->valueint);
	cJSON_Delete(input);
	shell("mkdir -p " TRACE_DIR " && rm -f " TRACE_DIR "/t.bin && " HARNESS
	      " --trace " TRACE_DIR "/t.bin corpus/ledger/stall-1",
	      h);
	if (h->status != 0 && h->status != 1) /* 1: the input found a failure */
		fail_msg("rewind-harness exited %d:\n%s", h->status, h->err);
	shell(REWIND " trace " TRACE_DIR "/t.bin | grep '\"type\":\"inject\"'", t);
	assert_string_equal(t->out, want);
	print_message("%s", t->out);
}

/* The first line of r's stderr, for exact comparisons. */
static const char *first_line(const struct run *r, char *out, size_t len)
{
	size_t n = strcspn(r->err, "\n");

	snprintf(out, len, "%.*s", (int)n, r->err);
	return out;
}

/*
 * One vocabulary with rewind-harness: --initramfs (--initrd its older
 * name), --mem with K, M or G or a bare MiB count (an old byte count still
 * works): the same guest, the same run. Errors name the program, in a
 * sentence; -v adds where in the source.
 */
static void test_options_share_the_harness_vocabulary(void **state)
{
	struct run *a = new_run(), *b = new_run(), *c = new_run(), *d = new_run();
	char line[1024];

	(void)state;
	rewind_run("--initramfs build/guest/initramfs.cpio --mem 128M -- /bin/true", a);
	expect(a, 0, "exited");
	rewind_run("--initrd build/guest/initramfs.cpio --mem 128 -- /bin/true", b);
	expect(b, 0, "exited");
	rewind_run("--mem 131072K -- /bin/true", c);
	expect(c, 0, "exited");
	rewind_run("--mem 134217728 -- /bin/true", d);
	expect(d, 0, "exited");
	assert_string_equal(a->trace, b->trace);
	assert_string_equal(a->trace, c->trace);
	assert_string_equal(a->trace, d->trace);
	rewind_run("--mem 12 -- /bin/true", a);
	assert_int_equal(a->status, 2);
	assert_string_equal(first_line(a, line, sizeof(line)),
			    "rewind run: error: --mem must be a page-aligned size from 64M to 3G "
			    "(e.g. 256M, 1G; a bare number is MiB), not '12'");
	assert_string_equal(a->err + strlen(line), "\n"); /* one line: no usage after it */
	rewind_run("-v --mem 1T -- /bin/true", a);
	assert_int_equal(a->status, 2);
	first_line(a, line, sizeof(line));
	if (strncmp(line, "rewind run: error: parse_mem:", 29) != 0 ||
	    !strstr(line, ": --mem must be a page-aligned size from 64M to 3G"))
		fail_msg("no location with -v: %s", line);
	shell("REWIND_DEBUG=1 " REWIND " trace", b);
	assert_int_equal(b->status, 2);
	assert_non_null(strstr(b->err, "rewind trace: error: cmd_trace:"));
	shell(REWIND " trace", b);
	assert_string_equal(
		first_line(b, line, sizeof(line)),
		"rewind trace: error: give one trace file: rewind trace [--text] [--all] FILE");
}

/* --version: the version and commit, the guest ABI, the CPU model, the default kernel's hash. */
static void test_version_names_what_a_run_depends_on(void **state)
{
	struct run *v = new_run();
	char want[256];
	uint8_t *data;
	size_t len;
	FILE *f = fopen("build/guest/bzImage", "rb");

	(void)state;
	assert_non_null(f);
	data = malloc(64u << 20);
	assert_non_null(data);
	len = fread(data, 1, 64u << 20, f);
	fclose(f);
	shell(REWIND " --version", v);
	assert_int_equal(v->status, 0);
	assert_true(strncmp(v->out, "rewind 0.2.0 (commit ", 21) == 0);
	assert_non_null(strstr(v->out, ")\nguest ABI 8\nCPU model rewind-"));
	assert_non_null(strstr(v->out, "-v1 (\"Rewind virtual CPU\")\nkernel /"));
	snprintf(want, sizeof(want), "/build/guest/bzImage (XXH3 0x%016" PRIx64 ", %zu bytes)\n",
		 (uint64_t)XXH3_64bits(data, len), len);
	free(data);
	assert_non_null(strstr(v->out, want));
	assert_true(strlen(v->out) > strlen(want));
	assert_string_equal(v->out + strlen(v->out) - strlen(want), want); /* the last line */
}

/*
 * A /dev/kvm slower than the threshold is refused up front (2: nothing
 * ran), unless allowed; a bad input is named before it is measured.
 */
static void test_a_slow_kvm_is_refused_up_front(void **state)
{
	struct run *r = new_run();
	const char *tail = " times slower than hardware (";
	const char *head = "rewind run: error: this /dev/kvm runs guest code ";

	(void)state;
	shell("REWIND_SLOW_KVM_MS=0.000001 " REWIND " run --kernel /no/bzImage -- /bin/true", r);
	assert_int_equal(r->status, 2);
	assert_string_equal(r->err, "rewind run: error: no guest kernel at /no/bzImage (build it "
				    "with `make`, or pass --kernel)\n");
	shell("REWIND_SLOW_KVM_MS=0.000001 " REWIND " run -- /bin/true", r);
	assert_int_equal(r->status, 2);
	if (strncmp(r->err, head, strlen(head)) != 0 || !strstr(r->err, tail) ||
	    !strstr(r->err, "Run through the KVM box instead: rewind box rewind") ||
	    !strstr(r->err, " ... (REWIND_ALLOW_SLOW_KVM=1 runs here anyway)\n"))
		fail_msg("%s", r->err);
	shell("REWIND_SLOW_KVM_MS=0.000001 REWIND_ALLOW_SLOW_KVM=1 " REWIND " run -- /bin/true", r);
	assert_int_equal(r->status, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_inputs_are_refused_clearly),
		cmocka_unit_test(test_hello_is_identical_twice),
		cmocka_unit_test(test_seed_changes_randomness_and_run_id),
		cmocka_unit_test(test_sleep_costs_a_few_steps),
		cmocka_unit_test(test_failures_have_their_own_outcome),
		cmocka_unit_test(test_json_tells_a_job_status_from_an_outcome),
		cmocka_unit_test(test_a_flood_meets_the_trace_budget),
		cmocka_unit_test(test_lost_outputs_are_reported_and_leave_nothing_half_written),
		cmocka_unit_test(test_adversarial_is_identical_20_times_under_load),
		cmocka_unit_test(test_keyframe_restore_equals_boot),
		cmocka_unit_test(test_keyframe_repeats_are_identical),
		cmocka_unit_test(test_keyframe_restores_a_fully_dirtied_guest),
		cmocka_unit_test(test_bad_keyframes_are_refused),
		cmocka_unit_test(test_trace_reads_back_the_run),
		cmocka_unit_test(test_trace_text_and_all),
		cmocka_unit_test(test_trace_refuses_a_damaged_file),
		cmocka_unit_test(test_trace_shows_an_injection_at_its_input_step),
		cmocka_unit_test(test_options_share_the_harness_vocabulary),
		cmocka_unit_test(test_version_names_what_a_run_depends_on),
		cmocka_unit_test(test_a_slow_kvm_is_refused_up_front),
	};

	if (getenv("TEST_FILTER")) /* e.g. TEST_FILTER='*keyframe*' */
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	return cmocka_run_group_tests_name("rewind_run", tests, NULL, NULL);
}

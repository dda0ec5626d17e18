/* SPDX-License-Identifier: MIT */
/*
 * End-to-end tests of rewind-harness on real KVM (natively or inside the
 * box): the bundled ledger example passes unperturbed and fails with the
 * right stall; failures leave artifacts that replay bit for bit; replay
 * names what differs; the forkserver speaks afl-fuzz 4.04c's protocol
 * (played here byte by byte) and always answers; and afl-fuzz itself finds
 * the ledger bug, with afl-tmin shrinking the crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "harness/afl_protocol.h"
#include "lib/file.h"
#include "vmm/trace.h"

#define HARNESS	    "build/tests/rewind-harness-asan"
#define HARNESS_AFL "build/bin/rewind-harness" /* afl-fuzz runs the plain build */
#define DIR	    "build/test-harness"
#define ERR_FILE    DIR "/stderr.txt"

#include "tests/kvm/shell.h"
#include "tests/kvm/trace_file.h"

/* The ledger's teller deposit at t = 40 ms journals at this step; a stall of
 * more than 10 ms there loses the auditor's deposit (see guest/ledger.c). */
#define LOST_UPDATE_STEP 9

static void expect_status(const struct run *r, int status, const char *in_err)
{
	if (r->status != status || (in_err && !strstr(r->err, in_err)))
		fail_msg("expected status %d and '%s', got %d\nstdout:\n%s\nstderr:\n%s", status,
			 in_err ? in_err : "", r->status, r->out, r->err);
}

/* The JSON object a command wrote to path (its stdout), parsed; fails the test if it is not one. */
static cJSON *json_written(const char *path)
{
	uint8_t *data;
	size_t len;
	cJSON *o;

	assert_int_equal(file_read_max(path, 16u << 20, "JSON", &data, &len), 0);
	assert_true(len > 0 && data[len - 1] == '\n' && memchr(data, '\n', len) == data + len - 1);
	o = cJSON_ParseWithLength((const char *)data, len);
	free(data);
	assert_non_null(o);
	return o;
}

static const char *json_string(const cJSON *o, const char *key)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));

	if (!v)
		fail_msg("no string \"%s\" in the JSON", key);
	return v ? v : "";
}

static double json_number(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(v))
		fail_msg("no number \"%s\" in the JSON", key);
	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* A replay's or explanation's --json verdict: its format, version 1, verdict and exit status. */
static void expect_verdict(const cJSON *o, const char *format, const char *verdict, int status)
{
	assert_string_equal(json_string(o, "format"), format);
	assert_int_equal((int)json_number(o, "version"), 1);
	assert_string_equal(json_string(o, "verdict"), verdict);
	assert_int_equal((int)json_number(o, "exit_status"), status);
	assert_true(cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(o, "same")));
}

/* The trace hash on the outcome line. */
static void trace_of(const struct run *r, char out[19])
{
	const char *t = strstr(r->err, ", trace 0x");

	assert_non_null(t);
	memcpy(out, t + 8, 18);
	out[18] = '\0';
}

static void write_input(const char *path, const char *injections)
{
	write_mode_input(path, "steps", injections);
}

static void test_ledger_passes_unperturbed_and_repeats(void **state)
{
	struct run *a = new_run(), *b = new_run();
	char ta[19], tb[19];

	(void)state;
	sh(HARNESS " corpus/ledger/empty", a);
	expect_status(a, 0, "outcome pass");
	assert_non_null(strstr(a->out, "ledger: balance 507"));
	sh(HARNESS " corpus/ledger/empty", b);
	trace_of(a, ta);
	trace_of(b, tb);
	assert_string_equal(ta, tb);
	assert_string_equal(a->out, b->out);
}

static void lost_update_input(char *path, size_t len)
{
	char inj[128];

	snprintf(path, len, DIR "/lost-update");
	snprintf(inj, sizeof(inj), "{\"step\":%d,\"kind\":\"stall\",\"us\":15000}",
		 LOST_UPDATE_STEP);
	write_input(path, inj);
}

/* Runs the lost-update input; returns the artifact path it wrote. */
static void find_lost_update(char *artifact, size_t len)
{
	struct run *r = new_run();
	char input[256], cmd[1024];
	const char *at;

	lost_update_input(input, sizeof(input));
	snprintf(cmd, sizeof(cmd), "rm -rf " DIR "/art && " HARNESS " --artifacts " DIR "/art %s",
		 input);
	sh(cmd, r);
	expect_status(r, 1, "outcome signal (the job was killed by SIGABRT)");
	assert_non_null(strstr(r->out, "ledger: lost update: balance 500, expected 507"));
	at = strstr(r->err, "artifact ");
	assert_non_null(at);
	snprintf(artifact, len, "%.*s", (int)strcspn(at + 9, "\n"), at + 9);
}

static void test_stall_loses_an_update_and_replays_exactly(void **state)
{
	struct run *a = new_run(), *b = new_run(), *raw = new_run();
	char artifact[512], cmd[1024];

	(void)state;
	find_lost_update(artifact, sizeof(artifact));
	snprintf(cmd, sizeof(cmd), HARNESS " --replay %s", artifact);
	sh(cmd, a);
	expect_status(a, 1, "replay identical"); /* the failure reproduces */
	sh(cmd, b);
	expect_status(b, 1, "replay identical");
	assert_string_equal(a->out, b->out);
	assert_non_null(strstr(a->out, "lost update"));
	sh(HARNESS " --replay " DIR "/lost-update", raw);
	expect_status(raw, 1, "same outcome and trace every time, 2 runs");
	print_message("artifact %s\n", artifact);
}

/* Edits one field of the artifact and expects the replay to name it. */
static void expect_replay_differs(const char *artifact, const char *sed, const char *says)
{
	struct run *r = new_run();
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "sed -e '%s' %s >" DIR "/edited.json && " HARNESS " --replay " DIR "/edited.json",
		 sed, artifact);
	sh(cmd, r);
	expect_status(r, 3, says);
	assert_non_null(strstr(r->err, "NOT the same run"));
}

/*
 * An artifact whose recorded trace is not this run's: rewind replay --json
 * says so (same: false, status 3), and rewind explain explains nothing (3).
 */
static void differs_said_as_json(const char *artifact)
{
	struct run *r = new_run();
	char cmd[1024];
	cJSON *o;

	snprintf(cmd, sizeof(cmd),
		 "sed -e 's/\"trace_xxh3\":[[:space:]]*\"0x[0-9a-f]*\"/\"trace_xxh3\": \"0x2\"/' "
		 "%s >" DIR "/edited.json && build/bin/rewind replay " DIR
		 "/edited.json --json >" DIR "/verdict.json",
		 artifact);
	sh(cmd, r);
	expect_status(r, 3, "rewind replay: differs: trace: artifact 0x0000000000000002");
	o = json_written(DIR "/verdict.json");
	expect_verdict(o, "rewind-replay", "differs", 3);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "same")));
	assert_string_equal(json_string(o, "recorded_trace"), "0x0000000000000002");
	cJSON_Delete(o);
	sh("build/bin/rewind explain " DIR "/edited.json", r);
	expect_status(r, 3, "rewind explain: the run is NOT the one the artifact recorded");
	assert_string_equal(r->out, "");
}

static void test_replay_names_what_differs(void **state)
{
	char artifact[512];

	(void)state;
	find_lost_update(artifact, sizeof(artifact));
	expect_replay_differs(
		artifact, "s/\"kernel_xxh3\":[[:space:]]*\"0x[0-9a-f]*\"/\"kernel_xxh3\": \"0x1\"/",
		"differs: kernel");
	expect_replay_differs(
		artifact, "s/\"trace_xxh3\":[[:space:]]*\"0x[0-9a-f]*\"/\"trace_xxh3\": \"0x2\"/",
		"differs: trace");
	expect_replay_differs(artifact,
			      "s/\"class\":[[:space:]]*\"signal\"/\"class\": \"deadlock\"/",
			      "differs: outcome");
	differs_said_as_json(artifact);
}

static void test_bad_files_are_refused_clearly(void **state)
{
	struct run *r = new_run();
	char artifact[512], cmd[1024];

	(void)state;
	find_lost_update(artifact, sizeof(artifact));
	snprintf(cmd, sizeof(cmd),
		 "head -c 200 %s >" DIR "/cut.json && " HARNESS " --replay " DIR "/cut.json",
		 artifact);
	sh(cmd, r);
	expect_status(r, 2, "not valid JSON");
	/* a raw input is what afl-fuzz ran: replayed as the harness decoded it */
	sh("printf 'RWSI\\001\\000\\000\\000' >" DIR "/short && " HARNESS " --replay " DIR "/short",
	   r);
	expect_status(r, 0, /* decoded: the unperturbed run, which passes */
		      "short is not in the documented input format (offset 8: input ends "
		      "inside the 16-byte header); replaying it decoded");
	sh(HARNESS " --replay " DIR "/no-such-file", r);
	expect_status(r, 2, "no-such-file");
	sh(HARNESS " --kernel " DIR "/no-kernel corpus/ledger/empty", r);
	expect_status(r, 2, "no guest kernel at " DIR "/no-kernel");
	sh("printf 'RWSI\\001\\000\\000\\000\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\011\\0\\0\\0' "
	   ">" DIR "/badkind && " HARNESS " " DIR "/badkind",
	   r);
	expect_status(r, 0,
		      "badkind is not in the documented input format (record 0 (offset 20): "
		      "unknown kind 9); running it decoded");
}

/* A write error (here: a file size limit, as a full disk would) while writing an
 * artifact: a clear message, the failure still reported, no half file left. */
static void test_artifact_write_failure_loses_nothing(void **state)
{
	struct run *r = new_run();
	char input[256], cmd[1024];

	(void)state;
	lost_update_input(input, sizeof(input));
	snprintf(cmd, sizeof(cmd),
		 "rm -rf " DIR "/full-art && mkdir " DIR "/full-art && (trap '' XFSZ; ulimit -f 1; "
		 "exec " HARNESS " --artifacts " DIR
		 "/full-art %s >/dev/null); echo status $? >&2; "
		 "ls -A " DIR "/full-art",
		 input);
	sh(cmd, r);
	assert_non_null(strstr(r->err, "outcome signal"));
	assert_non_null(strstr(r->err, "status 1"));
	assert_non_null(strstr(r->err, "full-art/signal-"));
	assert_non_null(strstr(r->err, "was not written"));
	assert_string_equal(r->out, ""); /* nothing left in the directory */
	print_message("%s", r->err);
}

/* Runs INPUT on the adversarial race (3 threads, syscalls chosen from data); returns its trace. */
static void adversarial_trace(const char *input, char trace[19])
{
	struct run *r = new_run();
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 HARNESS " --artifacts " DIR "/adv-art %s -- /bin/adversarial 300 3", input);
	sh(cmd, r);
	expect_status(r, 0, "outcome pass");
	trace_of(r, trace);
}

/* Every kind of injection changes the run, and the same input gives the same run. */
static void test_each_injection_kind_changes_the_run(void **state)
{
	/* a reschedule matters only where another thread is runnable: ask at every step */
	static char resched[4096];
	const char *const kinds[] = {
		resched,
		"{\"step\":40,\"kind\":\"stall\",\"us\":3000}",
		"{\"step\":40,\"kind\":\"timer-late\",\"us\":3000}",
		"{\"step\":40,\"kind\":\"preempt-insns\",\"insns\":50}",
	};
	char base[19], first[19], again[19], path[128];
	size_t at = 0;

	(void)state;
	for (int step = 1; step <= 100; step++)
		at += (size_t)snprintf(resched + at, sizeof(resched) - at,
				       "%s{\"step\":%d,\"kind\":\"resched\"}", step > 1 ? "," : "",
				       step);
	write_input(DIR "/none", "");
	adversarial_trace(DIR "/none", base);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		snprintf(path, sizeof(path), DIR "/kind%zu", i);
		write_input(path, kinds[i]);
		adversarial_trace(path, first);
		adversarial_trace(path, again);
		print_message("kind %zu: trace %s (none: %s)\n", i, first, base);
		assert_string_equal(first, again);
		assert_string_not_equal(first, base);
	}
}

/* The number after label on bench/exec's output line that starts with it; -1 if none. */
static double bench_number(const struct run *r, const char *label)
{
	const char *at = strstr(r->out, label);
	double v;

	return at && sscanf(at + strlen(label), "%lf", &v) == 1 ? v : -1;
}

/*
 * What an execution of the ledger costs in exits (bench/exec, from KVM's
 * own statistics): every exit to the VMM is a step; the seed costs no exit
 * (the VMM writes it into rewind-init's buffer: no exit at port 7, the
 * seed's until ABI 5); each wait of a task is one idle exit (the guest stops
 * the tick at once, patch 0013: the ledger waits six times, and with the
 * tick kept it idled 11.2 times per execution); an idle exit needs no
 * interrupt window (the guest idles with interrupts on, patch 0010; an
 * injection at an exit the kernel makes with interrupts off still waits for
 * one: resched-1 and stall-1 inject at the job's fork, so half the
 * executions here take one). Counts, not times: they do not depend on the
 * host's load.
 */
static void test_an_execution_exits_only_at_its_steps(void **state)
{
	struct run *r = new_run();
	double steps, exits, idles, windows;
	const char *io;
	char ports[256];

	(void)state;
	sh("build/bench/exec --runs 8 --exit-ns 50000 --label ledger corpus/ledger/*", r);
	expect_status(r, 0, NULL);
	print_message("%s", r->out);
	steps = bench_number(r, "  steps:");
	exits = bench_number(r, "  exits to the VMM:");
	assert_true(steps > 10 && steps == exits);
	idles = bench_number(r, " idle ");
	if (idles < 6 || idles > 6.5)
		fail_msg("%.1f idle exits per execution of the ledger, not about one per wait "
			 "(six):\n%s",
			 idles, r->out);
	io = strstr(r->out, "I/O by port:");
	snprintf(ports, sizeof(ports), "%.*s ", io ? (int)strcspn(io, "\n") : 0, io ? io : "");
	windows = bench_number(r, "irq-window ");
	if (!io || strstr(ports, " 7 ") || windows < 0 || windows > 0.5 ||
	    !strstr(r->out, "by a signal 0.00)"))
		fail_msg("an exit at the seed's old port, %.1f interrupt windows per execution, "
			 "or runs cut by a signal:\n%s",
			 windows, r->out);
}

/* --- counter mode ----------------------------------------------------------- */

static void write_counter_input(const char *path, const char *injections)
{
	write_mode_input(path, "counter", injections);
}

/* The function of the guest program that holds the code address pc (addr2line). */
static void function_at(const char *program, uint64_t pc, char *name, size_t len)
{
	struct run *r = new_run();
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "addr2line -f -e %s %#" PRIx64 " | head -n 1", program, pc);
	sh(cmd, r);
	expect_status(r, 0, NULL);
	snprintf(name, len, "%.*s", (int)strcspn(r->out, "\n"), r->out);
}

/*
 * A preemption placed at event B lands at B, every run, and the run repeats
 * exactly; the trace says where in the program it landed.
 */
static void test_counter_preemption_lands_exactly(void **state)
{
	static const uint64_t want[] = {100, 250};
	struct run *a = new_run(), *b = new_run();
	uint64_t blocks[64], why[64], pc[64], blocks_b[64], why_b[64], pc_b[64];
	char ta[19], tb[19], function[128];
	size_t n, injected = 0;

	(void)state;
	write_counter_input(DIR "/preempt", "{\"block\":100,\"kind\":\"preempt\"},"
					    "{\"block\":250,\"kind\":\"preempt\"}");
	sh(HARNESS " --trace " DIR "/preempt-a.trace " DIR "/preempt -- /tests/lost_update", a);
	sh(HARNESS " --trace " DIR "/preempt-b.trace " DIR "/preempt -- /tests/lost_update", b);
	print_message("%s", a->err);
	trace_of(a, ta);
	trace_of(b, tb);
	assert_string_equal(ta, tb);
	assert_int_equal(a->status, b->status);
	n = preempts_in_trace(DIR "/preempt-a.trace", blocks, why, pc, 64);
	assert_int_equal(preempts_in_trace(DIR "/preempt-b.trace", blocks_b, why_b, pc_b, 64), n);
	for (size_t i = 0; i < n; i++) {
		function_at("build/guest/bin/tests/lost_update", pc[i], function, sizeof(function));
		print_message("preempted at block %llu (%s), at %#llx in %s()\n",
			      (unsigned long long)blocks[i], why[i] ? "time slice" : "injection",
			      (unsigned long long)pc[i], function);
		assert_int_equal(blocks_b[i], blocks[i]);
		assert_int_equal(pc_b[i], pc[i]);
		/* the landing is an event of the test program, not of libc or the runtime */
		assert_true(strcmp(function, "main") == 0 || strcmp(function, "worker") == 0);
		if (why[i] == 0) {
			assert_true(injected < 2);
			assert_int_equal(blocks[i], want[injected]);
			injected++;
		}
	}
	assert_int_equal(injected, 2);
}

/* --- single-step offsets (preempt-insns) ------------------------------------ */

/* /bin/tally's worker announces itself at this step; its counting loop follows (guest/tally.c). */
#define TALLY_WORKER_STEP 4
#define TALLY_MAX_INSNS	  30

/* The instruction counts (preempt-insns) of the failures afl-showmap saved in dir. */
static size_t failing_insns(const char *dir, unsigned int *insns, size_t max)
{
	struct run *r = new_run();
	char cmd[256];
	size_t n = 0;

	snprintf(cmd, sizeof(cmd),
		 "cat %s/signal-*.json | sed -n 's/.*\"insns\":[^0-9]*\\([0-9]*\\).*/\\1/p'", dir);
	sh(cmd, r);
	expect_status(r, 0, NULL);
	for (char *line = strtok(r->out, "\n"); line && n < max; line = strtok(NULL, "\n"))
		insns[n++] = (unsigned int)strtoul(line, NULL, 10);
	return n;
}

/* Runs /bin/tally on a preempt-insns input; returns its landing address (the trace's). */
static uint64_t tally_landing(unsigned int insns, struct run *r)
{
	uint64_t blocks[4], why[4], pc[4];
	char inj[128], path[128], cmd[512];

	snprintf(inj, sizeof(inj), "{\"step\":%d,\"kind\":\"preempt-insns\",\"insns\":%u}",
		 TALLY_WORKER_STEP, insns);
	snprintf(path, sizeof(path), DIR "/tally-%u", insns);
	write_input(path, inj);
	snprintf(cmd, sizeof(cmd),
		 HARNESS " --artifacts " DIR "/tally-art --trace %s.trace %s -- /bin/tally", path,
		 path);
	sh(cmd, r);
	snprintf(path + strlen(path), sizeof(path) - strlen(path), ".trace");
	assert_int_equal(preempts_in_trace(path, blocks, why, pc, 4), 1);
	assert_int_equal(why[0], PREEMPT_WHY_INSNS);
	return pc[0];
}

/* Runs /bin/tally with preempt-insns 1..30 after the worker's announcement, in one
 * afl-showmap process; the failures' artifacts go to DIR/insns-art. */
static void scan_tally_offsets(void)
{
	struct run *r = new_run();
	char inj[128], path[128];

	sh("rm -rf " DIR "/insns " DIR "/insns-in " DIR "/insns-art && mkdir -p " DIR "/insns " DIR
	   "/insns-in",
	   r);
	for (unsigned int n = 1; n <= TALLY_MAX_INSNS; n++) {
		snprintf(inj, sizeof(inj), "{\"step\":%d,\"kind\":\"preempt-insns\",\"insns\":%u}",
			 TALLY_WORKER_STEP, n);
		snprintf(path, sizeof(path), DIR "/insns/n%02u", n);
		write_input(path, inj);
	}
	sh("cp " DIR "/insns/n[0-9][0-9] " DIR "/insns-in/ && AFL_SKIP_BIN_CHECK=1 "
	   "AFL_FORKSRV_INIT_TMOUT=120000 AFL_NO_AFFINITY=1 afl-showmap -q -i " DIR
	   "/insns-in -o " DIR "/insns-maps -t 10000 -m none -- " HARNESS_AFL " --artifacts " DIR
	   "/insns-art @@ -- /bin/tally >/dev/null; ls " DIR "/insns-maps | wc -l",
	   r);
	assert_int_equal(strtol(r->out, NULL, 10), TALLY_MAX_INSNS); /* every input ran */
}

/*
 * A single-step offset on an uninstrumented binary lands at one exact
 * instruction: counts 1..30 after the worker's announcement, all run in one
 * afl-showmap process. Some land between the worker's load and store of
 * the tally and lose the updates, the others do not. The first failing
 * count fails on every run at the same address of count(), and one
 * instruction earlier lands elsewhere and passes; the artifact replays
 * exactly.
 */
static void test_single_step_preemption_lands_exactly(void **state)
{
	struct run *r = new_run(), *a = new_run(), *b = new_run();
	unsigned int insns[TALLY_MAX_INSNS], first = TALLY_MAX_INSNS;
	char function[128];
	uint64_t pc_a, pc_b, pc_before;
	size_t failing;

	(void)state;
	scan_tally_offsets();
	failing = failing_insns(DIR "/insns-art", insns, TALLY_MAX_INSNS);
	for (size_t i = 0; i < failing; i++)
		first = insns[i] < first ? insns[i] : first;
	print_message("preempt-insns 1..%d at step %d: %zu distinct failures, the first at %u\n",
		      TALLY_MAX_INSNS, TALLY_WORKER_STEP, failing, first);
	assert_true(failing >= 2 && failing < TALLY_MAX_INSNS && first > 1);

	pc_a = tally_landing(first, a);
	pc_b = tally_landing(first, b);
	expect_status(a, 1, "outcome signal (the job was killed by SIGABRT)");
	expect_status(b, 1, "outcome signal (the job was killed by SIGABRT)");
	assert_true(pc_a == pc_b);
	function_at("build/guest/bin/tally", pc_a, function, sizeof(function));
	print_message("%u instructions: landed at %#" PRIx64 " in %s(), both runs\n", first, pc_a,
		      function);
	assert_string_equal(function, "count");
	pc_before = tally_landing(first - 1, a);
	expect_status(a, 0, "outcome pass");
	assert_true(pc_before != pc_a);

	sh("a=$(ls " DIR "/insns-art/signal-*.json | head -n 1) && " HARNESS
	   " --replay \"$a\" --repeat 5",
	   r);
	expect_status(
		r, 1,
		"replay identical (outcome, step and trace as in the artifact every time, 5 runs");
}

/* The trace hash a replay reports in its last line ("replay identical (..., trace 0x...)"). */
static void replay_trace_of(const struct run *r, char out[19])
{
	const char *t = strstr(r->err, "replay identical");

	assert_non_null(t);
	t = strstr(t, "trace 0x");
	assert_non_null(t);
	memcpy(out, t + 6, 18);
	out[18] = '\0';
}

/*
 * Runs a plain program's unperturbed steps-mode input twice from its
 * keyframe with the given --stuck-ms: it passes, prints line, and both runs
 * are the same; trace gets their hash.
 */
static void passes_twice_unperturbed(struct run *r, const char *stuck_ms, const char *program,
				     const char *line, char trace[19])
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 HARNESS " --stuck-ms %s --replay corpus/ledger/empty --repeat 2 -- %s", stuck_ms,
		 program);
	sh(cmd, r);
	expect_status(r, 0, "same outcome and trace every time, 2 runs");
	assert_non_null(strstr(r->err, "outcome pass"));
	assert_non_null(strstr(r->out, line));
	replay_trace_of(r, trace);
}

/*
 * Determinism of every mode: an input of each mode, with several injections
 * of every kind it allows, gives the same outcome and trace on 20 runs from
 * the keyframe, and the same trace again in a second process that booted
 * its own guest.
 */
static void test_every_mode_repeats_exactly_across_20_runs(void **state)
{
	static const struct {
		const char *mode, *injections, *command;
	} cases[] = {
		{"steps",
		 "{\"step\":3,\"kind\":\"resched\"},{\"step\":9,\"kind\":\"timer-late\","
		 "\"us\":700},{\"step\":21,\"kind\":\"stall\",\"us\":15000},"
		 "{\"step\":30,\"kind\":\"resched\"},{\"step\":21,\"kind\":\"preempt-insns\","
		 "\"insns\":40}",
		 ""},
		{"counter",
		 "{\"block\":40,\"kind\":\"preempt\"},{\"block\":1300,\"kind\":\"preempt\"},"
		 "{\"block\":1900,\"kind\":\"preempt\"},{\"step\":26,\"kind\":\"stall\",\"us\":"
		 "300}",
		 " --slice-blocks 700 -- /tests/depth3_transfer"},
		{"pct",
		 "{\"thread\":1,\"kind\":\"priority\",\"priority\":90},{\"position\":"
		 "1500000000,\"kind\":\"demote\",\"priority\":3},{\"position\":3000000000,"
		 "\"kind\":\"demote\",\"priority\":2},{\"step\":5,\"kind\":\"stall\",\"us\":300},"
		 "{\"step\":8,\"kind\":\"preempt-insns\",\"insns\":30}",
		 " -- /tests/depth3_transfer"},
	};
	struct run *r = new_run(), *again = new_run();
	char path[128], cmd[512], first[19], second[19];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(path, sizeof(path), DIR "/repeat-%s", cases[i].mode);
		write_mode_input(path, cases[i].mode, cases[i].injections);
		snprintf(cmd, sizeof(cmd), HARNESS " --replay %s --repeat 20%s", path,
			 cases[i].command);
		sh(cmd, r);
		/* a passing input repeats too: status 0; a failing one 1 */
		expect_status(r, strstr(r->err, "outcome pass") ? 0 : 1,
			      "replay identical (same outcome and trace every time, 20 runs");
		snprintf(cmd, sizeof(cmd), HARNESS " --replay %s --repeat 1%s", path,
			 cases[i].command);
		sh(cmd, again);
		expect_status(again, r->status, "replay identical");
		replay_trace_of(r, first);
		replay_trace_of(again, second);
		print_message("%s mode: 20 runs, then a fresh boot: trace %s, %s\n", cases[i].mode,
			      first, second);
		assert_string_equal(first, second);
	}
}

/*
 * A thread spinning on a flag: stuck in exit mode (rewind explain names the
 * function it spins in), let go by time slices in counter mode, and in pct
 * mode whichever thread has the higher priority.
 */
static void test_spinning_in_every_mode(void **state)
{
	struct run *r = new_run();

	(void)state;
	sh("rm -rf " DIR "/spin-art && " HARNESS " --stuck-ms 1000 --artifacts " DIR
	   "/spin-art corpus/ledger/empty -- /tests/spin_wait",
	   r);
	expect_status(r, 1, "outcome stuck (stuck in user space at RIP");
	/* explain names the function it spins in, not only the RIP */
	sh(HARNESS " --stuck-ms 1000 --explain " DIR "/spin-art/stuck-????????????????.json", r);
	expect_status(r, 1, NULL);
	/* main's loop, or the runtime's load it calls: where the host noticed */
	assert_non_null(strstr(r->out, "  where: "));
	assert_non_null(strstr(r->out, ") in /tests/spin_wait\n"));
	write_counter_input(DIR "/counter-empty", "");
	sh(HARNESS " " DIR "/counter-empty -- /tests/spin_wait", r);
	expect_status(r, 0, "outcome pass");
	assert_non_null(strstr(r->out, "spin_wait: the flag came after some spins"));
	assert_non_null(strstr(r->err, " events,"));
	for (int seed = 0; seed < 4; seed++) { /* the spinner first, or the setter */
		char cmd[512];

		snprintf(cmd, sizeof(cmd),
			 "printf '{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"pct\","
			 "\"seed\":\"%d\",\"injections\":[]}' >" DIR "/pct-spin.json && " HARNESS
			 " --from-json " DIR "/pct-spin.json -o " DIR "/pct-spin && " HARNESS
			 " " DIR "/pct-spin -- /tests/spin_wait",
			 seed);
		sh(cmd, r);
		expect_status(r, 0, "outcome pass");
	}
}

/*
 * guest/tests/lone_sieve.c: a single-threaded computation with no system
 * call for longer than a small stuck budget (1.5 s and more in the KVM
 * box). It is the job's only task and no other task is runnable
 * (linux/patches/0019): it computes, and the watchdog lets it go on. Before,
 * with --stuck-ms 10 in the box, it ended "stuck in user space". It passes,
 * and its run, kicked by the watchdog every tick or never, is the same run.
 * (guest/tests/spin_wait.c, whose spinner waits for a sleeping thread, is
 * still stuck: test_spinning_in_every_mode.)
 */
static void test_a_lone_computation_is_never_stuck(void **state)
{
	struct run *r = new_run();
	char kicked[19], quiet[19];

	(void)state;
	passes_twice_unperturbed(r, "10", "/tests/plain/lone_sieve",
				 "lone_sieve: 295947 primes below 4194304\n", kicked);
	sh(HARNESS " --stuck-ms 600000 --replay corpus/ledger/empty -- /tests/plain/lone_sieve", r);
	expect_status(r, 0, "outcome pass");
	replay_trace_of(r, quiet);
	assert_string_equal(kicked, quiet);
}

/*
 * A correct wait in a sched_yield() loop (guest/tests/yield_wait.c) in pct
 * mode: the yield drops the waiting thread below the other, so it passes
 * at once whichever thread has the higher priority. Without that, the
 * higher-priority waiter yielded straight back to itself until the
 * 200,000-event slice or the wall budget ended it (a false timeout).
 */
static void test_a_yield_loop_lets_the_other_thread_run(void **state)
{
	struct run *r = new_run();

	(void)state;
	for (int seed = 0; seed < 4; seed++) {
		char cmd[512];
		const char *at;
		unsigned long step = 0, events = 0;

		snprintf(cmd, sizeof(cmd),
			 "printf '{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"pct\","
			 "\"seed\":\"%d\",\"injections\":[]}' >" DIR "/pct-yield.json && " HARNESS
			 " --from-json " DIR "/pct-yield.json -o " DIR "/pct-yield && " HARNESS
			 " " DIR "/pct-yield -- /tests/yield_wait",
			 seed);
		sh(cmd, r);
		expect_status(r, 0, "outcome pass at step ");
		assert_non_null(strstr(r->out, "yield_wait: 8 jobs, total 36"));
		at = strstr(r->err, "outcome pass at step ");
		assert_int_equal(sscanf(at, "outcome pass at step %lu, %lu events", &step, &events),
				 2);
		assert_true(events < 1000); /* no time slice was needed: none is under 200,000 */
	}
	sh(HARNESS " --random 100 --pct --random-seed 5 --artifacts " DIR "/yield-art -- "
		   "/tests/yield_wait",
	   r);
	expect_status(r, 0, NULL); /* no failure found */
	assert_non_null(strstr(r->out, "random: no failure in 100 executions"));
}

/*
 * A correct busy-wait on a flag (guest/tests/flag_wait.c) in pct mode: the
 * runtime sees the waiting thread's loads find the same value again and
 * again and yields for it (guest/runtime/spin.c), so each of the 16 waits
 * costs a few hundred events. Before, each lasted until the VMM's time
 * slice: 3,000,007 events a run (counter mode: 141,919; 150,007 when its
 * slices were all 10,000 events long).
 */
static void test_a_spin_on_a_flag_lets_the_other_thread_run(void **state)
{
	struct run *r = new_run();
	unsigned long events[2] = {0, 0};

	(void)state;
	for (int pct = 0; pct < 2; pct++) {
		const char *at;
		unsigned long step = 0;

		write_mode_input(DIR "/flag", pct ? "pct" : "counter", "");
		sh(HARNESS " " DIR "/flag -- /tests/flag_wait", r);
		expect_status(r, 0, "outcome pass at step ");
		assert_non_null(strstr(r->out, "flag_wait: 8 jobs, total 36"));
		at = strstr(r->err, "outcome pass at step ");
		assert_int_equal(
			sscanf(at, "outcome pass at step %lu, %lu events", &step, &events[pct]), 2);
	}
	print_message("flag_wait: %lu events in counter mode, %lu in pct mode\n", events[0],
		      events[1]);
	assert_true(events[1] < 10000);
	assert_true(events[1] * 3 < events[0]);
	sh(HARNESS " --random 100 --pct --random-seed 5 --artifacts " DIR "/flag-art -- "
		   "/tests/flag_wait",
	   r);
	expect_status(r, 0, NULL); /* no failure found */
	assert_non_null(strstr(r->out, "random: no failure in 100 executions"));
}

/*
 * `--random N` over each of runs (harness options and command): no failure
 * in N executions, and no stuck run (a timeout, host-timed on a loaded
 * machine, is no failure; stuck is).
 */
static void expect_never_stuck(const char *const *runs, size_t count, int executions)
{
	struct run *r = new_run();
	char cmd[512], none[64];

	snprintf(none, sizeof(none), "random: no failure in %d executions", executions);
	for (size_t i = 0; i < count; i++) {
		snprintf(cmd, sizeof(cmd),
			 HARNESS " --random %d --random-seed 1 --stuck-ms 10000 --artifacts " DIR
				 "/never-stuck-art %s",
			 executions, runs[i]);
		sh(cmd, r);
		expect_status(r, 0, NULL);
		assert_non_null(strstr(r->out, none));
		assert_null(strstr(r->out, "stuck"));
	}
}

/*
 * Threads that exit together (guest/tests/pool_shutdown.c: pools of 16
 * named workers that leave at once, then a child process that exits while
 * its pool is leaving) make the kernel flush their /proc entries at once,
 * and a task that meets another's half-released entry waits for it in a
 * kernel loop with no exit (shrink_dcache_parent). The guest kernel lets
 * time pass in such a loop and yields there under priorities
 * (linux/patches/0017): no run is "stuck in the guest kernel" in 30
 * executions each of pct mode, counter mode and the plain build in pct
 * mode. Before, the first pct sample was. bench/no-false-alarms runs it
 * 10,000 times a mode by default (pct, walks, counter mode;
 * REWIND_BENCH_PLAIN=1: the plain build, pct mode).
 */
static void test_threads_that_exit_together_are_never_stuck(void **state)
{
	static const char *const runs[] = {
		"--pct -- /tests/pool_shutdown",
		"--counter -- /tests/pool_shutdown",
		"--pct -- /tests/plain/pool_shutdown",
	};

	(void)state;
	expect_never_stuck(runs, sizeof(runs) / sizeof(runs[0]), 30);
}

/*
 * guest/tests/batch_count.c: main spins on a count on its own stack that
 * the workers count down with atomics. A thread's own stack makes no
 * events, but an atomic anywhere does (guest/runtime/tsan.c): without it
 * main's spin made none, never gave the CPU away, and every run ended
 * stuck. guest/tests/done_poll.c polls a volatile count on its own stack
 * that the workers add to under a mutex: a volatile access is an event
 * wherever it is too (guest/rewind-cc compiles with
 * tsan-distinguish-volatile); before, its unperturbed pct run (a search's
 * first execution) was stuck. No run of either mode may now be stuck or
 * fail, and the unperturbed run passes (349 events) and replays.
 */
static void test_a_wait_on_a_count_on_the_stack_is_never_stuck(void **state)
{
	static const char *const runs[] = {
		"--pct -- /tests/batch_count", "--counter -- /tests/batch_count",
		"--pct -- /tests/done_poll", "--counter -- /tests/done_poll"};
	struct run *r = new_run();

	(void)state;
	sh(HARNESS " --stuck-ms 10000 --replay corpus/pct/empty --repeat 2 -- /tests/done_poll", r);
	expect_status(r, 0, "same outcome and trace every time, 2 runs");
	assert_non_null(strstr(r->err, "outcome pass"));
	expect_never_stuck(runs, sizeof(runs) / sizeof(runs[0]), 20);
}

/*
 * The plain builds (no Rewind code) of the same wait, and of one that polls
 * a volatile count with plain loads (guest/tests/done_poll.c): no atomic is
 * an event there, but a page of main's stack that a worker wrote is shared
 * memory for main too (linux/patches/0018), so main's spin makes events,
 * is recognised, and yields. Before, main's loads of its own stack made
 * none: the unperturbed pct run of each (a search's first execution) was
 * stuck at main's spin (no exit for 8000 ms), though seed 1's 20 samples
 * passed (200 and 180 events a run). Now that run passes (520 and 369
 * events) and replays identically, and no sample is stuck (351 and 293
 * events a run on average). A spin that starts before any worker has
 * written to the page is still no event.
 */
static void test_a_plain_wait_on_a_count_on_the_stack_is_never_stuck(void **state)
{
	static const char *const commands[] = {"/tests/plain/batch_count",
					       "/tests/plain/done_poll"};
	static const char *const runs[] = {"--pct -- /tests/plain/batch_count",
					   "--pct -- /tests/plain/done_poll"};
	struct run *r = new_run();
	char cmd[256];

	(void)state;
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		snprintf(cmd, sizeof(cmd),
			 HARNESS " --stuck-ms 10000 --replay corpus/pct/empty --repeat 2 -- %s",
			 commands[i]);
		sh(cmd, r);
		expect_status(r, 0, "same outcome and trace every time, 2 runs");
		assert_non_null(strstr(r->err, "outcome pass"));
	}
	expect_never_stuck(runs, sizeof(runs) / sizeof(runs[0]), 20);
}

/*
 * guest/tests/start_wait.c built plainly: main spins on a flag in a struct
 * on its own stack before the worker it hands the struct to has run at
 * all, so no other thread has written to that page yet. While a thread it
 * created has not run, the guest kernel watches a thread's own-stack loads
 * for a spin (linux/patches/0020, no events added): main's spin is
 * recognised and yields, and the worker runs. Before, the unperturbed pct
 * run (a search's first execution) was stuck at main's spin (step 7,
 * replay identical), though seed 1's 20 samples passed (33 events a run).
 * Now that run passes (25 events) and replays identically, and no sample
 * is stuck (60 events a run on average).
 */
static void test_a_plain_wait_for_a_thread_to_start_is_never_stuck(void **state)
{
	static const char *const runs[] = {"--pct -- /tests/plain/start_wait"};
	struct run *r = new_run();

	(void)state;
	sh(HARNESS " --stuck-ms 10000 --replay corpus/pct/empty --repeat 2 "
		   "-- /tests/plain/start_wait",
	   r);
	expect_status(r, 0, "same outcome and trace every time, 2 runs");
	assert_non_null(strstr(r->err, "outcome pass"));
	expect_never_stuck(runs, 1, 20);
}

/*
 * guest/tests/spawn_queue.c built plainly, GLib's /thread_pool/create_full
 * in small: main pushes a job and spins, with no system call, on a counter
 * in its own frame until a worker the spawner thread created counts it.
 * The spin makes no exit and no event: before, exit mode ended it stuck at
 * step 3 (2 tasks runnable). The VMM finds the spin's fixed point (the
 * same instruction and registers, no write between: vmm/spin_rescue.c) and
 * yields the task there, a spin_yield record in the trace. When the host
 * looks does not change the run: a rescue budget of 30 ms and one of
 * 1500 ms give the trace of the default's. No pct sample is stuck.
 */
static void test_a_pure_spin_is_yielded_at_its_fixed_point(void **state)
{
	static const char *const runs[] = {"--pct -- /tests/plain/spawn_queue",
					   "-- /tests/plain/spawn_queue"};
	static const char *const budgets[] = {"30", "1500"};
	struct run *r = new_run();
	char first[19], other[19], cmd[512];

	(void)state;
	passes_twice_unperturbed(r, "10000", "/tests/plain/spawn_queue",
				 "spawn_queue: 3 jobs started\n", first);
	for (size_t i = 0; i < sizeof(budgets) / sizeof(budgets[0]); i++) {
		snprintf(cmd, sizeof(cmd),
			 "REWIND_RESCUE_MS=%s " HARNESS " --stuck-ms 10000 --replay "
			 "corpus/ledger/empty -- /tests/plain/spawn_queue",
			 budgets[i]);
		sh(cmd, r);
		expect_status(r, 0, "outcome pass");
		replay_trace_of(r, other);
		assert_string_equal(first, other);
	}
	sh("rm -rf " DIR "/spawn-run && build/bin/rewind run --out " DIR
	   "/spawn-run -- /tests/plain/spawn_queue && build/bin/rewind trace " DIR
	   "/spawn-run/trace.bin",
	   r);
	expect_status(r, 0, NULL);
	assert_non_null(strstr(r->out, "\"type\":\"spin_yield\""));
	expect_never_stuck(runs, sizeof(runs) / sizeof(runs[0]), 20);
}

/*
 * guest/tests/busy_count.c built plainly: main counts its turns in memory
 * while it waits for a thread that sleeps. Each turn writes memory, so the
 * spin has no fixed point, and nothing makes time pass: stuck, as before,
 * and the detail says why the rescue let it be.
 */
static void test_a_spin_that_writes_memory_is_still_stuck(void **state)
{
	struct run *r = new_run();

	(void)state;
	sh(HARNESS " --stuck-ms 1000 --replay corpus/ledger/empty -- /tests/plain/busy_count", r);
	expect_status(r, 1, "outcome stuck (stuck in user space at RIP");
	assert_non_null(strstr(r->err, "; not a pure spin where the rescue looked"));
}

/*
 * guest/tests/hup_poller.c built plainly, nng's poller in small: a socket
 * registered with epoll before main listens reports EPOLLHUP at once, so
 * the poller thread's epoll_wait returns again and again, a loop of system
 * calls with no exit, until main calls listen(). The guest kernel counts
 * such calls as it counts a kernel loop's cond_resched() and lets time pass
 * past the first 1,024 (linux/patches/0021): the tick lets main run. Before,
 * steps mode ended it "stuck in the guest kernel" at step 25. No pct or
 * exit-mode sample is stuck.
 */
static void test_a_poller_whose_wait_returns_at_once_is_never_stuck(void **state)
{
	static const char *const runs[] = {"--pct -- /tests/plain/hup_poller",
					   "-- /tests/plain/hup_poller"};
	struct run *r = new_run();

	(void)state;
	sh("build/bin/rewind run --repeat 1 --stuck-ms 10000 -- /tests/plain/hup_poller", r);
	expect_status(r, 0, "1 repeats from the keyframe, identical traces");
	assert_non_null(strstr(r->out, "hup_poller: accepted 1 connection\n"));
	assert_non_null(strstr(r->err, " exited status 0 steps "));
	expect_never_stuck(runs, sizeof(runs) / sizeof(runs[0]), 20);
}

/*
 * guest/tests/emulated_tas.c: a spin lock on a test-and-set emulated
 * under a mutex (libatomic_ops' pthread build). A waiter stores the SET it
 * found in every turn of its spin, with the mutex held. The runtime takes
 * that store for no change, and yields for the spin once the waiter has
 * released the mutex (guest/runtime/spin.c): no pct sample waits for the
 * VMM's 200,000-event slice (these 20: 9,899 events a run, 13,507 at
 * most). Before, a store took the address out, the spin was never seen,
 * and the samples ran to 611,466 events (mean 291,081); yielding with the
 * mutex held, one of 40 samples ran to 10,205,915.
 */
static void test_a_spin_on_an_emulated_test_and_set_yields(void **state)
{
	static const char *const counter[] = {"--counter -- /tests/emulated_tas"};
	struct run *r = new_run();
	unsigned long mean = 0, max = 0;
	const char *at;

	(void)state;
	expect_never_stuck(counter, 1, 20);
	sh(HARNESS " --random 20 --pct --random-seed 1 --stuck-ms 10000 --artifacts " DIR
		   "/tas-art -- /tests/emulated_tas",
	   r);
	expect_status(r, 0, NULL);
	assert_non_null(strstr(r->out, "random: no failure in 20 executions"));
	assert_null(strstr(r->out, "stuck"));
	at = strstr(r->out, "events a run: mean ");
	assert_non_null(at);
	assert_int_equal(sscanf(at, "events a run: mean %lu, max %lu", &mean, &max), 2);
	print_message("emulated_tas: pct samples, events a run: mean %lu, max %lu\n", mean, max);
	assert_true(max < 100000);
}

/*
 * `emulated_tas 5 10000` (guest/tests/emulated_tas.c as libatomic_ops'
 * test_atomic_pthreads has it, in small: five threads, a spin lock whose
 * test-and-set is emulated under a mutex, 4 events a turn, 10,000 rounds
 * each) under `rewind run`: counter mode with the default slice of 10,000
 * events. Each slice's length varies (between 5,000 and 15,000,
 * vmm/counter.c slice_length), so a slice ends anywhere in a turn and the
 * holder gets the mutex: exited 0 in 341 steps, a 94 KB trace. Before,
 * every slice was 10,000 events, a multiple of the turn: 1,964 of the
 * first 1,981 slices ended at the same load with the mutex held, and the
 * run ran out of its 4,000 steps (19,810,000 events, 720 KB of trace), on
 * its way to the 64 MiB trace budget.
 */
static void test_counter_mode_slices_do_not_line_up_with_a_spin(void **state)
{
	struct run *r = new_run();
	long size = -1;
	const char *at;

	(void)state;
	sh("rm -rf " DIR "/tas-five && build/tests/rewind-asan run --step-budget 4000 --out " DIR
	   "/tas-five -- /tests/emulated_tas 5 10000 && stat -c 'trace.bin %s' " DIR
	   "/tas-five/trace.bin",
	   r);
	expect_status(r, 0, " exited status 0 steps ");
	assert_non_null(strstr(r->out, "emulated_tas: 5 threads, 10000 rounds each: 100000\n"));
	at = strstr(r->out, "trace.bin ");
	assert_non_null(at);
	assert_int_equal(sscanf(at, "trace.bin %ld", &size), 1);
	print_message("emulated_tas 5 10000: counter mode, trace %ld bytes\n", size);
	assert_true(size > 0 && size < 256 * 1024);
}

/*
 * The fair continuation (vmm/vm.c step_budget_spent): a pct run still going
 * when its step budget runs out is no livelock yet; it goes on for one more
 * budget under the kernel's fair scheduler. guest/tests/poll_slots.c (a
 * correct pool; pct seed 0 takes 33 job steps) with a budget of 28 steps
 * (the boot takes 22 of them; the runtime's first read, which a pct run
 * needs, comes in the sixth job step): the budget runs out at job step 6, the
 * trace records the switch (a `preempt` record, why `fair`), and the run
 * passes, the same on every run. Counter mode, whose scheduler is the fair
 * one already, has no continuation: with that budget its run is out of
 * steps at job step 6, and passes only as a long job (harness/executor.c
 * run_long: this input is the job's own run).
 */
static void test_a_pct_run_out_of_steps_goes_on_fairly(void **state)
{
	struct run *r = new_run(), *again = new_run();
	const char *at;
	char trace[32];

	(void)state;
	write_mode_input(DIR "/fair", "pct", "");
	sh(HARNESS " " DIR "/fair --step-budget 28 --trace " DIR "/fair.trace -- /tests/poll_slots"
		   " && build/bin/rewind trace --text " DIR "/fair.trace",
	   r);
	expect_status(r, 0, "outcome pass at step ");
	assert_non_null(strstr(r->out, "poll_slots: 6 workers, total 71994000"));
	assert_non_null(strstr(r->out, "preempt    why=fair"));
	at = strstr(r->err, ", trace 0x");
	assert_non_null(at);
	snprintf(trace, sizeof(trace), "%.*s", (int)strcspn(at, "\n"), at);
	sh(HARNESS " " DIR "/fair --step-budget 28 -- /tests/poll_slots", again);
	expect_status(again, 0, "outcome pass at step ");
	assert_non_null(strstr(again->err, trace)); /* the continuation is part of the run */
	write_counter_input(DIR "/fair-counter", "");
	sh(HARNESS " " DIR "/fair-counter --step-budget 28 -- /tests/poll_slots", r);
	expect_status(r, 0, "outcome pass at step ");
}

/*
 * A long job is no livelock (harness/executor.c run_long): /bin/yield 1000
 * makes 1,004 job steps, more than a budget of 400, and its own run (seed
 * 0, no schedule) ends within 8 budgets: the execution runs again with 8
 * times that and passes, the same run, trace included, as with a budget it
 * never meets. A job whose own run does not end in 8 budgets either is a
 * livelock (test_livelock_verdict_ignores_the_wall_budget).
 */
static void test_a_job_longer_than_its_budget_is_no_livelock(void **state)
{
	struct run *r = new_run(), *big = new_run();
	const char *at;
	char trace[32];

	(void)state;
	sh(HARNESS " --step-budget 100000 corpus/ledger/empty -- /bin/yield 1000", big);
	expect_status(big, 0, "outcome pass at step 1004,");
	at = strstr(big->err, ", trace 0x");
	assert_non_null(at);
	snprintf(trace, sizeof(trace), "%.*s", (int)strcspn(at, "\n"), at);
	sh(HARNESS " --step-budget 400 corpus/ledger/empty -- /bin/yield 1000", r);
	expect_status(r, 0, "outcome pass at step 1004,");
	assert_non_null(strstr(r->err, trace));
}

/*
 * The no-feedback baselines of bench/bugs: random inputs of the format,
 * counted; with seed 3 counter-mode inputs and PCT samples both find the
 * lost update at the first execution (deterministically: the
 * same random seed gives the same samples, so the same count every time);
 * with --keep-going all N run, failures counted.
 */
static void test_random_search_runs_and_counts(void **state)
{
	struct run *r = new_run(), *again = new_run();

	(void)state;
	sh(HARNESS " --random 20 --counter --random-seed 3 --artifacts " DIR "/rnd-art -- "
		   "/tests/lost_update",
	   r);
	/* seed 3's first counter-mode input already loses the update: found, 1 */
	expect_status(r, 1, NULL);
	assert_non_null(strstr(r->out, "random: first failure (signal) after 1 executions, "));
	sh(HARNESS " --random 200 --pct --random-seed 3 --artifacts " DIR "/rnd-art -- "
		   "/tests/lost_update",
	   r);
	sh(HARNESS " --random 200 --pct --random-seed 3 --artifacts " DIR "/rnd-art -- "
		   "/tests/lost_update",
	   again);
	expect_status(r, 1, NULL);
	assert_non_null(strstr(r->out, "random: first failure (signal) after 1 executions, "));
	/* the same count both times: only the seconds may differ */
	assert_memory_equal(r->out, again->out, (size_t)(strstr(r->out, " executions") - r->out));
	/* --keep-going: all 6 run past the failures (bench/exec's rate without afl-fuzz) */
	sh(HARNESS " --random 6 --pct --random-seed 3 --keep-going --artifacts " DIR "/rnd-art -- "
		   "/tests/lost_update",
	   r);
	expect_status(r, 1, NULL);
	assert_non_null(strstr(r->out, "random: first failure (signal) after 1 executions, "));
	assert_non_null(strstr(r->out, "random: 6 executions in "));
	assert_null(strstr(r->out, "random: no failure"));
}

/*
 * Walks (pct mode's walk flag, guest/runtime/walk.c): a walk of a
 * many-thread example replays identically (the runtime draws it from the
 * seed, in the guest), and walks drawn with seed 1 find config_publish_10's
 * torn publish within a fixed count (the same seed gives the same walks).
 */
static void test_walks_replay_and_find_a_many_thread_bug(void **state)
{
	struct run *r = new_run();

	(void)state;
	sh("printf '{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"pct\",\"seed\":\"5\","
	   "\"sampler\":\"walk\",\"injections\":[]}' >" DIR "/walk.json && " HARNESS
	   " --from-json " DIR "/walk.json -o " DIR "/walk.bin && " HARNESS " --replay " DIR
	   "/walk.bin --repeat 2 -- /tests/turn_game",
	   r);
	expect_status(r, 0, "same outcome and trace every time, 2 runs");
	sh(HARNESS " --random 50 --walk --random-seed 1 --artifacts " DIR "/walk-art -- "
		   "/tests/config_publish_10",
	   r);
	expect_status(r, 1, NULL);
	assert_non_null(strstr(r->out, "random: first failure (signal) after 1 executions, "));
}

/*
 * Counter mode needs a job built with guest/rewind-cc; pct mode one so
 * built or one that starts a thread (the guest kernel then traps the memory
 * its threads share): a single-threaded plain program has no events at all.
 */
static void test_counter_mode_needs_an_instrumented_job(void **state)
{
	struct run *r = new_run();

	(void)state;
	write_counter_input(DIR "/counter-empty", "");
	sh(HARNESS " " DIR "/counter-empty", r); /* the ledger is built without the runtime */
	expect_status(r, 2, "counter mode needs a job built with guest/rewind-cc");
	sh(HARNESS " corpus/pct/empty -- /bin/hello", r);
	expect_status(r, 2, "never started Rewind's runtime");
	sh(HARNESS " corpus/pct/empty", r); /* the ledger's tellers are threads */
	expect_status(r, 0, "the job is not instrumented: its schedule events are its threads'");
}

/* PCT samples (seed 1) of command fail with failure class cls within samples runs. */
static void pct_samples_find(const char *command, int samples, const char *cls)
{
	struct run *r = new_run();
	char cmd[512], want[128];

	snprintf(cmd, sizeof(cmd),
		 HARNESS " --random %d --pct --random-seed 1 --artifacts " DIR "/samples-art -- %s",
		 samples, command);
	sh(cmd, r);
	expect_status(r, 1, NULL); /* a failure found */
	snprintf(want, sizeof(want), "random: first failure (%s) after ", cls);
	assert_non_null(strstr(r->out, want));
	print_message("%s", r->out);
}

/* The events of a run's outcome line ("..., N events, ..."). */
static unsigned long events_of(const struct run *r)
{
	const char *events = strstr(r->err, " events, ");

	assert_non_null(events);
	while (events > r->err && events[-1] != ' ')
		events--;
	return strtoul(events, NULL, 10);
}

/*
 * Inputs that count racy events (docs/input-format.md, "events": "racy"):
 * reorder_many's twelve hashing threads make thousands of events reading
 * a buffer no other thread writes, and a handful on their shared slots. A
 * run that counts racy events counts those few in full and 1 in 64 of the
 * rest (the same run otherwise: it passes, and gives the same trace every
 * time), so its change points land on the slots: PCT samples that count
 * racy events find the flag-before-data bug with seed 2 within 20, and the
 * artifact replays identically.
 */
static void test_racy_events_count_the_shared_data(void **state)
{
	struct run *all = new_run(), *racy = new_run(), *again = new_run(), *found = new_run();
	char ta[19], tb[19];

	(void)state;
	sh("printf '%s' '{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"pct\","
	   "\"seed\":\"0x0\",\"events\":\"racy\",\"injections\":[]}' >" DIR "/racy.json && " HARNESS
	   " --from-json " DIR "/racy.json -o " DIR "/racy",
	   racy);
	expect_status(racy, 0, NULL);
	sh(HARNESS " corpus/pct/empty -- /tests/reorder_many", all);
	expect_status(all, 0, "outcome pass");
	sh(HARNESS " " DIR "/racy -- /tests/reorder_many", racy);
	expect_status(racy, 0, "outcome pass");
	sh(HARNESS " " DIR "/racy -- /tests/reorder_many", again);
	expect_status(again, 0, "outcome pass");
	print_message("every event: %lu events; racy events: %lu\n", events_of(all),
		      events_of(racy));
	assert_true(events_of(racy) * 10 < events_of(all));
	trace_of(racy, ta);
	trace_of(again, tb);
	assert_string_equal(ta, tb);
	sh("rm -rf " DIR "/racy-art && REWIND_PCT_RACY=8 " HARNESS
	   " --random 20 --pct --random-seed 2 --artifacts " DIR "/racy-art -- /tests/reorder_many",
	   found);
	expect_status(found, 1, NULL); /* a failure found */
	print_message("%s", found->out);
	assert_non_null(strstr(found->out, "random: first failure (signal) after "));
	/* each artifact's failure reproduces: status 1 */
	sh("for f in " DIR "/racy-art/*.json; do " HARNESS
	   " --replay \"$f\"; [ $? = 1 ] || exit 1; "
	   "done",
	   again);
	expect_status(again, 0, "replay identical");
	/* with a progress file, as rewind fuzz's harness runs: the recorded map serves */
	again = new_run();
	sh("for f in " DIR "/racy-art/*.json; do REWIND_PROGRESS_FILE=" DIR
	   "/racy-progress.json " HARNESS " --replay \"$f\"; [ $? = 1 ] || exit 1; done",
	   again);
	expect_status(again, 0, "replay identical");
}

/*
 * Wide priorities (docs/input-format.md): samples with 48 change points
 * draw their threads' priorities in 50..95 and demote them down from 49.
 * They find the lost update, and every artifact, which says "wide",
 * replays identically: a replay that drew the priorities in 16..95 would
 * run another schedule.
 */
static void test_wide_samples_find_and_replay(void **state)
{
	struct run *r = new_run(), *said = new_run(), *again = new_run();

	(void)state;
	sh("rm -rf " DIR "/wide-art && REWIND_PCT_DEPTH=49 " HARNESS
	   " --random 12 --pct --keep-going --random-seed 4 --artifacts " DIR
	   "/wide-art -- /tests/lost_update",
	   r);
	expect_status(r, 1, NULL); /* failures found */
	print_message("%s", r->out);
	assert_non_null(strstr(r->out, "random: first failure (signal) after "));
	sh("for f in " DIR
	   "/wide-art/*.json; do grep -q '\"priorities\":[[:space:]]*\"wide\"' \"$f\" || "
	   "exit 1; done && echo all wide >&2",
	   said);
	expect_status(said, 0, "all wide");
	sh("for f in " DIR "/wide-art/*.json; do " HARNESS
	   " --replay \"$f\"; [ $? = 1 ] || exit 1; "
	   "done",
	   again);
	expect_status(again, 0, "replay identical");
}

/*
 * pct mode for a binary built without Rewind (linux/patches/0016): the
 * guest kernel makes its threads' accesses off their own stacks schedule
 * events, so priorities and change points reach races that make no system
 * call. The same input gives the same run, and PCT samples find the plain
 * build's check-then-act race (deterministically: seed 1's 14th sample).
 */
static void test_pct_mode_traps_a_plain_binarys_shared_memory(void **state)
{
	struct run *a = new_run(), *b = new_run();
	char ta[19], tb[19];

	(void)state;
	sh(HARNESS " corpus/pct/empty -- /tests/plain/check_then_act", a);
	expect_status(a, 0, "the job is not instrumented: its schedule events are its threads'");
	assert_true(events_of(a) > 100); /* lookups, inserts, locks */
	sh(HARNESS " corpus/pct/empty -- /tests/plain/check_then_act", b);
	expect_status(b, 0, NULL);
	trace_of(a, ta);
	trace_of(b, tb);
	assert_string_equal(ta, tb);
	pct_samples_find("/tests/plain/check_then_act", 200, "signal");
}

/*
 * A dynamically linked plain build, as Debian's gcc and glibc make a user's
 * binary: the C library's own plain accesses (a mutex's kind and owner,
 * malloc, thread start-up) are no events, its atomics (the locks
 * themselves) are. The same check-then-act made 1,155 events a run when
 * they counted, four times the static musl build's; now fewer than the
 * static build's (whose C library is inside it and counts), and PCT
 * samples still find the race.
 */
static void test_pct_mode_leaves_a_dynamic_binarys_c_library_out(void **state)
{
	struct run *build = new_run(), *st = new_run(), *dyn = new_run(), *samples = new_run();

	(void)state;
	sh("cc -O2 -g -pthread -o " DIR "/check_then_act_dyn guest/tests/check_then_act.c", build);
	expect_status(build, 0, NULL);
	sh(HARNESS " corpus/pct/empty -- /tests/plain/check_then_act", st);
	expect_status(st, 0, NULL);
	sh(HARNESS " --add " DIR "/check_then_act_dyn corpus/pct/empty -- /bin/check_then_act_dyn",
	   dyn);
	expect_status(dyn, 0, "the job is not instrumented");
	print_message("events a run: static musl %lu, dynamic glibc %lu\n", events_of(st),
		      events_of(dyn));
	assert_true(events_of(dyn) < events_of(st));
	sh(HARNESS " --add " DIR "/check_then_act_dyn --random 100 --pct --random-seed 1 "
		   "--artifacts " DIR "/dyn-art -- /bin/check_then_act_dyn",
	   samples);
	expect_status(samples, 1, NULL); /* a failure found */
	assert_non_null(strstr(samples->out, "random: first failure (signal) after "));
}

/*
 * PCT samples (seed 1) of /tests/plain/NAME fail with failure class cls
 * within 200 runs, and its fixed twin NAME_fixed passes 30.
 */
static void plain_bug_found_and_twin_passes(const char *name, const char *cls)
{
	struct run *r = new_run();
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "/tests/plain/%s", name);
	pct_samples_find(cmd, 200, cls);
	snprintf(cmd, sizeof(cmd),
		 HARNESS " --random 30 --pct --random-seed 1 -- /tests/plain/%s_fixed", name);
	sh(cmd, r);
	expect_status(r, 0, NULL); /* no failure found */
	assert_non_null(strstr(r->out, "random: no failure in 30 executions"));
}

/*
 * A plain `hits++` that gcc -O2 makes one `addq $1, hits(%rip)` is not atomic
 * on a multi-core machine: pct mode splits such an instruction on shared
 * memory into its load and its store, so PCT samples find the lost hit of
 * the plain build; the fixed twin's `lock addq` stays whole and passes.
 */
static void test_pct_mode_splits_a_plain_read_modify_write(void **state)
{
	(void)state;
	plain_bug_found_and_twin_passes("hit_counter", "signal");
}

/* A lost wakeup in a plain build: the caller blocks for ever, every thread blocked. */
static void test_pct_mode_finds_a_plain_lost_wakeup(void **state)
{
	(void)state;
	plain_bug_found_and_twin_passes("lost_wakeup", "deadlock");
}

/*
 * A correct plain program that forks after its threads ran (a test driver's
 * shape): the child's copy of the trapped pages is plain memory to it, the
 * parent's traps go on after the fork, and no schedule fails it.
 */
/* A correct plain command: its pct run prints expected, and `samples` PCT samples never fail. */
static void plain_program_passes(const char *command, const char *expected, int samples)
{
	struct run *r = new_run();
	char cmd[256], said[64];

	snprintf(cmd, sizeof(cmd), HARNESS " corpus/pct/empty -- %s", command);
	sh(cmd, r);
	expect_status(r, 0, "the job is not instrumented");
	assert_non_null(strstr(r->out, expected));
	snprintf(cmd, sizeof(cmd), HARNESS " --random %d --pct --random-seed 1 -- %s", samples,
		 command);
	sh(cmd, r);
	expect_status(r, 0, NULL); /* no failure found */
	snprintf(said, sizeof(said), "random: no failure in %d executions", samples);
	assert_non_null(strstr(r->out, said));
}

static void test_pct_mode_survives_a_fork_of_a_trapped_process(void **state)
{
	(void)state;
	plain_program_passes("/bin/wordfreq", "wordfreq: 14 words, 8 distinct, \"the\" 4 times",
			     30);
}

/*
 * A correct plain program whose threads load and store shared memory at
 * every width, signed and unsigned (/bin/imgstat: bytes, 16-bit fields,
 * sign-extending loads, stores of immediates), checks its own results
 * against one thread's: in pct mode the kernel emulates those accesses
 * (linux/patches/0016), and every result must be what the CPU computes.
 */
static void test_pct_mode_keeps_a_plain_programs_results(void **state)
{
	struct run *r = new_run();

	(void)state;
	sh(HARNESS " corpus/ledger/empty -- /bin/imgstat 3", r); /* steps mode: nothing trapped */
	expect_status(r, 0, "outcome pass");
	assert_non_null(strstr(r->out, "imgstat: 24 rows, checksum 0e1b1c5811af778c"));
	plain_program_passes("/bin/imgstat 3", "imgstat: 24 rows, checksum 0e1b1c5811af778c", 20);
}

/*
 * A plain program that is down to one thread between passes of workers
 * (/bin/passes: a warm-up pass with one worker, then passes of two whose
 * `total += found` can lose an update): while it is alone the kernel makes
 * no events and opens the pages main touches, and the next pass's workers
 * must make events again, or their race is out of reach. Only a pass of
 * two workers can fail. (Closing the pages at the thread's creation, for
 * main's own accesses before a worker first runs, is not what this shows:
 * a worker's first run closes them too.)
 */
static void test_pct_mode_traps_again_after_the_process_was_alone(void **state)
{
	(void)state;
	pct_samples_find("/bin/passes", 200, "signal");
}

/* --- pct mode --------------------------------------------------------------- */

static void write_pct_input(const char *path, const char *injections)
{
	write_mode_input(path, "pct", injections);
}

/*
 * One change point decides the lost update: the first worker (priority 90)
 * runs its loop alone unless a demotion lands inside it, between a load and
 * a store of counter++. The demotion lands in worker(), in the same place on
 * every run; the same schedule without it passes, and so does the schedule
 * whose demotion comes after the first worker's loop.
 */
static void test_pct_one_change_point_finds_the_lost_update(void **state)
{
	struct run *pass = new_run(), *fail = new_run(), *late = new_run(), *again = new_run();
	uint64_t blocks[8], why[8], pc[8], blocks_b[8], why_b[8], pc_b[8];
	char function[128];
	size_t n;
	int i;

	(void)state;
	write_pct_input(DIR "/pct-none", "{\"thread\":1,\"kind\":\"priority\",\"priority\":90},"
					 "{\"thread\":2,\"kind\":\"priority\",\"priority\":50}");
	/* a quarter into the run: inside the first worker's 40,000 events */
	write_pct_input(DIR "/pct-mid", "{\"thread\":1,\"kind\":\"priority\",\"priority\":90},"
					"{\"thread\":2,\"kind\":\"priority\",\"priority\":50},"
					"{\"position\":1073741825,\"kind\":\"demote\","
					"\"priority\":2}");
	/* three quarters in: the first worker is done, the second runs alone */
	write_pct_input(DIR "/pct-late", "{\"thread\":1,\"kind\":\"priority\",\"priority\":90},"
					 "{\"thread\":2,\"kind\":\"priority\",\"priority\":50},"
					 "{\"position\":3221225473,\"kind\":\"demote\","
					 "\"priority\":2}");
	sh(HARNESS " --artifacts " DIR "/pct-art " DIR "/pct-none -- /tests/lost_update", pass);
	expect_status(pass, 0, "outcome pass");
	sh(HARNESS " --artifacts " DIR "/pct-art " DIR "/pct-late -- /tests/lost_update", late);
	expect_status(late, 0, "outcome pass");
	sh(HARNESS " --artifacts " DIR "/pct-art --trace " DIR "/pct-a.trace " DIR
		   "/pct-mid -- /tests/lost_update",
	   fail);
	sh(HARNESS " --artifacts " DIR "/pct-art --trace " DIR "/pct-b.trace " DIR
		   "/pct-mid -- /tests/lost_update",
	   again);
	print_message("%s%s", fail->err, pass->err);
	expect_status(fail, 1, "outcome signal (the job was killed by SIGABRT)");
	assert_non_null(strstr(fail->out, "lost_update: counter is "));
	assert_string_equal(strstr(fail->err, "rewind-harness: outcome"),
			    strstr(again->err, "rewind-harness: outcome"));
	n = preempts_in_trace(DIR "/pct-a.trace", blocks, why, pc, 8);
	assert_int_equal(preempts_in_trace(DIR "/pct-b.trace", blocks_b, why_b, pc_b, 8), n);
	for (i = 0; i < (int)n && why[i] != PREEMPT_WHY_DEMOTE; i++)
		;
	assert_true(i < (int)n);
	assert_int_equal(pc_b[i], pc[i]);
	assert_int_equal(blocks_b[i], blocks[i]);
	function_at("build/guest/bin/tests/lost_update", pc[i], function, sizeof(function));
	print_message("the demotion landed at event %llu, %#llx in %s()\n",
		      (unsigned long long)blocks[i], (unsigned long long)pc[i], function);
	assert_string_equal(function, "worker");
	/* the runtime's reads-from features reached the harness */
	assert_non_null(strstr(pass->err, " interleaving features,"));
	assert_non_null(strstr(fail->err, " interleaving features,"));
}

/*
 * A test program with its own runner (guest/tests/forked_suite.c: a fork
 * and an exec of itself per test, as libuv's runner does): the runner waits
 * holding a countdown of its own, which the child's reads must not count
 * as run. Before the VMM kept a countdown per process, the unperturbed run
 * counted 800,451 events (each child's first read took the runner's unused
 * time slice as run), nearly every change point fell due at a child's start,
 * and 1,500 PCT samples (seeds 1-5) never found the lost update in the
 * "stats" child; with a countdown per process 997 events, found at the
 * 8th-32nd sample, and 883 once a process with one thread makes no events
 * (the runner, each child before its workers and after the join): the
 * 1st-24th. The event log's run is the same run (it answers each
 * process's reads apart too). The plain build's bug was out of reach: the
 * kernel trapped only the first child that made threads.
 */
static void test_pct_mode_counts_a_runners_and_its_childs_events_apart(void **state)
{
	struct run *r = new_run(), *logged = new_run();
	char trace[19], logged_trace[19];
	unsigned long step = 0, events = 0;
	const char *at;

	(void)state;
	sh(HARNESS " corpus/pct/empty -- /tests/forked_suite", r);
	expect_status(r, 0, "outcome pass at step ");
	at = strstr(r->err, "outcome pass at step ");
	assert_int_equal(sscanf(at, "outcome pass at step %lu, %lu events", &step, &events), 2);
	assert_true(events < 5000);
	trace_of(r, trace);
	sh(HARNESS " --event-log " DIR
		   "/forked-events.jsonl corpus/pct/empty -- /tests/forked_suite",
	   logged);
	expect_status(logged, 0, "outcome pass at step ");
	trace_of(logged, logged_trace);
	assert_string_equal(trace, logged_trace);
	pct_samples_find("/tests/forked_suite", 100, "exit");
	/* plain: the kernel traps each child that makes threads in turn */
	pct_samples_find("/tests/plain/forked_suite", 300, "exit");
}

/*
 * An uninstrumented job whose threads make no system call side by side gets
 * a warning that names the way out; one whose threads exit to the VMM (one
 * log line each) does not, nor does a search that runs no steps-mode input.
 */
static void test_unreachable_threads_are_warned_about(void **state)
{
	struct run *r = new_run();

	(void)state;
	sh(HARNESS " corpus/ledger/empty -- /tests/plain/check_then_act", r);
	expect_status(r, 0,
		      "rewind-harness: warning: the job started 2 thread(s) and made no "
		      "exit while two of its threads were alive");
	assert_non_null(strstr(r->err, "guest/rewind-cc"));
	sh(HARNESS " --random 1 --pct --keep-going -- /tests/plain/check_then_act", r);
	assert_non_null(strstr(r->out, "random: 1 executions")); /* found or not */
	assert_null(strstr(r->err, "warning"));
	sh(HARNESS " corpus/ledger/empty -- /tests/plain/lost_update", r);
	expect_status(r, 0, "outcome pass");
	assert_null(strstr(r->err, "warning"));
	sh(HARNESS " corpus/ledger/empty -- /tests/check_then_act", r); /* instrumented */
	expect_status(r, 0, "outcome pass");
	assert_null(strstr(r->err, "warning"));
}

/* --- the forkserver, played as afl-fuzz 4.04c plays it -------------------- */

struct afl_side {
	pid_t pid;
	int ctl, st; /* our ends: control (we write), status (we read) */
	int shm_id;
	uint8_t *map;
	size_t shm_size, map_size;
	int fuzz_id;	   /* testcases in shared memory, or -1 */
	uint8_t *testcase; /* u32 length, then the bytes */
};

static uint32_t get_word(struct afl_side *a)
{
	uint32_t v = 0;

	assert_int_equal(read(a->st, &v, 4), 4);
	return v;
}

static void put_word(struct afl_side *a, uint32_t v)
{
	assert_int_equal(write(a->ctl, &v, 4), 4);
}

static void start_forkserver(struct afl_side *a, size_t shm_size, const char *args)
{
	int ctl[2], st[2];
	char id[16], cmd[1024];

	char fuzz_id[16];

	a->shm_size = shm_size;
	snprintf(fuzz_id, sizeof(fuzz_id), "%d", a->fuzz_id);
	a->shm_id = shmget(IPC_PRIVATE, shm_size, IPC_CREAT | 0600);
	assert_true(a->shm_id >= 0);
	a->map = shmat(a->shm_id, NULL, 0);
	assert_true(a->map != (void *)-1);
	assert_int_equal(pipe(ctl), 0);
	assert_int_equal(pipe(st), 0);
	snprintf(id, sizeof(id), "%d", a->shm_id);
	snprintf(cmd, sizeof(cmd), "exec " HARNESS " %s 2>" DIR "/forkserver.err", args);
	a->pid = fork();
	assert_true(a->pid >= 0);
	if (a->pid == 0) {
		dup2(ctl[0], FORKSRV_FD);
		dup2(st[1], FORKSRV_STATUS_FD);
		/* only these two: afl's ends stay with afl, or EOF never comes */
		close(ctl[0]);
		close(ctl[1]);
		close(st[0]);
		close(st[1]);
		setenv(SHM_ENV, id, 1);
		if (a->fuzz_id >= 0)
			setenv(SHM_FUZZ_ENV, fuzz_id, 1);
		else
			unsetenv(SHM_FUZZ_ENV);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(ctl[0]);
	close(st[1]);
	a->ctl = ctl[1];
	a->st = st[0];
}

static void hello(struct afl_side *a)
{
	uint32_t h = get_word(a);

	assert_int_equal(h & FS_OPT_ENABLED, FS_OPT_ENABLED);
	assert_int_equal(h & FS_OPT_MAPSIZE, FS_OPT_MAPSIZE);
	assert_int_equal(h & FS_OPT_SHDMEM_FUZZ, a->fuzz_id >= 0 ? FS_OPT_SHDMEM_FUZZ : 0);
	a->map_size = FS_OPT_GET_MAPSIZE(h);
	if (a->fuzz_id >= 0)
		put_word(a, FS_OPT_ENABLED | FS_OPT_SHDMEM_FUZZ); /* afl accepts */
}

/* One execution: returns the wait status; the map is afl's to read after. */
static int execute(struct afl_side *a, uint32_t was_killed)
{
	uint32_t pid;

	memset(a->map, 0, a->shm_size);
	put_word(a, was_killed);
	pid = get_word(a);
	assert_true(pid > PID_MAX_LIMIT);
	assert_true(pid != (uint32_t)a->pid);
	return (int)get_word(a);
}

static size_t map_bytes_set(const struct afl_side *a)
{
	size_t n = 0;

	for (size_t i = 0; i < a->map_size; i++)
		n += a->map[i] != 0;
	return n;
}

/* Closes afl's side, waits for the harness, frees the shared memory: its wait status. */
static int end_forkserver(struct afl_side *a)
{
	int raw;

	close(a->ctl);
	assert_int_equal(waitpid(a->pid, &raw, 0), a->pid);
	close(a->st);
	shmdt(a->map);
	shmctl(a->shm_id, IPC_RMID, NULL);
	if (a->fuzz_id >= 0) {
		shmdt(a->testcase);
		shmctl(a->fuzz_id, IPC_RMID, NULL);
	}
	return raw;
}

static void stop_forkserver(struct afl_side *a)
{
	int raw = end_forkserver(a);

	assert_true(WIFEXITED(raw));
	assert_int_equal(WEXITSTATUS(raw), 0);
}

/* The input file's bytes into afl's testcase shared memory. */
static void put_testcase(struct afl_side *a, const char *path)
{
	FILE *f = fopen(path, "rb");
	uint32_t len;

	assert_non_null(f);
	len = (uint32_t)fread(a->testcase + 4, 1, SHM_FUZZ_MAX - 4, f);
	fclose(f);
	memcpy(a->testcase, &len, 4);
}

static void test_forkserver_shared_memory_testcases(void **state)
{
	struct afl_side a = {.fuzz_id = -1};
	char input[256];

	(void)state;
	lost_update_input(input, sizeof(input));
	a.fuzz_id = shmget(IPC_PRIVATE, SHM_FUZZ_MAX, IPC_CREAT | 0600);
	assert_true(a.fuzz_id >= 0);
	a.testcase = shmat(a.fuzz_id, NULL, 0);
	assert_true(a.testcase != (void *)-1);
	/* no @@ file: testcases come in shared memory */
	start_forkserver(&a, 65536, "--artifacts " DIR "/fs-art");
	hello(&a);
	put_testcase(&a, "corpus/ledger/empty");
	assert_int_equal(execute(&a, 0), 0);
	put_testcase(&a, input);
	assert_int_equal(WTERMSIG(execute(&a, 0)), SIGABRT);
	put_testcase(&a, "corpus/ledger/empty");
	assert_int_equal(execute(&a, 0), 0);
	stop_forkserver(&a);
}

/*
 * afl-fuzz re-runs an input it keeps (calibration): the forkserver answers a
 * recent input's pass from its outcome cache with the same map, and counts
 * no execution for it; a failure always runs again (its artifact, its count).
 */
static void test_forkserver_answers_a_rerun_from_its_cache(void **state)
{
	struct afl_side a = {.fuzz_id = -1};
	struct run *r = new_run();
	static uint8_t first[65536];
	char input[256];

	(void)state;
	lost_update_input(input, sizeof(input));
	start_forkserver(&a, 65536,
			 "--artifacts " DIR "/cache-art --progress " DIR "/cache-progress.json " DIR
			 "/current");
	hello(&a);
	assert_int_equal(system("cp corpus/ledger/empty " DIR "/current"), 0);
	assert_int_equal(execute(&a, 0), 0);
	memcpy(first, a.map, a.map_size);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(execute(&a, 0), 0);
		assert_memory_equal(a.map, first, a.map_size);
	}
	assert_int_equal(system("cp " DIR "/lost-update " DIR "/current"), 0);
	assert_int_equal(WTERMSIG(execute(&a, 0)), SIGABRT);
	assert_int_equal(WTERMSIG(execute(&a, 0)), SIGABRT);
	/* the pass once more: still answered, the failures did not evict it */
	assert_int_equal(system("cp corpus/ledger/empty " DIR "/current"), 0);
	assert_int_equal(execute(&a, 0), 0);
	assert_memory_equal(a.map, first, a.map_size);
	stop_forkserver(&a);
	sh("cat " DIR "/cache-progress.json", r);
	print_message("progress: %s", r->out);
	assert_non_null(strstr(r->out, "\"execs\": 3,"));
	assert_non_null(strstr(r->out, "\"failures\": 2,"));
	assert_non_null(strstr(r->out, "\"answered\": 4,"));
	assert_non_null(strstr(r->out, "\"busy_seconds\": ")); /* its time in the 3 runs */
}

/* The number after "key": in text, or -1. */
static long json_number_of(const char *text, const char *key)
{
	char quoted[64];
	const char *at;

	snprintf(quoted, sizeof(quoted), "\"%s\": ", key);
	at = strstr(text, quoted);
	return at ? strtol(at + strlen(quoted), NULL, 10) : -1;
}

/* A racy-events input of lost_wakeup with seed SEED, made into DIR/NAME. */
static void racy_input(const char *name, const char *seed)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "printf '%%s' '{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"pct\","
		 "\"seed\":\"%s\",\"events\":\"racy\",\"injections\":[{\"position\":"
		 "2000000000,\"kind\":\"demote\",\"priority\":2}]}' >" DIR "/%s.json && " HARNESS
		 " --from-json " DIR "/%s.json -o " DIR "/%s",
		 seed, name, name, name);
	assert_int_equal(system(cmd), 0);
}

/*
 * A racy input's key (the high half of its seed) starts the profile
 * samples that learn its sites; afl-fuzz -M/-S instances share entries of
 * their own keys. The forkserver learns each key's map once, three counted
 * samples each, and keeps it: keys 1, 2, 1 cost 6 samples, not 9.
 */
static void test_racy_maps_are_kept_per_key(void **state)
{
	static const char *const seeds[] = {"0x100000005", "0x200000005", "0x100000009"};
	struct afl_side a = {.fuzz_id = -1};
	struct run *r = new_run();

	(void)state;
	for (int i = 0; i < 3; i++) {
		char name[16];

		snprintf(name, sizeof(name), "key-%d", i);
		racy_input(name, seeds[i]);
	}
	start_forkserver(&a, 65536,
			 "--artifacts " DIR "/keys-art --progress " DIR "/keys-progress.json " DIR
			 "/current -- /tests/lost_wakeup");
	hello(&a);
	for (int i = 0; i < 3; i++) {
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "cp " DIR "/key-%d " DIR "/current", i);
		assert_int_equal(system(cmd), 0);
		execute(&a, 0);
	}
	stop_forkserver(&a);
	sh("cat " DIR "/keys-progress.json", r);
	print_message("progress: %s", r->out);
	assert_non_null(strstr(r->out, "\"execs\": 9,"));
	assert_non_null(strstr(r->out, "\"racy_profile_samples\": 6"));
	assert_true(json_number_of(r->out, "pct_racy_events") > 0);
}

/*
 * pct mode's profile run counts the job's events (k, pct_events in the
 * progress file), and every change point of a search is placed on that
 * count: it is the guest's count, which the job's stuck budget (host
 * time) never cuts. Here /bin/dirty first-writes 24 MiB between two runs
 * of check_then_act without an exit: in the KVM box that takes far more
 * than the 10 ms budget of the search below, which used to cut the
 * profile there (322 events of 637), and each execution then placed its
 * change points elsewhere than a replay whose profile ran to the end. The
 * executions themselves are still stuck at that budget: a verdict ends
 * its own run, nothing else.
 */
static void test_a_profile_is_the_guests_whatever_the_stuck_budget(void **state)
{
	static const char job[] = "-- /bin/sh -c '/tests/plain/check_then_act; /bin/dirty 24; "
				  "/tests/plain/check_then_act'";
	struct afl_side a = {.fuzz_id = -1};
	struct run *r = new_run();
	char cmd[1024];
	long searched, whole;

	(void)state;
	write_mode_input(DIR "/profile-demote", "pct",
			 "{\"position\":2000000000,\"kind\":\"demote\",\"priority\":2}");
	snprintf(cmd, sizeof(cmd),
		 "--stuck-ms 10 --artifacts " DIR "/profile-art --progress " DIR
		 "/profile-search.json " DIR "/current %s",
		 job);
	start_forkserver(&a, 65536, cmd);
	hello(&a);
	assert_int_equal(system("cp corpus/pct/empty " DIR "/current"), 0);
	execute(&a, 0);
	assert_int_equal(system("cp " DIR "/profile-demote " DIR "/current"), 0);
	execute(&a, 0);
	stop_forkserver(&a);
	sh("cat " DIR "/profile-search.json", r);
	searched = json_number_of(r->out, "pct_events");
	snprintf(cmd, sizeof(cmd),
		 HARNESS " --stuck-ms 10000 --progress " DIR "/profile-whole.json corpus/pct/empty "
			 "%s && cat " DIR "/profile-whole.json",
		 job);
	sh(cmd, r);
	expect_status(r, 0, "outcome pass");
	whole = json_number_of(r->out, "pct_events");
	print_message("profile: %ld events in the search, %ld alone\n", searched, whole);
	assert_true(whole > 0);
	assert_int_equal(searched, whole);
}

/*
 * An artifact of a pct input records the k its execution ran with
 * ("profile": {"events": K}), and its replay runs with the recorded k,
 * never with what a profile counts on the replay's host. lost_update's
 * first pct sample (seed 3) fails: its artifact replays identically, and
 * without a profile run, since the run's identity is the artifact's (the
 * same run counts the same). With the recorded k edited to half, the
 * replay follows the recorded one (its demotes land elsewhere: another
 * trace, status 3) and says no count: no profile ran to count K. With
 * the recorded kernel hash edited too, the identity differs: the profile
 * runs, and the replay says both counts. Without the record (an artifact
 * of version 3), the replay profiles as before and is identical too.
 */
static void test_an_artifact_replays_with_its_recorded_profile(void **state)
{
	struct run *r = new_run();
	char cmd[1024], want[256];
	long k;

	(void)state;
	sh("rm -rf " DIR "/rec-art && " HARNESS
	   " --random 200 --pct --random-seed 3 --artifacts " DIR "/rec-art -- /tests/lost_update",
	   r);
	expect_status(r, 1, NULL);
	sh("cp " DIR "/rec-art/*.json " DIR "/rec.json && sed -n "
	   "'s/^[[:space:]]*\"events\":[[:space:]]*\\([0-9][0-9]*\\).*/\\1/p' " DIR "/rec.json",
	   r);
	expect_status(r, 0, NULL);
	k = strtol(r->out, NULL, 10);
	print_message("the artifact recorded k = %ld\n", k);
	assert_true(k > 1);
	sh(HARNESS " --replay " DIR "/rec.json", r);
	expect_status(r, 1, "replay identical");
	snprintf(want, sizeof(want),
		 "the run's identity is the artifact's: its recorded profile (%ld events) stands "
		 "for the profile run\n",
		 k);
	assert_non_null(strstr(r->err, want));
	assert_null(strstr(r->err, "the job's profile counted"));
	snprintf(cmd, sizeof(cmd),
		 "sed 's/\\(\"events\":[[:space:]]*\\)%ld/\\1%ld/' " DIR "/rec.json >" DIR
		 "/rec-k.json && " HARNESS " --replay " DIR "/rec-k.json",
		 k, k / 2);
	sh(cmd, r);
	expect_status(r, 3, "differs: trace: artifact ");
	assert_null(strstr(r->err, "the job's profile counted"));
	sh("sed 's/\\(\"kernel_xxh3\":[[:space:]]*\"0x\\)[0-9a-f]*/\\10000000000000000/' " DIR
	   "/rec-k.json >" DIR "/rec-kernel.json && " HARNESS " --replay " DIR "/rec-kernel.json",
	   r);
	snprintf(want, sizeof(want),
		 "the job's profile counted %ld events here, %ld when the failure was found: the "
		 "replay uses %ld\n",
		 k, k / 2, k / 2);
	expect_status(r, 3, want);
	assert_non_null(strstr(r->err, "differs: kernel: the artifact's is 0x0000000000000000"));
	assert_null(strstr(r->err, "stands for the profile run"));
	sh("sed -e '/\"profile\":/,/^[[:space:]]*},/d' -e 's/\"version\":\\([[:space:]]*\\)4,/"
	   "\"version\":\\13,/' " DIR "/rec.json >" DIR "/rec-v3.json && ! grep -q profile " DIR
	   "/rec-v3.json && " HARNESS " --replay " DIR "/rec-v3.json",
	   r);
	expect_status(r, 1, "replay identical");
	assert_null(strstr(r->err, "the job's profile counted"));
}

static void test_forkserver_protocol(void **state)
{
	struct afl_side a = {.fuzz_id = -1};
	char input[256];

	(void)state;
	lost_update_input(input, sizeof(input));
	/* 4 KiB of shared memory: the harness shrinks its 64 KiB map to fit */
	start_forkserver(&a, 4096, "--artifacts " DIR "/fs-art " DIR "/current");
	hello(&a);
	assert_int_equal(a.map_size, 4096);
	for (int round = 0; round < 2; round++) {
		assert_int_equal(system("cp corpus/ledger/empty " DIR "/current"), 0);
		int st = execute(&a, round); /* round 1: "afl killed the last one" */

		assert_int_equal(st, 0);
		assert_true(map_bytes_set(&a) > 10);
		assert_int_equal(system("cp " DIR "/lost-update " DIR "/current"), 0);
		st = execute(&a, 0);
		assert_true(WIFSIGNALED(st));
		assert_int_equal(WTERMSIG(st), SIGABRT);
	}
	assert_int_equal(system("printf garbage >" DIR "/current"), 0);
	assert_int_equal(execute(&a, 0), 0); /* decoded into a passing run: not a crash... */
	assert_true(map_bytes_set(&a) >= 1); /* ...and the map is never empty */
	stop_forkserver(&a);
}

static void test_forkserver_answers_for_a_guest_that_never_exits(void **state)
{
	struct afl_side a = {.fuzz_id = -1};
	int st;

	(void)state;
	/* two threads, one spinning for the other's flag: stuck, a crash for afl-fuzz */
	start_forkserver(&a, 65536, "--stuck-ms 300 " DIR "/current -- /tests/spin_wait");
	hello(&a);
	assert_int_equal(a.map_size, 65536);
	assert_int_equal(system("cp corpus/ledger/empty " DIR "/current"), 0);
	st = execute(&a, 0);
	assert_true(WIFSIGNALED(st));
	st = execute(&a, 1);
	assert_true(WIFSIGNALED(st));
	stop_forkserver(&a);
}

/*
 * The hello comes before the boot: afl-fuzz gives the hello 10 times its
 * -t (10 s by default), less than a boot takes in a loaded box, and waits
 * for the first pid as long as it takes. A job whose guest never gets
 * ready shows the order: the hello arrives, then the harness ends without
 * a pid and says why on stderr (which afl-fuzz shows with AFL_DEBUG_CHILD=1).
 * A missing kernel is still found before the hello.
 */
static void test_forkserver_says_hello_before_the_boot(void **state)
{
	struct afl_side a = {.fuzz_id = -1};
	struct run *r = new_run();
	uint32_t word;
	int raw;

	(void)state;
	assert_int_equal(system("mkdir -p " DIR), 0);
	start_forkserver(&a, 65536, DIR "/current -- /bin/no-such-test");
	hello(&a);
	assert_int_equal(read(a.st, &word, 4), 0); /* the boot failed: the harness ended */
	raw = end_forkserver(&a);
	assert_true(WIFEXITED(raw) && WEXITSTATUS(raw) != 0);
	sh("cat " DIR "/forkserver.err", r);
	print_message("%s", r->out);
	assert_non_null(strstr(r->out, "the guest never got ready for the job"));
	assert_non_null(strstr(r->out, "the job did not start after the hello to afl-fuzz"));

	a = (struct afl_side){.fuzz_id = -1};
	start_forkserver(&a, 65536, "--kernel /no/such/bzImage " DIR "/current");
	assert_int_equal(read(a.st, &word, 4), 0); /* no hello */
	raw = end_forkserver(&a);
	assert_true(WIFEXITED(raw) && WEXITSTATUS(raw) != 0);
	sh("cat " DIR "/forkserver.err", r);
	assert_non_null(strstr(r->out, "no guest kernel at /no/such/bzImage"));
}

/* --- afl-fuzz itself -------------------------------------------------------- */

static double stat_of(const char *stats, const char *name)
{
	const char *at = strstr(stats, name);

	return at ? strtod(strchr(at, ':') + 1, NULL) : -1;
}

static void test_afl_fuzz_finds_the_ledger_bug_and_tmin_shrinks_it(void **state)
{
	struct run *r = new_run(), *t = new_run();
	char cmd[2048];
	double execs, per_sec, stability;

	(void)state;
	/* --afl-opt passes afl-fuzz options through (here its default power schedule) */
	sh("rm -rf " DIR "/afl && REWIND_HARNESS=" HARNESS_AFL
	   " build/bin/rewind fuzz --seconds 300 --afl-opt -p --afl-opt fast --out " DIR "/afl",
	   r);
	expect_status(r, 1, "replay identical");
	assert_non_null(strstr(r->err, " -o " DIR "/afl -p fast -- "));
	sh("cat " DIR "/afl/default/fuzzer_stats", t);
	execs = stat_of(t->out, "execs_done");
	per_sec = stat_of(t->out, "execs_per_sec");
	stability = stat_of(t->out, "stability");
	assert_true(stability == 100.0);
	print_message("afl-fuzz found the lost update: %.0f execs, %.1f exec/s, stability %.2f%%\n",
		      execs, per_sec, stability);
	/* afl-tmin keeps the failure and shrinks the input: afl's crash plus three
	 * injections that change nothing (past the job's end) must lose them */
	snprintf(cmd, sizeof(cmd),
		 "c=$(ls " DIR "/afl/default/crashes/id* | head -n 1) && "
		 "{ cat \"$c\"; printf '\\000\\0\\1\\0\\1\\0\\0\\0"
		 "\\000\\0\\2\\0\\2\\0\\1\\0\\000\\0\\3\\0\\3\\0\\2\\0'; } >" DIR "/padded && "
		 "AFL_FORKSRV_INIT_TMOUT=120000 afl-tmin -t 10000 -m none "
		 "-i " DIR "/padded -o " DIR "/min -- " HARNESS_AFL " --artifacts " DIR
		 "/min-art @@ >" DIR "/tmin.log 2>&1 && wc -c <\"$c\" && wc -c <" DIR
		 "/padded && wc -c <" DIR "/min && " HARNESS " --to-json " DIR
		 "/min >&2 && " HARNESS " --artifacts " DIR "/min-art " DIR "/min >/dev/null");
	sh(cmd, t);
	expect_status(t, 1, "outcome signal (the job was killed by SIGABRT)");
	{
		long crash = -1, before = -1, after = -1;

		assert_int_equal(sscanf(t->out, "%ld %ld %ld", &crash, &before, &after), 3);
		print_message("afl-tmin: %ld (afl's crash + 24 bytes of no-ops) -> %ld bytes\n%s",
			      before, after, t->err);
		assert_true(after < before);
		/* at least the no-ops are gone; the crash's own records stay if needed */
		assert_true(after <= crash);
	}
}

/*
 * rewind fuzz from corpus/CORPUS on COMMAND (a racy example) finds
 * its bug within seconds (at most), the artifact replays and prints what
 * the example says when it fails (said), and stability is 100%.
 */
static void afl_finds(const char *corpus, const char *command, int seconds, const char *said)
{
	struct run *r = new_run(), *t = new_run();
	const char *name = strrchr(command, '/') + 1;
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "rm -rf " DIR "/afl-%s && REWIND_HARNESS=" HARNESS_AFL
		 " build/bin/rewind fuzz --seconds %d --corpus corpus/%s --out " DIR
		 "/afl-%s -- -- %s",
		 name, seconds, corpus, name, command);
	sh(cmd, r);
	expect_status(r, 1, "replay identical");
	assert_non_null(strstr(r->out, said));
	snprintf(cmd, sizeof(cmd), "cat " DIR "/afl-%s/default/fuzzer_stats", name);
	sh(cmd, t);
	print_message("%s mode: %s found after %.0f execs, %.0f s, stability %.2f%%\n",
		      strcmp(corpus, "counter") == 0 ? "counter" : "steps", name,
		      stat_of(t->out, "execs_done"), stat_of(t->out, "run_time"),
		      stat_of(t->out, "stability"));
	assert_true(stat_of(t->out, "stability") == 100.0);
}

/*
 * rewind fuzz with its defaults on an instrumented test (JOB: the job
 * options and -- CMD, as a user types them after rewind fuzz's own): it
 * sees the runtime, searches priority schedules (corpus/pct), reports the
 * first failure the harness saw, with its execution, and exits 1 (a
 * failure found, its replay the same run) into DIR/rf-NAME.
 */
static void rewind_fuzz_finds_job(const char *name, const char *job, int seconds,
				  const char *picked, const char *said)
{
	struct run *r = new_run();
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "rm -rf " DIR "/rf-%s && REWIND_HARNESS=" HARNESS_AFL
		 " build/bin/rewind fuzz --seconds %d --out " DIR "/rf-%s %s",
		 name, seconds, name, job);
	sh(cmd, r);
	expect_status(r, 1, "replay identical");
	assert_non_null(strstr(r->err, picked));
	assert_non_null(strstr(r->out, said));
	assert_non_null(strstr(r->err, "rewind fuzz: why it fails: rewind explain "));
	print_message("%s: %s", job, strstr(r->err, "rewind fuzz: first failure at execution"));
}

/* rewind_fuzz_finds_job on a command of the guest's image: -- COMMAND. */
static void rewind_fuzz_finds(const char *command, int seconds, const char *picked,
			      const char *said)
{
	char job[256];

	snprintf(job, sizeof(job), "-- %s", command);
	rewind_fuzz_finds_job(strrchr(command, '/') + 1, job, seconds, picked, said);
}

/*
 * The plain counter++ race, built with guest/rewind-cc: priority schedules
 * find it at once. The test is added from the host, as a user adds theirs:
 * rewind fuzz takes the job's options directly.
 */
static void test_rewind_fuzz_finds_the_lost_update_with_priority_schedules(void **state)
{
	struct run *r;

	(void)state;
	rewind_fuzz_finds_job("lost_update",
			      "--add build/guest/bin/tests/lost_update:/bin/lost_update -- "
			      "/bin/lost_update",
			      300, "the job is instrumented", "lost_update: counter is ");
	/* the artifacts folder of a fresh run holds artifacts only: all of them replay
	 * (--trust: they add a file from this host, and this test wrote them) */
	r = new_run();
	sh("build/bin/rewind replay " DIR "/rf-lost_update/artifacts/*.json --trust", r);
	expect_status(r, 1, "replay identical");
}

/*
 * The other half of rewind fuzz's contract for CI: a correct test (the
 * fixed hit counter) searched for the whole time exits 0, "no failure".
 */
static void test_rewind_fuzz_exits_0_when_nothing_fails(void **state)
{
	struct run *r = new_run();

	(void)state;
	sh("rm -rf " DIR "/rf-nothing && REWIND_HARNESS=" HARNESS_AFL
	   " build/bin/rewind fuzz --seconds 20 --out " DIR
	   "/rf-nothing -- /tests/hit_counter_fixed",
	   r);
	expect_status(r, 0, "rewind fuzz: no failure found in 20s");
	assert_null(strstr(r->err, "first failure at execution"));
}

/* C++ (std::thread, std::mutex, std::atomic), built with guest/rewind-c++: a wrong lock. */
static void test_rewind_fuzz_finds_the_cxx_bug(void **state)
{
	(void)state;
	rewind_fuzz_finds("/tests/account_cxx", 300, "the job is instrumented",
			  "account_cxx: balance ");
}

/* A request counter of a server over loopback TCP, a thread per connection: a lost update. */
static void test_rewind_fuzz_finds_the_tcp_server_bug(void **state)
{
	(void)state;
	rewind_fuzz_finds("/tests/tcp_stats", 300, "the job is instrumented", "tcp_stats: served ");
}

/* A session table made lazily without its lock, by the handlers of a Unix-socket server. */
static void test_rewind_fuzz_finds_the_unix_socket_server_bug(void **state)
{
	(void)state;
	rewind_fuzz_finds("/tests/unix_sessions", 300, "the job is instrumented",
			  "unix_sessions: 1 sessions for 2 clients");
}

/*
 * Where the site map cuts k, the search draws racy samples from its first
 * (schedule/draw.c racy_sample_due): reorder_many's twelve hashing
 * threads make thousands of events on a buffer no other thread writes, and
 * the harness's free estimate from the k profile says so. The racy profile
 * then makes 3 logged runs, each a PCT sample and counted as an execution
 * (racy_profile_samples), if a racy sample came before the first failure;
 * seed 0's log is the k profile's, so no run searches nothing
 * (racy_profile_runs 0; test_racy_events_count_the_shared_data replays
 * racy artifacts both ways).
 */
static void test_rewind_fuzz_starts_racy_samples_where_the_map_pays(void **state)
{
	struct run *p = new_run();
	long events, estimate, profiles;

	(void)state;
	rewind_fuzz_finds("/tests/reorder_many", 300, "the job is instrumented", "reorder_many: ");
	sh("cat " DIR "/rf-reorder_many/progress.json", p);
	expect_status(p, 0, NULL);
	events = json_number_of(p->out, "pct_events");
	estimate = json_number_of(p->out, "pct_racy_estimate");
	print_message("reorder_many: %ld events, %ld racy by the k profile's estimate\n", events,
		      estimate);
	assert_true(estimate > 0 && estimate * 4 <= events);
	assert_int_equal(json_number_of(p->out, "racy_profile_runs"), 0);
	profiles = json_number_of(p->out, "racy_profile_samples");
	assert_true(profiles == 0 || profiles == 3);
}

/* Bug depth 3: two change points in the right places. */
static void test_rewind_fuzz_finds_the_depth3_bug(void **state)
{
	(void)state;
	rewind_fuzz_finds("/tests/depth3_transfer", 600, "the job is instrumented",
			  "depth3_transfer: ");
}

/*
 * The check-then-act race built plainly (no Rewind code): rewind fuzz picks
 * pct mode over its threads' accesses off their own stacks. (The plain lost_update makes
 * 80,000 events a run, each a fault and a single step: seconds a run in the
 * box.)
 */
static void test_rewind_fuzz_finds_the_uninstrumented_check_then_act(void **state)
{
	(void)state;
	rewind_fuzz_finds("/tests/plain/check_then_act", 300, "the job is not instrumented",
			  "check_then_act: carol registered twice");
}

/*
 * The bundled ledger given as a user's plain job (-- /bin/ledger: no Rewind
 * code, threads): pct mode over its accesses, and the mutator's fresh
 * samples shared between PCT and stalls at exits, which reach its race
 * across a write() in a few executions (priority schedules alone took
 * thousands).
 */
static void test_rewind_fuzz_finds_the_ledger_given_as_a_plain_job(void **state)
{
	(void)state;
	rewind_fuzz_finds("/bin/ledger", 300, "the job is not instrumented", "ledger: lost update");
}

/*
 * The mission's own command line: plain afl-fuzz, no custom mutator and no
 * AFL_* variable, finds the lost update (its byte mutations decoded into
 * schedules). It is stopped once the harness has noted its first failure
 * (in its --progress file), or when afl-fuzz ends by itself after about
 * 20,000 executions (-E): a count bounds the search, not the wall clock
 * (a 300 s wait ran out once with both host cores busy; in the box it finds
 * the bug within 5-19 executions).
 */
static void test_plain_afl_fuzz_finds_the_lost_update(void **state)
{
	struct run *r = new_run();

	(void)state;
	sh("rm -rf " DIR "/plain " DIR "/plain-art " DIR "/plain-progress.json && { env -u "
	   "AFL_NO_UI afl-fuzz -E 20000 -i corpus/pct -o " DIR "/plain -- " HARNESS_AFL
	   " --artifacts " DIR "/plain-art --progress " DIR "/plain-progress.json @@ -- "
	   "/tests/lost_update >" DIR "/plain.log 2>&1 & pid=$!; while kill -0 $pid 2>/dev/null; "
	   "do grep -q first_failure " DIR "/plain-progress.json 2>/dev/null && break; sleep 1; "
	   "done; kill $pid 2>/dev/null; wait $pid; "
	   "cat " DIR "/plain-progress.json; ls " DIR "/plain-art; }",
	   r);
	print_message("plain afl-fuzz: %s", r->out);
	assert_non_null(strstr(r->out, "\"first_failure\": {\"execution\": "));
	assert_non_null(strstr(r->out, "\"class\": \"signal\""));
	/* the artifacts folder holds artifacts only: each of them replays */
	assert_null(strstr(r->out, "first-failure.json"));
}

/*
 * Steps mode, an uninstrumented binary: afl-fuzz finds the lost update of
 * /bin/tally with a single-step offset (the mutator's preempt-insns).
 */
static void test_afl_fuzz_finds_a_lost_update_by_single_stepping(void **state)
{
	(void)state;
	afl_finds("ledger", "/bin/tally", 600, "tally: lost ");
}

/* --- explaining a failure, honest replay, untrusted artifacts, bundles ----- */

/* Runs --explain on path (with extra options); its text on stdout. */
static void explain(const char *path, const char *extra, struct run *r)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), HARNESS " --explain %s%s", path, extra);
	sh(cmd, r);
	print_message("%s", r->out);
	expect_status(r, 1, NULL); /* it fails, and is explained */
}

static void expect_out(const struct run *r, const char *want)
{
	if (!strstr(r->out, want))
		fail_msg("no '%s' in the explanation:\n%s\nstderr:\n%s", want, r->out, r->err);
}

/*
 * rewind explain --json on an explained failure (the minimal artifact: a
 * short minimisation): one object on stdout, the verdict and the
 * explanation the text gives (now on stderr); on an input that passes, the
 * verdict 0 and no explanation.
 */
static void explain_json_of_the_minimal(const char *artifact)
{
	struct run *r = new_run();
	char cmd[1024];
	cJSON *o, *x;

	snprintf(cmd, sizeof(cmd),
		 "build/bin/rewind explain %s.min.json --json -o " DIR "/min.explain.json >" DIR
		 "/explain-verdict.json",
		 artifact);
	sh(cmd, r);
	expect_status(r, 1, "Minimal schedule: 1 injection"); /* the text, on stderr */
	o = json_written(DIR "/explain-verdict.json");
	expect_verdict(o, "rewind-explain", "fail", 1);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "same")));
	assert_string_equal(json_string(o, "outcome"), "signal");
	assert_string_equal(json_string(o, "signal"), "ABRT");
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "job_status")));
	assert_string_equal(json_string(o, "trace"), json_string(o, "recorded_trace"));
	x = cJSON_GetObjectItemCaseSensitive(o, "explanation");
	assert_string_equal(json_string(x, "format"), "rewind-explanation");
	assert_true(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(x, "landings")) == 1);
	cJSON_Delete(o);
	sh("build/bin/rewind explain --raw corpus/ledger/empty --json >" DIR
	   "/explain-verdict.json",
	   r);
	expect_status(r, 0, "rewind explain: corpus/ledger/empty does not fail (outcome pass)");
	o = json_written(DIR "/explain-verdict.json");
	expect_verdict(o, "rewind-explain", "pass", 0);
	assert_string_equal(json_string(o, "kind"), "raw");
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "explanation")));
	cJSON_Delete(o);
}

/*
 * The ledger's lost update, found with two injections that do not matter
 * around the stall that does: --explain keeps only the stall, shrinks it,
 * names the teller (the main thread) and the deposit it was stalled in,
 * and gives the window of steps where the stall still loses the update.
 */
static void test_explain_names_the_stalled_deposit(void **state)
{
	struct run *r = new_run(), *replay = new_run();
	char artifact[512], inj[256], cmd[1024];

	(void)state;
	snprintf(inj, sizeof(inj),
		 "{\"step\":5,\"kind\":\"resched\"},{\"step\":%d,\"kind\":\"stall\",\"us\":30000},"
		 "{\"step\":30,\"kind\":\"timer-late\",\"us\":40}",
		 LOST_UPDATE_STEP);
	write_input(DIR "/explain-ledger", inj);
	sh("rm -rf " DIR "/explain-art && " HARNESS " --artifacts " DIR "/explain-art " DIR
	   "/explain-ledger >/dev/null; ls " DIR "/explain-art/signal-*.json",
	   r);
	snprintf(artifact, sizeof(artifact), "%.*s", (int)strcspn(r->out, "\n"), r->out);
	explain(artifact, "", r);
	expect_out(r, "Minimal schedule: 1 injection (the input had 3)");
	expect_out(r, "[0] stall ");
	expect_out(r, "hit thread 1 (tid ");
	expect_out(r, "the main thread of /bin/ledger");
	expect_out(r, "deposit (guest/ledger.c:");
	expect_out(r, "its last output: \"teller: ");
	expect_out(r, "meanwhile thread 2 (tid ");
	expect_out(r, "The deciding window");
	expect_out(r, "the job passes");
	expect_out(r, "The context switches that differ");
	expect_out(r, "Timeline of the job's threads");
	expect_out(r, ">> stall ");
	/* the minimised schedule is an artifact that replays exactly */
	snprintf(cmd, sizeof(cmd), HARNESS " --replay %s.min.json", artifact);
	sh(cmd, replay);
	expect_status(replay, 1, "replay identical");
	snprintf(cmd, sizeof(cmd), "grep -c '\"landings\"' %s.explain.json", artifact);
	sh(cmd, r);
	expect_status(r, 0, NULL);
	explain_json_of_the_minimal(artifact);
}

/* A preempt-insns landing in the plain /bin/tally is named by its function, count(). */
static void test_explain_names_count_in_tally(void **state)
{
	struct run *r = new_run();
	char artifact[512];

	(void)state;
	/* the scan's artifact if this build made it (one from an older kernel replays otherwise) */
	sh("find " DIR "/insns-art -name 'signal-*.json' -newer build/guest/bzImage 2>/dev/null"
	   " | sort | head -n 1",
	   r);
	if (!r->out[0]) {
		sh("rm -rf " DIR "/insns-art", r);
		scan_tally_offsets();
		sh("ls " DIR "/insns-art/signal-*.json | head -n 1", r);
	}
	snprintf(artifact, sizeof(artifact), "%.*s", (int)strcspn(r->out, "\n"), r->out);
	explain(artifact, " -o " DIR "/tally.explain.json", r);
	expect_out(r, "preempt-insns ");
	expect_out(r, "in count (guest/tally.c:");
	expect_out(r, "The deciding window");
}

/*
 * An instrumented lost update (pct mode, one demotion): the two accesses
 * to the counter whose order decides, both in lost_update.c.
 */
static void test_explain_names_the_racing_pair(void **state)
{
	struct run *r = new_run();

	(void)state;
	write_pct_input(DIR "/explain-pct", "{\"thread\":1,\"kind\":\"priority\",\"priority\":90},"
					    "{\"thread\":2,\"kind\":\"priority\",\"priority\":50},"
					    "{\"position\":1073741825,\"kind\":\"demote\","
					    "\"priority\":2}");
	explain(DIR "/explain-pct", " -- /tests/lost_update", r);
	expect_out(r, "Racing pair (the order of these two accesses decides):");
	expect_out(r, "the load:  thread 2 (tid ");
	expect_out(r, "the store: thread 3 (tid ");
	expect_out(r, "reads 0x");
	expect_out(r, "writes 0x");
	expect_out(r, "in worker (guest/tests/lost_update.c:");
	expect_out(r, "in the failing run the store comes after the load");
	expect_out(r, "demote to priority 2");
}

/*
 * Runs SEARCH (a shell command that builds a test and searches it with
 * --random, its artifacts in a folder) and then `ls` of that folder's
 * artifacts (GLOB), and explains the first one found, trusted, into r.
 */
static void explain_first_found(const char *search, const char *glob, struct run *r)
{
	char cmd[4096], artifact[512];

	snprintf(cmd, sizeof(cmd), "%s >/dev/null 2>&1; ls %s | head -n 1", search, glob);
	sh(cmd, r);
	expect_status(r, 0, NULL);
	snprintf(artifact, sizeof(artifact), "%.*s", (int)strcspn(r->out, "\n"), r->out);
	explain(artifact, " --trust", r);
}

/*
 * A walk draws its switches in the guest, so it has no change point to
 * move: the explanation of a walk's failure (config_publish_10's torn
 * publish) finds a PCT sample that fails the same way, minimises it and
 * explains that: its landings, windows and racing pair, which rewind
 * explore's buckets key on.
 */
static void test_explain_gives_a_walk_a_pct_stand_in(void **state)
{
	struct run *r = new_run();

	(void)state;
	explain_first_found("rm -rf " DIR "/walk-explain && " HARNESS
			    " --random 50 --walk --random-seed 1 --artifacts " DIR
			    "/walk-explain -- /tests/config_publish_10",
			    DIR "/walk-explain/signal-*.json", r);
	expect_out(r, "the input is a walk (seed 0x");
	expect_out(r, "(drawn from the walk's seed) fails the same way and stands for it");
	expect_out(r, "demote to priority ");
	expect_out(r, "Racing pair (the order of these two accesses decides):");
	expect_out(r, "(guest/tests/config_publish_10.c:");
	sh("grep -c '\"stand_in\":[[:space:]]*[0-9]' " DIR
	   "/walk-explain/signal-*.json.explain.json",
	   r);
	expect_status(r, 0, NULL);
	assert_string_equal(r->out, "1\n");
}

/*
 * A compare-and-swap or a fetch-and-add in the racing pair is named an
 * atomic read-modify-write (its event's kind), never a plain read: the
 * checker's load-add-load on a counter that the adder adds to at once.
 */
static void test_explain_names_an_atomic_read_modify_write(void **state)
{
	struct run *r = new_run();

	(void)state;
	explain_first_found(
		"printf '%s\\n' '#include <pthread.h>' '#include <stdlib.h>' 'static long hits;'"
		" 'static void *checker(void *a) {'"
		" '  for (int i = 0; i < 50; i++) {'"
		" '    long before = hits;'"
		" '    __atomic_fetch_add(&hits, 1, __ATOMIC_SEQ_CST);'"
		" '    if (hits != before + 1) abort();'"
		" '  }'"
		" '  return a;'"
		" '}'"
		" 'static void *adder(void *a) { __atomic_fetch_add(&hits, 100, __ATOMIC_SEQ_CST);"
		" return a; }'"
		" 'int main(void) {'"
		" '  pthread_t a, b;'"
		" '  pthread_create(&a, 0, checker, 0);'"
		" '  pthread_create(&b, 0, adder, 0);'"
		" '  pthread_join(a, 0);'"
		" '  pthread_join(b, 0);'"
		" '  return 0;'"
		" '}' >" DIR "/cas_pair.c && guest/rewind-cc -O2 -g -o " DIR "/cas_pair " DIR
		"/cas_pair.c && rm -rf " DIR "/cas-art && " HARNESS " --add " DIR
		"/cas_pair:/bin/cas_pair --random 60 --pct --random-seed 1 --artifacts " DIR
		"/cas-art -- /bin/cas_pair",
		DIR "/cas-art/signal-*.json", r);
	expect_out(r, "Racing pair (the order of these two accesses decides):");
	expect_out(r, "does an atomic read-modify-write at 0x");
	expect_out(r, "in adder (");
	assert_null(strstr(r->out, " reads 0x"));
}

/*
 * A dynamically linked PIE (gcc -O2 -g -pthread, glibc): ASLR places the
 * program and its libraries at the run's own bases, which the explanation
 * reads from the job's page tables; the racing pair is named in the
 * program's functions, not "??".
 */
static void test_explain_names_code_in_a_dynamic_pie(void **state)
{
	struct run *r = new_run();

	(void)state;
	explain_first_found("cc -O2 -g -pthread -o " DIR "/cta_pie guest/tests/check_then_act.c && "
			    "rm -rf " DIR "/pie-art && " HARNESS " --add " DIR
			    "/cta_pie --random 100 --pct --random-seed 1 --artifacts " DIR
			    "/pie-art -- /bin/cta_pie",
			    DIR "/pie-art/signal-*.json", r);
	expect_out(r, "Racing pair (the order of these two accesses decides):");
	expect_out(r, "guest/tests/check_then_act.c:");
	expect_out(r, "inlined into sign_up (");
	assert_null(strstr(r->out, "in ??"));
}

/*
 * guest/tests/audit_wait.c built plainly: the teller thread reads the
 * balance and spins, with no system call, for the auditor's go-ahead. The
 * VMM yields the pure spin (vmm/spin_rescue.c), the auditor runs, and its
 * interest is lost with no injection. The explanation's timeline says
 * where the teller spun and why the auditor ran then: a row in the
 * teller's column, named by function and line, the same in the JSON.
 */
static void test_explain_shows_where_a_spin_was_yielded(void **state)
{
	static const char creates[] = "creates thread 2 (tid ";
	struct run *r = new_run();
	char artifact[512], path[600], want[200], row[300];
	const cJSON *line;
	const char *teller;
	uint8_t *data;
	size_t len;
	int spins = 0;
	cJSON *o;

	(void)state;
	sh("grep -n 'while (!LOAD(&audited))' guest/tests/audit_wait.c", r);
	expect_status(r, 0, NULL);
	snprintf(want, sizeof(want),
		 "spun at teller (guest/tests/audit_wait.c:%d) (a pure spin: yielded, sleeps 4 ms "
		 "so the others run)",
		 atoi(r->out));
	write_input(DIR "/audit-empty", "");
	sh("rm -rf " DIR "/audit-art && " HARNESS " --stuck-ms 10000 --artifacts " DIR
	   "/audit-art " DIR "/audit-empty -- /tests/plain/audit_wait >/dev/null; ls " DIR
	   "/audit-art/signal-*.json",
	   r);
	expect_status(r, 0, NULL);
	snprintf(artifact, sizeof(artifact), "%.*s", (int)strcspn(r->out, "\n"), r->out);
	explain(artifact, "", r);
	expect_out(r, "none: the job fails without any injection");
	expect_out(r, creates);
	snprintf(row, sizeof(row), " | %-30s | %s\n", "", want); /* thread 2's column */
	expect_out(r, row);
	teller = strstr(r->out, creates);
	/* the JSON explanation: the same row, for thread 2 */
	snprintf(path, sizeof(path), "%s.explain.json", artifact);
	assert_int_equal(file_read_max(path, 16u << 20, "JSON", &data, &len), 0);
	o = cJSON_ParseWithLength((const char *)data, len);
	free(data);
	assert_non_null(o);
	cJSON_ArrayForEach(line, cJSON_GetObjectItemCaseSensitive(o, "timeline"))
	{
		const char *what =
			cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(line, "what"));

		if (!what || strncmp(what, "spun at ", 8) != 0)
			continue;
		spins++;
		assert_string_equal(what, want);
		assert_int_equal((int)json_number(line, "tid"), atoi(teller + strlen(creates)));
	}
	assert_int_equal(spins, 1);
	cJSON_Delete(o);
}

/*
 * The job as the guest sees it: an untrusted artifact's added file given
 * again with --add (the same bytes at the same guest path, from another
 * host path) leaves the job the artifact's, and the replay is checked as
 * the same run; another file there changes it. A relative command run
 * from --cwd (libevent's ./regress) is found for code locations where the
 * guest found it.
 */
static void test_the_same_add_is_the_same_job(void **state)
{
	struct run *r = new_run();
	char inj[128], cmd[1024], artifact[512];

	(void)state;
	snprintf(inj, sizeof(inj), "{\"step\":%d,\"kind\":\"stall\",\"us\":15000}",
		 LOST_UPDATE_STEP);
	write_input(DIR "/same-add-in", inj);
	sh("rm -rf " DIR "/same-add-art && " HARNESS " --artifacts " DIR
	   "/same-add-art --add build/guest/bin/ledger:/work/ledger --cwd /work " DIR
	   "/same-add-in -- ./ledger >/dev/null 2>&1; ls " DIR "/same-add-art/signal-*.json",
	   r);
	snprintf(artifact, sizeof(artifact), "%.*s", (int)strcspn(r->out, "\n"), r->out);
	snprintf(cmd, sizeof(cmd),
		 "cp build/guest/bin/ledger " DIR "/same-ledger && " HARNESS
		 " --replay %s --add " DIR "/same-ledger:/work/ledger",
		 artifact);
	sh(cmd, r);
	expect_status(r, 1, "replay identical (outcome, step and trace as in the artifact");
	assert_non_null(strstr(r->err, "the job is the artifact's: --add gives the guest the "
				       "same files at the same paths"));
	assert_null(strstr(r->err, "changed"));
	snprintf(cmd, sizeof(cmd), HARNESS " --replay %s --add build/guest/bin/true:/work/ledger",
		 artifact);
	sh(cmd, r);
	expect_status(r, 3, "does not reproduce with the changed job: outcome pass");
	assert_non_null(strstr(r->err, "replaying with the artifact's job changed: --add "
				       "build/guest/bin/true:/work/ledger"));
	explain(artifact, " --trust", r);
	expect_out(r, "the main thread of ./ledger");
	expect_out(r, "deposit (guest/ledger.c:");
	assert_null(strstr(r->err, "not in the guest's archives"));
}

/*
 * Replay says whether a failure reproduces (docs/exit-status.md): a raw
 * input that passes is 0, an artifact whose failure reproduces 1; an
 * artifact replayed with its job changed (the program replaced) says what
 * changed and that it no longer fails as recorded (3); --expect-fixed turns
 * that into success (0), and is 1 while the bug is still there. --json
 * gives the verdict as one object on stdout.
 */
static void test_replay_is_honest(void **state)
{
	struct run *r = new_run();
	char artifact[512], cmd[1024];
	cJSON *o;

	(void)state;
	sh(HARNESS " --replay corpus/ledger/empty", r);
	expect_status(r, 0, "replay identical (same outcome and trace every time, 2 runs");
	sh(HARNESS " --replay corpus/ledger/empty --expect-fixed", r);
	expect_status(r, 0, "fixed: the failure is gone");
	find_lost_update(artifact, sizeof(artifact));
	snprintf(cmd, sizeof(cmd), HARNESS " --replay %s --add build/guest/bin/true:/bin/ledger",
		 artifact);
	sh(cmd, r);
	expect_status(r, 3, "does not reproduce with the changed job: outcome pass");
	assert_non_null(strstr(r->err, "replaying with the artifact's job changed: --add "
				       "build/guest/bin/true:/bin/ledger"));
	snprintf(cmd, sizeof(cmd),
		 HARNESS " --replay %s --expect-fixed --add build/guest/bin/true:/bin/ledger",
		 artifact);
	sh(cmd, r);
	expect_status(r, 0, "fixed: the failure is gone");
	snprintf(cmd, sizeof(cmd), HARNESS " --replay %s --expect-fixed", artifact);
	sh(cmd, r);
	expect_status(r, 1, "still fails: signal");
	snprintf(cmd, sizeof(cmd), HARNESS " --replay %s --stuck-ms 3000", artifact);
	sh(cmd, r);
	expect_status(r, 1, "reproduces with the changed job: signal");
	/* options after the input, and several files to replay: the worst status counts */
	sh(HARNESS " corpus/ledger/empty --wall-ms 20000 -- /bin/ledger", r);
	expect_status(r, 0, "outcome pass");
	snprintf(cmd, sizeof(cmd), HARNESS " --replay %s corpus/ledger/empty", artifact);
	sh(cmd, r);
	expect_status(r, 1, "(2 of 2)");
	assert_non_null(strstr(r->err, "outcome, step and trace as in the artifact"));
	assert_non_null(strstr(r->err, "same outcome and trace every time, 2 runs"));
	/* --json: one object on stdout, the guest's output on stderr */
	snprintf(cmd, sizeof(cmd), "build/bin/rewind replay %s --json >" DIR "/verdict.json",
		 artifact);
	sh(cmd, r);
	expect_status(r, 1, "ledger: lost update: balance 500, expected 507");
	assert_non_null(strstr(r->err, "rewind replay: replay identical (outcome, step and trace"));
	o = json_written(DIR "/verdict.json");
	expect_verdict(o, "rewind-replay", "fail", 1);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "same")));
	assert_string_equal(json_string(o, "file"), artifact);
	assert_string_equal(json_string(o, "kind"), "artifact");
	assert_string_equal(json_string(o, "outcome"), "signal");
	assert_string_equal(json_string(o, "signal"), "ABRT");
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "job_status")));
	assert_true(json_number(o, "steps") == json_number(o, "recorded_steps"));
	assert_string_equal(json_string(o, "trace"), json_string(o, "recorded_trace"));
	cJSON_Delete(o);
	sh("build/bin/rewind replay corpus/ledger/empty --json >" DIR "/verdict.json", r);
	expect_status(r, 0, "ledger: balance 507");
	o = json_written(DIR "/verdict.json");
	expect_verdict(o, "rewind-replay", "pass", 0);
	assert_string_equal(json_string(o, "kind"), "raw");
	assert_int_equal((int)json_number(o, "job_status"), 0);
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "signal")));
	cJSON_Delete(o);
}

/*
 * A job that floods its output is a failure of its own ("flood"), with a
 * bounded artifact. Its 64 MiB take longer than the default wall budget
 * (10 s) in the KVM box when another job keeps the host's cores busy: the
 * budget is raised, this test is about the trace budget.
 */
static void test_a_flood_is_a_bounded_failure(void **state)
{
	struct run *r = new_run();

	(void)state;
	sh("rm -rf " DIR "/flood-art && " HARNESS " --wall-ms 600000 --artifacts " DIR
	   "/flood-art corpus/ledger/empty -- /bin/cat /dev/zero >/dev/null",
	   r);
	expect_status(r, 1, "outcome flood (the trace passed its budget of 64 MiB");
	/* the artifact keeps the last 16 KiB of the output, not 64 MiB */
	sh("wc -c <$(ls " DIR "/flood-art/flood-*.json)", r);
	expect_status(r, 0, NULL);
	assert_true(strtol(r->out, NULL, 10) < 64 * 1024);
}

/* rewind fuzz never deletes results: an output folder that holds some is refused, kept. */
static void test_rewind_fuzz_keeps_earlier_results(void **state)
{
	struct run *r = new_run();

	(void)state;
	sh("rm -rf " DIR "/kept && mkdir -p " DIR "/kept/artifacts && echo found >" DIR
	   "/kept/artifacts/signal-1.json && REWIND_HARNESS=" HARNESS_AFL
	   " build/bin/rewind fuzz --seconds 5 --out " DIR "/kept",
	   r);
	expect_status(r, 2, "already holds an earlier run's results");
	assert_non_null(strstr(r->err, "nothing was deleted"));
	sh("cat " DIR "/kept/artifacts/signal-1.json", r);
	expect_status(r, 0, NULL);
	assert_string_equal(r->out, "found\n");
}

/*
 * Polls (up to 2 minutes) until no afl-fuzz or harness of the output folder
 * OUT runs (both name OUT/artifacts; the test's own shell, which says
 * "[a]rtifacts", does not); prints
 * LEFT and them if some stay. A shell fragment for sh().
 */
#define NOTHING_LEFT_OF(out)                                                                       \
	"for i in $(seq 120); do pgrep -f \"[a]rtifacts " out "/artifacts\" >/dev/null || "        \
	"break; sleep 1; done; pgrep -af \"[a]rtifacts " out "/artifacts\" >&2 && echo LEFT >&2"

/*
 * rewind fuzz on a job that is slow to start (a 16 MiB file in its image)
 * while two busy loops share the machine: it waits for the boot, says so,
 * finds the bug, replays it, and leaves no afl-fuzz or harness running.
 */
static void test_rewind_fuzz_slow_start_under_load(void **state)
{
	struct run *r = new_run();

	(void)state;
	sh("rm -rf " DIR "/slow && head -c 16M /dev/urandom >" DIR "/big.bin && "
	   "{ while :; do :; done & b1=$!; while :; do :; done & b2=$!; "
	   "REWIND_HARNESS=" HARNESS_AFL " build/bin/rewind fuzz --seconds 600 --out " DIR
	   "/slow -- --add " DIR "/big.bin:/data/big.bin -- /tests/lost_update; rc=$?; "
	   "kill $b1 $b2; rm -f " DIR "/big.bin; " NOTHING_LEFT_OF(DIR "/slow") "; exit $rc; }",
	   r);
	expect_status(r, 1, "rewind-harness: replay identical");
	assert_non_null(strstr(r->err, "rewind fuzz: first failure at execution "));
	assert_non_null(strstr(r->err, "rewind fuzz: why it fails: rewind explain "));
	assert_null(strstr(r->err, "LEFT"));
	/* the progress file holds the last count: the failure's execution at least */
	sh("cat " DIR "/slow/progress.json", r);
	assert_non_null(strstr(r->out, "\"first_failure\": {\"execution\": "));
}

/*
 * afl-fuzz and the harness never outlive rewind fuzz: an interrupt stops
 * them and exits 130; a SIGKILL of rewind fuzz (as `timeout -s KILL` does)
 * leaves nothing running either.
 */
static void test_rewind_fuzz_leaves_nothing_running(void **state)
{
	struct run *r = new_run();
	static const char *const signals[] = {"INT", "KILL"};

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		char cmd[2048];

		snprintf(cmd, sizeof(cmd),
			 "o=" DIR "/stop-%s; rm -rf $o; REWIND_HARNESS=" HARNESS_AFL
			 " build/bin/rewind fuzz --all --seconds 600 --out $o & pid=$!; "
			 "for i in $(seq 600); do grep -qs '\"execs\": [1-9]' $o/progress.json && "
			 "break; sleep 1; done; "
			 "pgrep -f \"^afl-fuzz .*$o\" >/dev/null || echo NO-AFL >&2; "
			 "kill -%s $pid; wait $pid; echo status $? >&2; " NOTHING_LEFT_OF("$o"),
			 signals[i], signals[i]);
		sh(cmd, r);
		print_message("SIG%s: %s", signals[i], strstr(r->err, "status "));
		assert_null(strstr(r->err, "NO-AFL"));
		assert_null(strstr(r->err, "LEFT"));
		if (i == 0) {
			assert_non_null(strstr(r->err, "status 130"));
			assert_non_null(strstr(r->err, "rewind fuzz: stopped by signal 2"));
		} else {
			assert_non_null(strstr(r->err, "status 137"));
		}
	}
}

/*
 * A verdict is the guest's, not the host's: a livelock (the step budget;
 * /bin/yield 100000's own run does not end in 8 budgets either, and the
 * detail says so) replays and explains as a livelock with a wall budget of
 * 1 ms, which is no change of the job (a replay has only a guard against a
 * stalled host).
 */
/*
 * pct mode's profile of a long job counts its events whole (8 step
 * budgets, as its long runs measure it): guest/tests/poll_slots's own pct
 * run makes 562 events in 32 job steps, and with a budget of 28 steps (the
 * boot takes 22) the profile used to stop counting at 298, where every
 * change point of a search is placed.
 */
static void test_a_long_jobs_profile_counts_it_whole(void **state)
{
	struct run *r = new_run();
	long cut, whole;

	(void)state;
	sh(HARNESS " --step-budget 28 --progress " DIR "/long-profile.json corpus/pct/empty -- "
		   "/tests/poll_slots && cat " DIR "/long-profile.json",
	   r);
	expect_status(r, 0, "outcome pass");
	cut = json_number_of(r->out, "pct_events");
	sh(HARNESS " --progress " DIR "/long-profile.json corpus/pct/empty -- /tests/poll_slots"
		   " && cat " DIR "/long-profile.json",
	   r);
	expect_status(r, 0, "outcome pass");
	whole = json_number_of(r->out, "pct_events");
	print_message("profile: %ld events with a budget of 28 steps, %ld with the default\n", cut,
		      whole);
	assert_true(whole > 0);
	assert_int_equal(cut, whole);
}

static void test_livelock_verdict_ignores_the_wall_budget(void **state)
{
	struct run *r = new_run();

	(void)state;
	sh("rm -rf " DIR "/ll && " HARNESS " --artifacts " DIR "/ll --step-budget 400 "
	   "corpus/ledger/empty -- /bin/yield 100000",
	   r);
	expect_status(r, 1,
		      "outcome livelock (step budget of 400 exceeded; the job's own run (seed 0, "
		      "no schedule) did not end in 8 times the budget either)");
	sh(HARNESS " --replay " DIR "/ll/livelock-*.json --wall-ms 1", r);
	expect_status(r, 1, "replay identical");
	assert_non_null(strstr(r->err, "outcome livelock"));
	assert_null(strstr(r->err, "changed"));
	sh("build/bin/rewind replay " DIR "/ll/livelock-*.json --wall-ms 1", r);
	expect_status(r, 1, "rewind replay: replay identical");
	sh("build/bin/rewind explain " DIR "/ll/livelock-*.json --wall-ms 1", r);
	expect_status(r, 1, "livelock");
	assert_null(strstr(r->err, "nothing to explain"));
}

/*
 * A job whose command cannot start is the user's setup error (2), said in
 * the guest's own words, never a crash: a typo in the command, and a
 * dynamically linked program (the guest has no shared libraries), which
 * must be built static.
 */
static void test_a_job_that_cannot_start_is_a_setup_error(void **state)
{
	struct run *r = new_run();

	(void)state;
	sh("rm -rf " DIR "/nostart && " HARNESS " --artifacts " DIR
	   "/nostart corpus/ledger/empty -- /bin/racy_lgo",
	   r);
	expect_status(r, 2, NULL);
	assert_string_equal(r->err,
			    "rewind-harness: error: the guest never got ready for the job: "
			    "rewind-init: /bin/racy_lgo: command not found in the guest (check the "
			    "command after --; put your own program into the guest with --add "
			    "HOST[:GUEST])\n");
	/* a dynamic program added with --add brings its loader: it runs */
	sh("printf 'int main(void) { return 0; }\\n' >" DIR "/dyn.c && cc -o " DIR "/dyn " DIR
	   "/dyn.c && " HARNESS " --artifacts " DIR "/nostart corpus/ledger/empty --add " DIR
	   "/dyn -- /bin/dyn",
	   r);
	expect_status(r, 0, NULL);
	/* one that came another way (a base image of the user's) lacks it: said so */
	sh("rm -rf " DIR "/nostart && build/bin/rewind-mkinitramfs -o " DIR
	   "/dyn.cpio --file build/guest/bin/rewind-init:init:0755 --file " DIR
	   "/dyn:bin/dyn:0755 --dir proc --dir sys --dir dev --dir tmp --dir run --dir rewind "
	   "&& " HARNESS " --artifacts " DIR "/nostart --initramfs " DIR
	   "/dyn.cpio corpus/ledger/empty -- /bin/dyn",
	   r);
	expect_status(r, 2, NULL);
	assert_string_equal(
		r->err,
		"rewind-harness: error: the job's command /bin/dyn is dynamically linked: it "
		"asks for /lib64/ld-linux-x86-64.so.2, which the guest does not have; add the "
		"program with --add (its loader and shared libraries come with it), or build "
		"it static (musl-gcc -static, gcc -static, guest/rewind-cc)\n");
	sh("test -e " DIR "/nostart", r); /* no artifact, not even the folder */
	assert_int_equal(r->status, 1);
}

/* The outcome line's trace hash and step, for comparing with --json. */
static void outcome_of(const struct run *r, char trace[19], unsigned long long *steps)
{
	const char *at = strstr(r->err, " at step ");

	assert_non_null(at);
	*steps = strtoull(at + 9, NULL, 10);
	trace_of(r, trace);
}

/*
 * One-shot runs: --json prints the outcome as one JSON object on stdout (the
 * guest's output goes to stderr), the same run as the text outcome; --mem
 * takes suffixes and bare MiB, --initrd is --initramfs; --to-json reads an
 * artifact; --version names what runs; errors name the program.
 */
static void test_one_shot_json_and_the_shared_vocabulary(void **state)
{
	struct run *t = new_run(), *j = new_run(), *a = new_run(), *b = new_run();
	char trace[19], artifact[512], cmd[1024];
	unsigned long long steps;
	cJSON *o;

	(void)state;
	find_lost_update(artifact, sizeof(artifact)); /* writes DIR/lost-update, the input */
	sh(HARNESS " --artifacts " DIR "/json-art --mem 128 " DIR "/lost-update", t);
	expect_status(t, 1, "outcome signal (the job was killed by SIGABRT)");
	outcome_of(t, trace, &steps);
	sh(HARNESS " --artifacts " DIR "/json-art --json --mem 128M --initrd "
		   "build/guest/initramfs.cpio " DIR "/lost-update",
	   j);
	expect_status(j, 1, "ledger: lost update: balance 500, expected 507");
	assert_null(strstr(j->err, "rewind-harness: outcome"));
	assert_int_equal(strchr(j->out, '\n') - j->out + 1, (long)strlen(j->out)); /* one line */
	o = cJSON_Parse(j->out);
	assert_non_null(o);
	assert_string_equal(json_string(o, "format"), "rewind-outcome");
	assert_int_equal((int)json_number(o, "version"), 1);
	assert_true(
		cJSON_IsNull(cJSON_GetObjectItem(o, "job_status"))); /* killed: no exit status */
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "class")), "signal");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "signal")), "ABRT");
	assert_int_equal(WTERMSIG(cJSON_GetObjectItem(o, "status")->valueint), SIGABRT);
	assert_null(cJSON_GetObjectItem(o, "exit_code"));
	assert_int_equal((unsigned long long)cJSON_GetObjectItem(o, "steps")->valuedouble, steps);
	assert_int_equal(cJSON_GetObjectItem(o, "injections")->valueint, 1);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "trace")), trace);
	cJSON_Delete(o);
	sh(HARNESS " --json --mem 131072K corpus/ledger/empty", j);
	expect_status(j, 0, NULL);
	assert_non_null(strstr(j->out, "{\"format\":\"rewind-outcome\",\"version\":1,\"class\":"
				       "\"pass\",\"detail\":\"job exited\",\"status\":0,"
				       "\"exit_code\":0,\"steps\":"));
	assert_non_null(strstr(j->out, ",\"job_status\":0}\n"));
	sh(HARNESS " --json --bundle corpus/ledger/empty -o " DIR "/no-bundle", j);
	expect_status(j, 2, NULL);
	assert_string_equal(j->err, "rewind-harness: error: --json is for a run of one input, a "
				    "replay or an explanation, not --bundle\n");
	snprintf(cmd, sizeof(cmd), HARNESS " --to-json %s", artifact);
	sh(cmd, a);
	expect_status(a, 0, NULL);
	sh(HARNESS " --to-json " DIR "/lost-update", b); /* the input find_lost_update ran */
	expect_status(b, 0, NULL);
	assert_string_equal(a->out, b->out);
	/* bytes that are JSON but not an object (afl-tmin's "0000") are a binary input */
	sh("printf 0000 >" DIR "/zeros && " HARNESS " --to-json " DIR "/zeros", a);
	expect_status(a, 0, NULL);
	assert_non_null(strstr(a->out, "\"format\":\t\"rewind-input\""));
	sh(HARNESS " --to-json corpus/ledger/empty corpus/ledger/stall-1", a);
	expect_status(a, 2, NULL);
	assert_string_equal(a->err, "rewind-harness: error: --to-json takes one file, and "
				    "'corpus/ledger/stall-1' is one more: to run a command in the "
				    "guest, put it after -- (rewind-harness [OPTIONS] INPUT -- CMD "
				    "[ARGS...])\n");
	sh(HARNESS " --mem 1T corpus/ledger/empty", a);
	expect_status(a, 2, NULL);
	assert_string_equal(a->err, "rewind-harness: error: --mem must be a whole number of MiB "
				    "from 64M to 3G (e.g. 128M, 1G; a bare number is MiB), not "
				    "'1T'\n");
	sh(HARNESS " --frobnicate corpus/ledger/empty", a);
	expect_status(a, 2, NULL);
	assert_string_equal(a->err, "rewind-harness: error: unknown option '--frobnicate'; "
				    "rewind-harness --help lists the options\n");
	sh(HARNESS " --version", a);
	expect_status(a, 0, NULL);
	assert_true(strncmp(a->out, "rewind-harness 0.2.0 (commit ", 29) == 0);
	assert_non_null(strstr(a->out, ")\nguest ABI 8\nCPU model rewind-"));
	assert_non_null(strstr(a->out, "/build/guest/bzImage (XXH3 0x"));
}

/* A /dev/kvm slower than the threshold is refused before booting, unless allowed. */
static void test_a_slow_kvm_is_refused_up_front(void **state)
{
	struct run *r = new_run();

	(void)state;
	sh("REWIND_SLOW_KVM_MS=0.000001 " HARNESS " corpus/ledger/empty", r);
	expect_status(r, 2, NULL);
	if (strncmp(r->err, "rewind-harness: error: this /dev/kvm runs guest code ", 53) != 0 ||
	    !strstr(r->err, " times slower than hardware (") ||
	    !strstr(r->err, "Run through the KVM box instead: rewind box rewind-harness ... "
			    "(REWIND_ALLOW_SLOW_KVM=1 runs here anyway)\n"))
		fail_msg("%s", r->err);
	sh("REWIND_SLOW_KVM_MS=0.000001 REWIND_ALLOW_SLOW_KVM=1 " HARNESS " corpus/ledger/empty",
	   r);
	expect_status(r, 0, "outcome pass");
}

/*
 * rewind fuzz for CI: --help says what the mutator does; a job option's
 * file that is not there is a setup error (2) before anything is made; a
 * job that cannot run (the probe run) is a setup error too, never "no
 * failure found" (0), with or without --corpus, and afl-fuzz never starts.
 */
static void test_rewind_fuzz_setup_errors_are_not_a_pass(void **state)
{
	struct run *r = new_run();

	(void)state;
	sh("build/bin/rewind fuzz --help", r);
	expect_status(r, 0, NULL);
	assert_non_null(strstr(r->out, "AFL_CUSTOM_MUTATOR_ONLY=1)\n"));
	assert_non_null(strstr(r->out, "--afl-opt ARG   one more afl-fuzz argument"));
	assert_non_null(strstr(r->out, "  2  bad usage or setup, nothing fuzzed:"));
	sh("rm -rf " DIR "/badk && REWIND_HARNESS=" HARNESS_AFL
	   " build/bin/rewind fuzz --seconds 5 --out " DIR "/badk --kernel /no/such/bzImage; "
	   "rc=$?; test -e " DIR "/badk && echo MADE >&2; exit $rc",
	   r);
	expect_status(r, 2, NULL);
	assert_string_equal(r->err, "rewind fuzz: error: no guest kernel at /no/such/bzImage\n");
	sh("rm -rf " DIR "/badk && REWIND_HARNESS=" HARNESS_AFL
	   " build/bin/rewind fuzz --seconds 5 --out " DIR "/badk -- /no/such/command",
	   r);
	expect_status(r, 2,
		      "rewind fuzz: error: the job does not run (see above; log: " DIR
		      "/badk/probe.log)\n");
	assert_non_null(strstr(r->err, "/no/such/command: command not found in the guest"));
	assert_null(strstr(r->err, "fuzzing for at most"));
	sh("rm -rf " DIR "/badk && REWIND_HARNESS=" HARNESS_AFL
	   " build/bin/rewind fuzz --seconds 5 --corpus corpus/ledger --out " DIR
	   "/badk -- -- /no/such/command",
	   r);
	expect_status(r, 2, "rewind fuzz: error: the job does not run");
	assert_null(strstr(r->err, "fuzzing for at most"));
}

/* Writes a copy of the artifact with one sed edit and replays it; returns the run. */
static void replay_edited(const char *artifact, const char *sed, const char *extra, struct run *r)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd),
		 "sed -e '%s' %s >" DIR "/crafted.json && " HARNESS " --replay " DIR
		 "/crafted.json%s",
		 sed, artifact, extra);
	sh(cmd, r);
}

/*
 * A crafted artifact cannot make a replay read host files: an added file
 * named by a host path is refused with the way out, and nothing of it is
 * printed; a kernel path is not opened (this checkout's is used); a FIFO
 * or an 8 GiB sparse file as the kernel fails at once, even when trusted;
 * numbers out of range are refused with the field named.
 */
static void test_crafted_artifacts_are_refused(void **state)
{
	struct run *r = new_run();
	char artifact[512];

	(void)state;
	find_lost_update(artifact, sizeof(artifact));
	/* the FIFO in /tmp: the checkout may be on a file system without FIFOs (9p) */
	sh("rm -f /tmp/rewind-test-fifo " DIR "/sparse && mkfifo /tmp/rewind-test-fifo && "
	   "truncate -s 8G " DIR "/sparse",
	   r);
	expect_status(r, 0, NULL);
	replay_edited(artifact,
		      "s|\"add\":[[:space:]]*\\[\\]|\"add\": [\"/etc/passwd:/bin/secret\"]|; "
		      "s|\"/bin/ledger\"|\"/bin/cat\", \"/bin/secret\"|",
		      "", r);
	expect_status(r, 2, "which an untrusted artifact may not make this replay read");
	assert_null(strstr(r->out, "root:"));
	assert_non_null(strstr(r->err, "--add FILE:/bin/secret"));
	replay_edited(artifact,
		      "s|\"kernel\":[[:space:]]*\"[^\"]*\"|\"kernel\": \"/tmp/rewind-test-fifo\"|",
		      "", r);
	expect_status(r, 1, "not reading the artifact's kernel"); /* this checkout's: it fails */
	replay_edited(artifact,
		      "s|\"kernel\":[[:space:]]*\"[^\"]*\"|\"kernel\": \"/tmp/rewind-test-fifo\"|",
		      " --trust", r);
	expect_status(r, 2, "is a FIFO, not a regular file");
	sh(HARNESS " --kernel " DIR "/sparse corpus/ledger/empty", r);
	expect_status(r, 2, "more than the 64 MiB a kernel may be");
	replay_edited(artifact, "s|\"version\":[[:space:]]*[0-9]*|\"version\": 1.9|", "", r);
	expect_status(r, 2, "\"version\" must be an integer");
	replay_edited(artifact, "s|\"step\":[[:space:]]*[0-9]*|\"step\": -5|", "", r);
	expect_status(r, 2, "must be an integer in");
	replay_edited(artifact, "s|\"abi_version\":[[:space:]]*[0-9]*|\"abi_version\": 1e300|", "",
		      r);
	expect_status(r, 2, "\"abi_version\" must be an integer");
}

/*
 * A crash bundle carries what the replay needs: made from an artifact whose
 * job adds a file, it replays identically with another copy of the harness
 * in another directory, after the added file and the artifact are gone.
 */
static void test_bundle_replays_in_another_directory(void **state)
{
	struct run *r = new_run();
	char inj[128], cmd[2048], artifact[512];

	(void)state;
	snprintf(inj, sizeof(inj), "{\"step\":%d,\"kind\":\"stall\",\"us\":15000}",
		 LOST_UPDATE_STEP);
	write_input(DIR "/bundle-in", inj);
	sh("rm -rf " DIR "/bundle-art " DIR "/bundle " DIR "/elsewhere " DIR "/moved && cp "
	   "build/guest/bin/ledger " DIR "/myledger && " HARNESS " --artifacts " DIR
	   "/bundle-art --add " DIR "/myledger:/bin/myledger " DIR
	   "/bundle-in -- /bin/myledger >/dev/null; ls " DIR "/bundle-art/signal-*.json",
	   r);
	snprintf(artifact, sizeof(artifact), "%.*s", (int)strcspn(r->out, "\n"), r->out);
	snprintf(cmd, sizeof(cmd), HARNESS " --bundle %s -o " DIR "/bundle", artifact);
	sh(cmd, r);
	expect_status(r, 2, "which an untrusted artifact may not make this replay read");
	sh("a=$(ls " DIR "/bundle-art/signal-*.json) && " HARNESS " --bundle \"$a\" --trust -o " DIR
	   "/bundle",
	   r);
	expect_status(r, 0, "bundle " DIR "/bundle written");
	/* another harness, elsewhere: no build/guest beside it, nothing of the first run */
	sh("mkdir -p " DIR "/elsewhere/bin && cp " HARNESS " " DIR "/elsewhere/bin/ && mv " DIR
	   "/bundle " DIR "/moved && rm -rf " DIR "/myledger " DIR "/bundle-art && cd " DIR
	   "/elsewhere && bin/rewind-harness-asan --replay ../moved",
	   r);
	expect_status(r, 1, "replay identical (outcome, step and trace as in the artifact");
	assert_non_null(strstr(r->out, "ledger: lost update"));
	/* a damaged bundle says which file */
	sh("printf x >>" DIR "/moved/kernel && " HARNESS " --replay " DIR "/moved", r);
	expect_status(r, 2, "the bundle's " DIR "/moved/kernel is damaged");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ledger_passes_unperturbed_and_repeats),
		cmocka_unit_test(test_stall_loses_an_update_and_replays_exactly),
		cmocka_unit_test(test_replay_names_what_differs),
		cmocka_unit_test(test_bad_files_are_refused_clearly),
		cmocka_unit_test(test_each_injection_kind_changes_the_run),
		cmocka_unit_test(test_an_execution_exits_only_at_its_steps),
		cmocka_unit_test(test_counter_preemption_lands_exactly),
		cmocka_unit_test(test_single_step_preemption_lands_exactly),
		cmocka_unit_test(test_every_mode_repeats_exactly_across_20_runs),
		cmocka_unit_test(test_spinning_in_every_mode),
		cmocka_unit_test(test_a_lone_computation_is_never_stuck),
		cmocka_unit_test(test_a_yield_loop_lets_the_other_thread_run),
		cmocka_unit_test(test_a_spin_on_a_flag_lets_the_other_thread_run),
		cmocka_unit_test(test_threads_that_exit_together_are_never_stuck),
		cmocka_unit_test(test_a_wait_on_a_count_on_the_stack_is_never_stuck),
		cmocka_unit_test(test_a_plain_wait_on_a_count_on_the_stack_is_never_stuck),
		cmocka_unit_test(test_a_plain_wait_for_a_thread_to_start_is_never_stuck),
		cmocka_unit_test(test_a_pure_spin_is_yielded_at_its_fixed_point),
		cmocka_unit_test(test_a_spin_that_writes_memory_is_still_stuck),
		cmocka_unit_test(test_a_poller_whose_wait_returns_at_once_is_never_stuck),
		cmocka_unit_test(test_a_spin_on_an_emulated_test_and_set_yields),
		cmocka_unit_test(test_counter_mode_slices_do_not_line_up_with_a_spin),
		cmocka_unit_test(test_a_pct_run_out_of_steps_goes_on_fairly),
		cmocka_unit_test(test_counter_mode_needs_an_instrumented_job),
		cmocka_unit_test(test_pct_one_change_point_finds_the_lost_update),
		cmocka_unit_test(test_pct_mode_counts_a_runners_and_its_childs_events_apart),
		cmocka_unit_test(test_unreachable_threads_are_warned_about),
		cmocka_unit_test(test_random_search_runs_and_counts),
		cmocka_unit_test(test_walks_replay_and_find_a_many_thread_bug),
		cmocka_unit_test(test_explain_gives_a_walk_a_pct_stand_in),
		cmocka_unit_test(test_racy_events_count_the_shared_data),
		cmocka_unit_test(test_wide_samples_find_and_replay),
		cmocka_unit_test(test_racy_maps_are_kept_per_key),
		cmocka_unit_test(test_a_profile_is_the_guests_whatever_the_stuck_budget),
		cmocka_unit_test(test_an_artifact_replays_with_its_recorded_profile),
		cmocka_unit_test(test_forkserver_protocol),
		cmocka_unit_test(test_forkserver_shared_memory_testcases),
		cmocka_unit_test(test_forkserver_answers_a_rerun_from_its_cache),
		cmocka_unit_test(test_forkserver_answers_for_a_guest_that_never_exits),
		cmocka_unit_test(test_forkserver_says_hello_before_the_boot),
		cmocka_unit_test(test_artifact_write_failure_loses_nothing),
		cmocka_unit_test(test_explain_names_the_stalled_deposit),
		cmocka_unit_test(test_explain_names_count_in_tally),
		cmocka_unit_test(test_explain_names_the_racing_pair),
		cmocka_unit_test(test_explain_names_an_atomic_read_modify_write),
		cmocka_unit_test(test_the_same_add_is_the_same_job),
		cmocka_unit_test(test_explain_names_code_in_a_dynamic_pie),
		cmocka_unit_test(test_explain_shows_where_a_spin_was_yielded),
		cmocka_unit_test(test_replay_is_honest),
		cmocka_unit_test(test_crafted_artifacts_are_refused),
		cmocka_unit_test(test_a_flood_is_a_bounded_failure),
		cmocka_unit_test(test_rewind_fuzz_keeps_earlier_results),
		cmocka_unit_test(test_rewind_fuzz_slow_start_under_load),
		cmocka_unit_test(test_rewind_fuzz_leaves_nothing_running),
		cmocka_unit_test(test_a_job_that_cannot_start_is_a_setup_error),
		cmocka_unit_test(test_one_shot_json_and_the_shared_vocabulary),
		cmocka_unit_test(test_a_slow_kvm_is_refused_up_front),
		cmocka_unit_test(test_rewind_fuzz_setup_errors_are_not_a_pass),
		cmocka_unit_test(test_bundle_replays_in_another_directory),
		cmocka_unit_test(test_afl_fuzz_finds_the_ledger_bug_and_tmin_shrinks_it),
		cmocka_unit_test(test_rewind_fuzz_finds_the_lost_update_with_priority_schedules),
		cmocka_unit_test(test_rewind_fuzz_exits_0_when_nothing_fails),
		cmocka_unit_test(test_rewind_fuzz_finds_the_cxx_bug),
		cmocka_unit_test(test_rewind_fuzz_finds_the_depth3_bug),
		cmocka_unit_test(test_rewind_fuzz_starts_racy_samples_where_the_map_pays),
		cmocka_unit_test(test_rewind_fuzz_finds_the_tcp_server_bug),
		cmocka_unit_test(test_rewind_fuzz_finds_the_unix_socket_server_bug),
		cmocka_unit_test(test_rewind_fuzz_finds_the_uninstrumented_check_then_act),
		cmocka_unit_test(test_rewind_fuzz_finds_the_ledger_given_as_a_plain_job),
		cmocka_unit_test(test_pct_mode_traps_a_plain_binarys_shared_memory),
		cmocka_unit_test(test_pct_mode_leaves_a_dynamic_binarys_c_library_out),
		cmocka_unit_test(test_pct_mode_survives_a_fork_of_a_trapped_process),
		cmocka_unit_test(test_pct_mode_keeps_a_plain_programs_results),
		cmocka_unit_test(test_pct_mode_traps_again_after_the_process_was_alone),
		cmocka_unit_test(test_pct_mode_splits_a_plain_read_modify_write),
		cmocka_unit_test(test_pct_mode_finds_a_plain_lost_wakeup),
		cmocka_unit_test(test_plain_afl_fuzz_finds_the_lost_update),
		cmocka_unit_test(test_livelock_verdict_ignores_the_wall_budget),
		cmocka_unit_test(test_a_job_longer_than_its_budget_is_no_livelock),
		cmocka_unit_test(test_a_long_jobs_profile_counts_it_whole),
		cmocka_unit_test(test_afl_fuzz_finds_a_lost_update_by_single_stepping),
	};

	if (getenv("TEST_FILTER"))
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}

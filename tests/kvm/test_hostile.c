/* SPDX-License-Identifier: MIT */
/*
 * The hostile guest (guest/hostile.c) against the ASan+UBSan builds on real
 * KVM (natively or inside the box). Every case has one exact outcome: with
 * `rewind run` booted from scratch (exit status: 1 for every failure, 0
 * for a pass; and the outcome word), and
 * through rewind-harness from the keyframe, run twice in one process (its
 * failure class, and "replay identical": nothing the case did leaks into the
 * next execution from the keyframe). After them all, the default job in a
 * fresh harness process replays as it always does. The VMM never crashes,
 * hangs or lets a case through that it must refuse.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define REWIND	 "build/tests/rewind-asan"
#define HARNESS	 "build/tests/rewind-harness-asan"
#define DIR	 "build/test-hostile"
#define ERR_FILE DIR "/stderr.txt"
#define EMPTY	 "corpus/ledger/empty" /* steps mode, no injections */

#include "tests/kvm/shell.h"
#include "tests/kvm/trace_file.h"

/* One case's exact outcome: `rewind run` status and outcome, the harness class, and
 * for some the outcome's detail (both print it). */
struct expected {
	const char *name;
	int status;
	const char *outcome, *cls, *detail;
};

/* The fields after the name: {"case", FAULT}, {"case", FAULT_BECAUSE("(why)")}, ... */
#define FAULT		   1, "guest-fault", "guest-fault", NULL
#define FAULT_BECAUSE(why) 1, "guest-fault", "guest-fault", why
#define PASSES		   0, "exited", "pass", NULL
#define USER_WROTE_SHARED  FAULT_BECAUSE("(user space wrote the kernel's port 0x5200)")
#define USER_WROTE_POWER   FAULT_BECAUSE("(user space wrote the kernel's port 0x5210)")
#define JOB_WROTE_STATUS   FAULT_BECAUSE("(job status ")
#define TIMER_FAR_S	   9223372035.0 /* timer-far's deadline: INT64_MAX ns less a second */

/*
 * Every invalid call is a guest fault at that call: user space writing the
 * kernel's ports (SHARED, POWER: any pfn, the probe-poison page-cache page
 * included), bad event records, a second READY, a job status not from init
 * (the job is root and can grant itself the port), a read of the seed's
 * old port (no port since ABI 6), a counter write with no preemption due,
 * wrong sizes, reads and unknown ports. Harmless by the ABI: records that
 * cross a page end (guest RAM is contiguous), IDLE or YIELD from user space
 * (they only move the clock), the program's own trap flag. A flood of
 * output meets the trace budget (through the harness, its own run floods
 * too, and the detail says so). The farthest timer fires at its deadline,
 * 292 virtual years on, never early; the guest kernel then catches its
 * clock up a second at a time without an exit: stuck in the guest kernel.
 */
static const struct expected cases[] = {
	{"shared-max", USER_WROTE_SHARED},
	{"shared-4g", USER_WROTE_SHARED},
	{"shared-beyond-ram", USER_WROTE_SHARED},
	{"shared-last-page", USER_WROTE_SHARED},
	{"shared-0", USER_WROTE_SHARED},
	{"shared-1", USER_WROTE_SHARED},
	{"shared-user-page", USER_WROTE_SHARED},
	{"probe-poison", USER_WROTE_SHARED},
	{"event-max", FAULT},
	{"event-unaligned", FAULT},
	{"event-1", FAULT},
	{"event-0", FAULT},
	{"event-ram-end", FAULT},
	{"event-ram-last-byte", FAULT},
	{"event-bad-type", FAULT},
	{"event-type-0", FAULT},
	{"event-huge-len", FAULT},
	{"event-len-over-max", FAULT},
	{"event-payload-crosses-page", PASSES},
	{"event-header-crosses-page", PASSES},
	{"idle-from-user", PASSES},
	{"yield-garbage", PASSES},
	{"power-4", USER_WROTE_POWER},
	{"power-max", USER_WROTE_POWER},
	{"job-status-max", JOB_WROTE_STATUS},
	{"job-status-early", JOB_WROTE_STATUS},
	{"ready-again", FAULT},
	{"ready-garbage", FAULT},
	{"old-seed-port", FAULT_BECAUSE("(read of 4 byte(s) x1 at unknown port 0x521c)")},
	{"counter-write", FAULT_BECAUSE("(counter write without a preemption due)")},
	{"inl-ready", FAULT},
	{"inb-shared", FAULT},
	{"inw-event", FAULT},
	{"outb-power", FAULT},
	{"outw-job-status", FAULT},
	{"outl-below", FAULT},
	{"outl-end", FAULT},
	{"inl-end", FAULT},
	{"outl-far", FAULT},
	{"outb-unknown", FAULT},
	{"outl-pci-config", FAULT},
	{"flood", 1, "trace-budget", "flood",
	 "(the trace passed its budget of 64 MiB (a flood of output or events)"},
	{"timer-far", 1, "stuck", "stuck", "(stuck in the guest kernel in "},
	{"trap-flag", PASSES},
};
#define CASE_COUNT (sizeof(cases) / sizeof(cases[0]))

static const struct expected *expected_of(const char *name)
{
	for (size_t i = 0; i < CASE_COUNT; i++)
		if (!strcmp(cases[i].name, name))
			return &cases[i];
	return NULL;
}

/* The flood's 64 MiB of output go nowhere; the others' stay for the failure message. */
static const char *stdout_of(const struct expected *c)
{
	return !strcmp(c->name, "flood") ? ">/dev/null" : "";
}

static void fail_run(const char *what, const struct expected *c, const struct run *r)
{
	fail_msg("hostile %s (%s): status %d\nstdout:\n%.4000s\nstderr:\n%s", c->name, what,
		 r->status, r->out, r->err);
}

/* The line that starts with start, copied (without its newline); "" if none. */
static void line_of(const struct run *r, const char *start, char *line, size_t len)
{
	const char *at = strstr(r->err, start);

	snprintf(line, len, "%.*s", at ? (int)strcspn(at, "\n") : 0, at ? at : "");
}

/*
 * `rewind run` booted from scratch: the exact status and outcome (and detail)
 * on the summary line; timer-far's virtual time is its deadline, not earlier.
 */
static void expect_run_outcome(const struct expected *c)
{
	struct run *r = new_run();
	char cmd[512], line[1024], run_id[17], outcome[32], want[256], announce[64];
	const char *virt;

	snprintf(cmd, sizeof(cmd),
		 REWIND " run --out " DIR "/run --stuck-ms 3000 -- /bin/hostile %s %s", c->name,
		 stdout_of(c));
	sh(cmd, r);
	line_of(r, "rewind: run ", line, sizeof(line));
	snprintf(want, sizeof(want), " %s %s", c->outcome, c->detail ? c->detail : "");
	if (r->status != c->status || sscanf(line, "rewind: run %16s %31s", run_id, outcome) != 2 ||
	    strcmp(outcome, c->outcome) != 0 || !strstr(line, want))
		fail_run("rewind run", c, r);
	virt = strstr(line, " virtual ");
	if (!strcmp(c->name, "timer-far") && (!virt || strtod(virt + 9, NULL) < TIMER_FAR_S))
		fail_run("rewind run: the far timer fired early", c, r);
	snprintf(announce, sizeof(announce), "hostile: %s: ", c->name);
	if (!*stdout_of(c) && !strstr(r->out, announce))
		fail_run("rewind run: the case was never announced", c, r);
}

/*
 * Through the harness from the keyframe, twice in one process: the class (and
 * detail) on the outcome line and "replay identical" (same class and trace
 * both times). An input that passes replays with status 0, a failure that
 * reproduces with 1 (docs/exit-status.md). The wall budget is raised from 10 s: a flood execution
 * takes seconds in the QEMU box and must not become a timeout on a busy machine.
 */
static void expect_harness_outcome(const struct expected *c)
{
	struct run *r = new_run();
	char cmd[512], line[1024], want[256];
	bool passes = !strcmp(c->cls, "pass");

	snprintf(cmd, sizeof(cmd),
		 HARNESS " --replay " EMPTY " --repeat 2 --stuck-ms 3000 --wall-ms 60000 -- "
			 "/bin/hostile %s %s",
		 c->name, stdout_of(c));
	sh(cmd, r);
	line_of(r, "rewind-harness: outcome ", line, sizeof(line));
	snprintf(want, sizeof(want), "rewind-harness: outcome %s %s", c->cls,
		 c->detail ? c->detail
		 : passes  ? "at step"
			   : "(");
	if (r->status != (passes ? 0 : 1) || strncmp(line, want, strlen(want)) != 0 ||
	    !strstr(r->err, "rewind-harness: replay identical (same outcome and trace every "
			    "time, 2 runs, trace 0x"))
		fail_run("rewind-harness from the keyframe, twice", c, r);
}

/* `hostile list` names exactly the cases above: none left out, none unasserted. */
static void test_every_case_has_an_expected_outcome(void **state)
{
	struct run *r = new_run();
	char *save, *line;
	size_t listed = 0;

	(void)state;
	sh(REWIND " run --out " DIR "/run -- /bin/hostile list", r);
	if (r->status != 0)
		fail_run("list", &(struct expected){"list", PASSES}, r);
	for (line = strtok_r(r->out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64];

		/* lines are "CASE: what it does"; the tool's own notes start "hostile:" */
		if (sscanf(line, "%63[^:]:", name) != 1 || !strcmp(name, "hostile"))
			continue;
		if (!expected_of(name))
			fail_msg("hostile lists '%s', which has no expected outcome here", name);
		listed++;
	}
	if (listed != CASE_COUNT)
		fail_msg("hostile lists %zu cases, %zu expected (one was left out in the "
			 "guest?)\n%s",
			 listed, CASE_COUNT, r->err);
}

static void test_each_case_has_its_exact_outcome(void **state)
{
	(void)state;
	for (size_t i = 0; i < CASE_COUNT; i++) {
		print_message("hostile %s: %s / %s\n", cases[i].name, cases[i].outcome,
			      cases[i].cls);
		expect_run_outcome(&cases[i]);
		expect_harness_outcome(&cases[i]);
	}
}

/*
 * The program's own trap flag under a single-step offset (preempt-insns):
 * the guest kernel counts the instructions and tells its own traps from
 * the program's, so all 100 SIGTRAPs still reach the program, its TF
 * survives the landing, and the landing happens. Counted from a step in
 * its traced loop (a SIGTRAP delivery: the count runs through the signal
 * frames and sigreturns), and from the step before it sets TF (Rewind's TF
 * first, then the program's own through its POPF). Before the count moved
 * into the guest, the VMM took the traps and cleared TF at the landing:
 * the program spun until the watchdog ended it.
 */
static void test_own_trap_flag_under_preempt_insns(void **state)
{
	static const struct {
		const char *name;
		unsigned int step, insns;
	} counts[] = {
		{"in-loop", 22, 7},    /* step 22: a SIGTRAP delivery (the 19th) */
		{"before-tf", 3, 300}, /* step 3: its announcement, before the POPF */
	};
	struct run *r = new_run();
	uint64_t from[2], why[2], pc[2];
	char inj[128], path[128], cmd[512], want[64];

	(void)state;
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		snprintf(inj, sizeof(inj), "{\"step\":%u,\"kind\":\"preempt-insns\",\"insns\":%u}",
			 counts[i].step, counts[i].insns);
		snprintf(path, sizeof(path), DIR "/trap-flag-%s", counts[i].name);
		write_mode_input(path, "steps", inj);
		snprintf(cmd, sizeof(cmd),
			 HARNESS " --trace %s.trace --stuck-ms 3000 --wall-ms 60000 %s -- "
				 "/bin/hostile trap-flag",
			 path, path);
		sh(cmd, r);
		if (r->status != 0 || !strstr(r->err, "rewind-harness: outcome pass at step") ||
		    !strstr(r->out, "hostile: trap-flag: 100 traps, all delivered to the program"))
			fail_msg(
				"trap-flag with preempt-insns %u at step %u: status %d\nstdout:\n%s"
				"\nstderr:\n%s",
				counts[i].insns, counts[i].step, r->status, r->out, r->err);
		snprintf(path + strlen(path), sizeof(path) - strlen(path), ".trace");
		assert_int_equal(preempts_in_trace(path, from, why, pc, 2), 1);
		assert_int_equal(why[0], PREEMPT_WHY_INSNS);
		/* the trace counts steps from boot; `rewind trace` from the job's start */
		snprintf(cmd, sizeof(cmd), REWIND " trace --text %s", path);
		sh(cmd, r);
		snprintf(want, sizeof(want), " preempt    why=insns from_step=%u ", counts[i].step);
		if (r->status != 0 || !strstr(r->out, want))
			fail_msg("the trace has no '%s':\n%.4000s", want, r->out);
		print_message("trap-flag, preempt-insns %u at step %u: 100 SIGTRAPs delivered, "
			      "landed at %#" PRIx64 "\n",
			      counts[i].insns, counts[i].step, pc[0]);

		snprintf(cmd, sizeof(cmd),
			 HARNESS " --replay " DIR "/trap-flag-%s --repeat 2 --stuck-ms 3000 "
				 "--wall-ms 60000 -- /bin/hostile trap-flag",
			 counts[i].name);
		sh(cmd, r);
		if (r->status != 0 || /* it passes, the same run twice */
		    !strstr(r->err,
			    "rewind-harness: replay identical (same outcome and trace every "
			    "time, 2 runs, trace 0x"))
			fail_msg("trap-flag with preempt-insns at step %u, replayed twice: status "
				 "%d\nstderr:\n%s",
				 counts[i].step, r->status, r->err);
	}
}

/* After every case: the default job, in a fresh harness process, replays as always. */
static void test_a_normal_job_replays_after_them(void **state)
{
	struct run *r = new_run();
	const char *same;

	(void)state;
	sh(HARNESS " --replay " EMPTY " --repeat 2", r);
	same = strstr(r->err, "rewind-harness: replay identical (same outcome and trace every "
			      "time, 2 runs, trace 0x");
	if (r->status != 0 || !strstr(r->err, "rewind-harness: outcome pass at step") || !same)
		fail_msg("the default job after the hostile cases: status %d\nstderr:\n%s",
			 r->status, r->err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_case_has_an_expected_outcome),
		cmocka_unit_test(test_each_case_has_its_exact_outcome),
		cmocka_unit_test(test_own_trap_flag_under_preempt_insns),
		cmocka_unit_test(test_a_normal_job_replays_after_them),
	};

	if (getenv("TEST_FILTER")) /* e.g. TEST_FILTER='*trap_flag*' */
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	return cmocka_run_group_tests_name("hostile", tests, NULL, NULL);
}

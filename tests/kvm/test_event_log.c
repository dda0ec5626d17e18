/* SPDX-License-Identifier: MIT */
/*
 * The event log (rewind-harness --event-log, vmm/counter.c) on real KVM:
 * a logged run is the very same run as the unlogged one (the same outcome
 * line: outcome, steps, events, injections, trace hash), and its log holds
 * every schedule event of the instrumented lost_update test: who read and
 * wrote the shared counter, in which order, with the value before each
 * access. In the failing pct schedule the log shows the lost update itself:
 * the demoted thread's store comes after the other thread's stores that
 * followed its load (the access of an event where a preemption or a
 * priority change "landed" happens when its thread runs again).
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
#include <sys/wait.h>

#include <cmocka.h>

#include "lib/file.h"
#include "vmm/trace.h"

#define HARNESS	    "build/tests/rewind-harness-asan"
#define DIR	    "build/test-event-log"
#define ERR_FILE    DIR "/stderr.txt"
#define PROGRAM	    "build/guest/bin/tests/lost_update" /* the host copy of /tests/lost_update */
#define ROUNDS	    20000 /* each worker's counter++ (guest/tests/lost_update.c) */
#define MAX_THREADS 16

#include "tests/kvm/shell.h"
#include "tests/kvm/trace_file.h"

struct event {
	uint64_t index;
	uint32_t tid;
	char what[16], landed[24];
	uint64_t pc, addr, value, after;
	bool has_after;
};

struct event_log {
	struct event *at;
	size_t count;
};

static void expect_status(const struct run *r, int status)
{
	if (r->status != status)
		fail_msg("expected status %d, got %d\nstdout:\n%s\nstderr:\n%s", status, r->status,
			 r->out, r->err);
}

/* The "rewind-harness: outcome ..." line: outcome, steps, events, injections, trace hash. */
static void outcome_line(const struct run *r, char *line, size_t len)
{
	const char *at = strstr(r->err, "rewind-harness: outcome");

	if (!at)
		fail_msg("no outcome line in:\n%s", r->err);
	snprintf(line, len, "%.*s", (int)strcspn(at, "\n"), at);
}

/* The run's event count on its outcome line ("N events,"). */
static uint64_t events_of(const char *line)
{
	const char *at = strstr(line, " events,");

	assert_non_null(at);
	while (at > line && at[-1] >= '0' && at[-1] <= '9')
		at--;
	return strtoull(at, NULL, 10);
}

/*
 * Runs input on lost_update with and without the log: the same exit status
 * (status, unless it is -1), output and outcome line, returned.
 */
static void run_both(const char *input, const char *log, const char *trace, int status, char *line,
		     size_t len)
{
	struct run *plain = new_run(), *logged = new_run();
	char cmd[1024], logged_line[1024];

	/* the box's nested KVM is slow: no wall budget decides an outcome here */
	snprintf(cmd, sizeof(cmd), HARNESS " --wall-ms 3600000 %s -- /tests/lost_update", input);
	sh(cmd, plain);
	snprintf(cmd, sizeof(cmd),
		 HARNESS " --wall-ms 3600000 --event-log %s --trace %s %s -- /tests/lost_update",
		 log, trace, input);
	sh(cmd, logged);
	print_message("%s", logged->err);
	if (status >= 0)
		expect_status(plain, status);
	expect_status(logged, plain->status);
	outcome_line(plain, line, len);
	outcome_line(logged, logged_line, sizeof(logged_line));
	assert_string_equal(logged_line, line);
	assert_string_equal(logged->out, plain->out);
}

/* One line of the log, in the exact form rewind-harness writes it. */
static void parse_event(const char *line, struct event *ev)
{
	int at = -1, end = -1;

	memset(ev, 0, sizeof(*ev));
	if (sscanf(line,
		   "{\"index\":%" SCNu64 ",\"tid\":%" SCNu32
		   ",\"what\":\"%15[^\"]\",\"landed\":\"%n",
		   &ev->index, &ev->tid, ev->what, &at) != 3 ||
	    at < 0)
		fail_msg("not an event: %s", line);
	snprintf(ev->landed, sizeof(ev->landed), "%.*s", (int)strcspn(line + at, "\""), line + at);
	at += (int)strlen(ev->landed);
	if (sscanf(line + at,
		   "\",\"pc\":\"%" SCNx64 "\",\"addr\":\"%" SCNx64 "\",\"value\":\"%" SCNx64 "\"%n",
		   &ev->pc, &ev->addr, &ev->value, &end) != 3 ||
	    end < 0)
		fail_msg("not an event: %s", line);
	at += end;
	end = -1;
	/* the value after the access, where the VMM saw it */
	ev->has_after = sscanf(line + at, ",\"after\":\"%" SCNx64 "\"%n", &ev->after, &end) == 1;
	if (ev->has_after)
		at += end;
	if (strcmp(line + at, "}\n") != 0)
		fail_msg("not an event: %s", line);
}

/* Reads the JSON lines at path; every event is there, numbered 1, 2, ... in order. */
static void read_log(const char *path, struct event_log *log)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1024;
	char line[512];

	assert_non_null(f);
	log->count = 0;
	log->at = malloc(cap * sizeof(*log->at));
	assert_non_null(log->at);
	while (fgets(line, sizeof(line), f)) {
		if (log->count == cap) {
			cap *= 2;
			log->at = realloc(log->at, cap * sizeof(*log->at));
			assert_non_null(log->at);
		}
		parse_event(line, &log->at[log->count]);
		assert_int_equal(log->at[log->count].index, log->count + 1);
		log->count++;
	}
	fclose(f);
}

/* The shared counter: the address lost_update's workers write most (4 bytes). */
static uint64_t counter_address(const struct event_log *log)
{
	uint64_t best = 0, best_n = 0;

	for (size_t i = 0; i < log->count; i++) {
		uint64_t n = 0;

		if (strcmp(log->at[i].what, "write4") != 0 || log->at[i].addr == best)
			continue;
		for (size_t j = i; j < log->count; j++)
			n += strcmp(log->at[j].what, "write4") == 0 &&
			     log->at[j].addr == log->at[i].addr;
		if (n > best_n) {
			best = log->at[i].addr;
			best_n = n;
		}
		if (best_n >= ROUNDS)
			break;
	}
	return best;
}

/* What the log says of the counter at addr: accesses, threads, lost updates. */
struct counter_story {
	uint64_t reads, writes, last_write_value, last_write_after;
	uint32_t reader_tids[MAX_THREADS], writer_tids[MAX_THREADS];
	size_t readers, writers;
	uint64_t lost; /* stores after another thread's store that followed their load */
	uint64_t pcs[16];
	size_t pc_count;
};

/* Each thread's state while the story is told. */
struct teller {
	uint32_t tids[MAX_THREADS];
	bool loaded[MAX_THREADS], overwritten[MAX_THREADS];
	const struct event *deferred[MAX_THREADS]; /* its access when the thread runs again */
	size_t threads;
};

static void add_tid(uint32_t *tids, size_t *n, uint32_t tid)
{
	for (size_t i = 0; i < *n; i++)
		if (tids[i] == tid)
			return;
	assert_true(*n < MAX_THREADS);
	tids[(*n)++] = tid;
}

static void add_pc(struct counter_story *s, uint64_t pc)
{
	for (size_t i = 0; i < s->pc_count; i++)
		if (s->pcs[i] == pc)
			return;
	if (s->pc_count < 16)
		s->pcs[s->pc_count++] = pc;
}

static size_t thread_of(struct teller *t, uint32_t tid)
{
	size_t i;

	for (i = 0; i < t->threads && t->tids[i] != tid; i++)
		;
	if (i == t->threads) {
		assert_true(t->threads < MAX_THREADS);
		t->tids[t->threads++] = tid;
	}
	return i;
}

/* The access of ev (on the counter) happens now, in thread i. */
static void access_now(struct counter_story *s, struct teller *t, size_t i, const struct event *ev)
{
	add_pc(s, ev->pc);
	if (strcmp(ev->what, "read4") == 0) {
		s->reads++;
		add_tid(s->reader_tids, &s->readers, ev->tid);
		t->loaded[i] = true;
		t->overwritten[i] = false;
	} else if (strcmp(ev->what, "write4") == 0) {
		s->writes++;
		add_tid(s->writer_tids, &s->writers, ev->tid);
		s->lost += t->loaded[i] && t->overwritten[i];
		s->last_write_value = ev->value;
		s->last_write_after = ev->has_after ? ev->after : UINT64_MAX;
		for (size_t j = 0; j < t->threads; j++)
			t->overwritten[j] |= j != i;
	}
}

static void tell_counter(const struct event_log *log, uint64_t addr, struct counter_story *s)
{
	struct teller t;

	memset(s, 0, sizeof(*s));
	memset(&t, 0, sizeof(t));
	for (size_t k = 0; k < log->count; k++) {
		const struct event *ev = &log->at[k];
		size_t i = thread_of(&t, ev->tid);

		if (t.deferred[i]) {
			access_now(s, &t, i, t.deferred[i]);
			t.deferred[i] = NULL;
		}
		if (ev->addr != addr)
			continue;
		if (ev->landed[0])
			t.deferred[i] = ev;
		else
			access_now(s, &t, i, ev);
	}
	for (size_t i = 0; i < t.threads; i++)
		if (t.deferred[i])
			access_now(s, &t, i, t.deferred[i]);
}

/* Every code address symbolizes into lost_update.c (addr2line on the host copy). */
static void expect_in_source(const struct counter_story *s)
{
	char cmd[1024];
	struct run *r = new_run();
	size_t len = (size_t)snprintf(cmd, sizeof(cmd), "addr2line -e " PROGRAM);
	const char *line;
	size_t lines = 0;

	for (size_t i = 0; i < s->pc_count; i++)
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, " %#" PRIx64, s->pcs[i]);
	sh(cmd, r);
	expect_status(r, 0);
	for (line = r->out; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0)) {
		if (!strstr(line, "lost_update.c:"))
			fail_msg("an access of the counter outside lost_update.c: %s", r->out);
		lines++;
	}
	assert_int_equal(lines, s->pc_count);
}

/* The two workers and main: reads and writes of the counter from two threads at least. */
static void expect_two_threads_race(const struct counter_story *s)
{
	assert_true(s->readers >= 2);
	assert_true(s->writers >= 2);
	assert_int_equal(s->writes, 2 * ROUNDS); /* a lost update loses a value, not a store */
	assert_true(s->pc_count >= 2);
	expect_in_source(s);
}

static const char pct_threads[] = "{\"thread\":1,\"kind\":\"priority\",\"priority\":90},"
				  "{\"thread\":2,\"kind\":\"priority\",\"priority\":50}";

/*
 * pct, the failing schedule of test_harness: the first worker is demoted a
 * quarter into the run, inside its loop, between a load and a store.
 */
static void test_pct_failure_is_logged_as_the_same_run(void **state)
{
	char line[1024], inj[512];
	struct event_log log;
	struct counter_story s;

	(void)state;
	snprintf(inj, sizeof(inj),
		 "%s,{\"position\":1073741825,\"kind\":\"demote\",\"priority\":2}", pct_threads);
	write_mode_input(DIR "/pct-mid", "pct", inj);
	run_both(DIR "/pct-mid", DIR "/pct-mid.log", DIR "/pct-mid.trace", 1, line, sizeof(line));
	assert_non_null(strstr(line, "outcome signal"));
	read_log(DIR "/pct-mid.log", &log);
	/* the job aborts: its events after the last counter read are in the log only */
	print_message("%zu events logged, %" PRIu64 " counted\n", log.count, events_of(line));
	assert_true(log.count >= events_of(line));
	tell_counter(&log, counter_address(&log), &s);
	print_message("counter: %" PRIu64 " reads, %" PRIu64 " writes, %zu readers, %zu writers, "
		      "%" PRIu64 " lost updates\n",
		      s.reads, s.writes, s.readers, s.writers, s.lost);
	expect_two_threads_race(&s);
	assert_true(s.lost >= 1);
	free(log.at);
}

/* pct, the passing schedule: every event counted is logged, no store loses an update. */
static void test_pct_pass_logs_every_event(void **state)
{
	char line[1024];
	struct event_log log;
	struct counter_story s;

	(void)state;
	write_mode_input(DIR "/pct-none", "pct", pct_threads);
	run_both(DIR "/pct-none", DIR "/pct-none.log", DIR "/pct-none.trace", 0, line,
		 sizeof(line));
	assert_non_null(strstr(line, "outcome pass"));
	read_log(DIR "/pct-none.log", &log);
	assert_int_equal(log.count, events_of(line));
	tell_counter(&log, counter_address(&log), &s);
	expect_two_threads_race(&s);
	assert_int_equal(s.lost, 0);
	assert_int_equal(s.last_write_value, 2 * ROUNDS - 1);
	assert_int_equal(s.last_write_after, 2 * ROUNDS); /* what the last store wrote */
	free(log.at);
}

/*
 * counter mode with two preemptions (and the default time slices): the
 * same run logged, and each preemption the trace records lands at the
 * logged event of its number, at the same code address.
 */
static void test_counter_preemptions_land_at_logged_events(void **state)
{
	uint64_t events[64], pcs[64];
	char line[1024];
	struct event_log log;
	struct counter_story s;
	size_t n;

	(void)state;
	write_mode_input(
		DIR "/preempt", "counter",
		"{\"block\":100,\"kind\":\"preempt\"},{\"block\":250,\"kind\":\"preempt\"}");
	run_both(DIR "/preempt", DIR "/preempt.log", DIR "/preempt.trace", -1, line, sizeof(line));
	read_log(DIR "/preempt.log", &log);
	if (strstr(line, "outcome pass"))
		assert_int_equal(log.count, events_of(line));
	else
		assert_true(log.count >= events_of(line));
	n = preempts_in_trace(DIR "/preempt.trace", events, NULL, pcs, 64);
	assert_true(n >= 2);
	assert_int_equal(events[0], 100);
	assert_int_equal(events[1], 250);
	for (size_t i = 0; i < n; i++) {
		assert_true(events[i] >= 1 && events[i] <= log.count);
		assert_int_equal(log.at[events[i] - 1].pc, pcs[i]);
		assert_non_null(strstr(log.at[events[i] - 1].landed, "preempt"));
	}
	tell_counter(&log, counter_address(&log), &s);
	expect_two_threads_race(&s);
	free(log.at);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pct_failure_is_logged_as_the_same_run),
		cmocka_unit_test(test_pct_pass_logs_every_event),
		cmocka_unit_test(test_counter_preemptions_land_at_logged_events),
	};

	return cmocka_run_group_tests_name("event_log", tests, NULL, NULL);
}

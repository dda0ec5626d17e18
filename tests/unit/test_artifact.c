/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of reading an artifact (harness/artifact.c, and the job object
 * in it, harness/job.c): an artifact is untrusted input. A real artifact is
 * read back field for field, a recorded profile too; every field out of
 * range is refused with its name; and 200,000 damaged copies (bytes
 * changed, cut, spliced with JSON tokens; a fixed seed, so a failure
 * reproduces) are each accepted or refused with a message, never read out
 * of bounds (ASan) or crashed on.
 * The output tail an artifact keeps is the job's last lines of output
 * (harness/guest_output.c).
 */
#include "harness/artifact.h"
#include "harness/guest_output.h"
#include "tests/unit/artifact_sample.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define MUTANTS 200000

/* Parses text; what it printed (stderr) goes to msg. Returns artifact_parse's result. */
static int parse(const char *text, size_t len, struct artifact_expect *e, char *msg, size_t n)
{
	struct harness_job job;
	struct exec_input input;
	FILE *capture = tmpfile();
	int saved = dup(STDERR_FILENO), rc;
	size_t got;

	assert_non_null(capture);
	assert_int_equal(job_init_defaults(&job), 0);
	fflush(stderr);
	dup2(fileno(capture), STDERR_FILENO);
	rc = artifact_parse(text, len, "a.json", &job, &input, e);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(capture);
	got = fread(msg, 1, n - 1, capture);
	msg[got] = '\0';
	fclose(capture);
	job_free(&job);
	return rc;
}

static void test_a_real_artifact_reads_back(void **state)
{
	struct artifact_expect e;
	char msg[1024];

	(void)state;
	assert_int_equal(parse(artifact_sample, strlen(artifact_sample), &e, msg, sizeof(msg)), 0);
	assert_int_equal(e.cls, CLASS_SIGNAL);
	assert_int_equal(e.job_steps, 39);
	assert_int_equal(e.identity.abi_version, 4);
	assert_int_equal(e.identity.quantum_ns, 5000);
	/* a version 2 artifact: its replay learns racy sites from seeds 1-3 unperturbed */
	assert_int_equal(e.version, 2);
	assert_int_equal(e.file_count, 1);
	assert_string_equal(e.files[0].guest, "/bin/myledger");
	assert_int_equal(e.files[0].mode, 0755);
	assert_true(e.files[0].xxh3 == 0x464fd9ca811eb46bull);
}

/* The artifact with the first `from` replaced by `to`: refused, naming `says`. */
static void expect_refused(const char *from, const char *to, const char *says)
{
	char text[sizeof(artifact_sample) + 256], msg[1024];
	const char *at = strstr(artifact_sample, from);
	struct artifact_expect e;

	assert_non_null(at);
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - artifact_sample), artifact_sample, to,
		 at + strlen(from));
	if (parse(text, strlen(text), &e, msg, sizeof(msg)) == 0 || !strstr(msg, says))
		fail_msg("%s -> %s: wanted a refusal naming '%s', got: %s", from, to, says, msg);
}

static void test_numbers_out_of_range_are_refused(void **state)
{
	(void)state;
	expect_refused("\"version\":2", "\"version\":1.9", "\"version\" must be an integer");
	expect_refused("\"version\":2", "\"version\":5", "\"version\" must be an integer in 1..4");
	expect_refused("\"step\":39", "\"step\":-5", "\"step\" must be an integer");
	expect_refused("\"abi_version\":4", "\"abi_version\":1e300",
		       "\"abi_version\" must be an integer");
	expect_refused("\"quantum_ns\":5000", "\"quantum_ns\":\"5000\"",
		       "\"quantum_ns\" must be an integer");
	expect_refused("\"mode\":493", "\"mode\":70000", "\"mode\" must be an integer");
	expect_refused("\"mem_mib\":128", "\"mem_mib\":1e9", "\"mem_mib\" must be an integer");
	expect_refused("\"step\":21", "\"step\":-1", "\"step\" must be an integer");
	expect_refused("\"guest\":\"/bin/myledger\"", "\"guest\":\"relative\"",
		       "must be an absolute guest path");
	expect_refused("\"class\":\"signal\"", "\"class\":\"bogus\"", "unknown outcome class");
}

/*
 * The sample as version 4 with "profile": PROFILE (a pct input's record of
 * its job's profile). Parsed as parse does; the text is freed.
 */
static int parse_with_profile(const char *profile, struct artifact_expect *e, char *msg, size_t n)
{
	const char *at = strstr(artifact_sample, "\"trace_xxh3\"");
	const char *version = strstr(artifact_sample, "\"version\":2");
	size_t len = sizeof(artifact_sample) + strlen(profile) + 32;
	char *text = malloc(len);
	int rc;

	assert_non_null(at);
	assert_non_null(version);
	assert_non_null(text);
	snprintf(text, len, "%.*s\"version\":4%.*s\"profile\":%s,%s",
		 (int)(version - artifact_sample), artifact_sample,
		 (int)(at - version - strlen("\"version\":2")), version + strlen("\"version\":2"),
		 profile, at);
	rc = parse(text, strlen(text), e, msg, n);
	free(text);
	return rc;
}

/* A racy site map in hex: byte 0 0xa5, the last 0x3c, zeros between; then tail. */
static char *racy_profile(const char *sites_tail)
{
	size_t len = 2 * REWIND_SITE_BYTES + strlen(sites_tail) + 128;
	char *text = malloc(len);
	int at;

	assert_non_null(text);
	at = snprintf(text, len, "{\"events\":637,\"racy\":{\"events\":140,\"sites\":\"a5");
	memset(text + at, '0', 2 * REWIND_SITE_BYTES - 4);
	snprintf(text + at + 2 * REWIND_SITE_BYTES - 4,
		 len - (size_t)at - 2 * REWIND_SITE_BYTES + 4, "3c%s", sites_tail);
	return text;
}

/*
 * A pct input's artifact records what its execution read of the job's
 * profile runs (k, a walk's weights, a racy input's site map), and its
 * replay uses them: read back value for value. An artifact without one
 * (version 3 and before) records none: its replay profiles.
 */
static void test_a_recorded_profile_reads_back(void **state)
{
	struct artifact_expect e;
	char msg[1024], *racy = racy_profile("\"}}");

	(void)state;
	assert_int_equal(parse(artifact_sample, strlen(artifact_sample), &e, msg, sizeof(msg)), 0);
	assert_int_equal(e.profile.events, 0);
	assert_false(e.profile.has_walk);
	assert_false(e.profile.has_racy);
	assert_int_equal(parse_with_profile("{\"events\":637,\"walk\":[10,20,0,4294967295]}", &e,
					    msg, sizeof(msg)),
			 0);
	assert_int_equal(e.version, 4);
	assert_int_equal(e.profile.events, 637);
	assert_true(e.profile.has_walk);
	assert_int_equal(e.profile.walk.threads, 4);
	assert_int_equal(e.profile.walk.events[1], 20);
	assert_int_equal(e.profile.walk.events[3], UINT32_MAX);
	assert_false(e.profile.has_racy);
	assert_int_equal(parse_with_profile(racy, &e, msg, sizeof(msg)), 0);
	assert_true(e.profile.has_racy && e.profile.racy_ok);
	assert_int_equal(e.profile.racy_events, 140);
	assert_int_equal(e.profile.racy_sites[0], 0xa5);
	assert_int_equal(e.profile.racy_sites[1], 0);
	assert_int_equal(e.profile.racy_sites[REWIND_SITE_BYTES - 1], 0x3c);
	/* null: the execution counted every event (the sites could not be learned) */
	assert_int_equal(parse_with_profile("{\"events\":637,\"racy\":null}", &e, msg, sizeof(msg)),
			 0);
	assert_true(e.profile.has_racy);
	assert_false(e.profile.racy_ok);
	free(racy);
}

/* "profile": PROFILE is refused, the message naming the field: says. */
static void expect_profile_refused(const char *profile, const char *says)
{
	struct artifact_expect e;
	char msg[1024];

	if (parse_with_profile(profile, &e, msg, sizeof(msg)) == 0 || !strstr(msg, says))
		fail_msg("profile %.80s: wanted a refusal naming '%s', got: %s", profile, says,
			 msg);
}

/*
 * A recorded profile is untrusted like the rest: k must be 1..2^32-1 (a
 * demote's 32-bit position times k must not overflow), a walk at most a
 * page's threads, a site map exactly its 8 KiB; each refusal names its field.
 */
static void test_a_hostile_profile_is_refused_naming_its_field(void **state)
{
	static char many[8 * (REWIND_WALK_THREADS + 2) + 64];
	char *long_sites = racy_profile("0\"}}"), *bad_digit = racy_profile("\"}}");
	int at = snprintf(many, sizeof(many), "{\"events\":1,\"walk\":[0");

	(void)state;
	for (uint32_t i = 0; i < REWIND_WALK_THREADS; i++)
		at += snprintf(many + at, sizeof(many) - (size_t)at, ",%u", i);
	snprintf(many + at, sizeof(many) - (size_t)at, "]}");
	expect_profile_refused("[]", "a.json: \"profile\" must be an object");
	expect_profile_refused("{\"walk\":[]}",
			       "a.json: profile: \"events\" must be an integer in 1..4294967295");
	expect_profile_refused("{\"events\":0}", "profile: \"events\" must be an integer in 1..");
	expect_profile_refused("{\"events\":4294967296}",
			       "profile: \"events\" must be an integer in 1..4294967295");
	expect_profile_refused("{\"events\":-1}", "profile: \"events\" must be an integer");
	expect_profile_refused("{\"events\":1e300}", "profile: \"events\" must be an integer");
	expect_profile_refused("{\"events\":\"637\"}", "profile: \"events\" must be an integer");
	expect_profile_refused(many, "profile: \"walk\" must be an array of at most 1020 integers");
	expect_profile_refused("{\"events\":1,\"walk\":[1,-1]}",
			       "profile: \"walk\" must be an array of at most 1020 integers in "
			       "0..4294967295");
	expect_profile_refused("{\"events\":1,\"walk\":[4294967296]}", "\"walk\" must be");
	expect_profile_refused("{\"events\":1,\"walk\":{}}", "\"walk\" must be");
	expect_profile_refused("{\"events\":1,\"racy\":\"x\"}",
			       "profile: \"racy\" must be an object (events, sites) or null");
	expect_profile_refused("{\"events\":1,\"racy\":{\"events\":-1,\"sites\":\"\"}}",
			       "profile: \"events\" must be an integer in 0..4294967295");
	expect_profile_refused("{\"events\":1,\"racy\":{\"events\":1,\"sites\":\"00\"}}",
			       "profile: \"sites\" must be 16384 lowercase hex digits");
	expect_profile_refused(long_sites, "\"sites\" must be 16384 lowercase hex digits");
	bad_digit[strlen("{\"events\":637,\"racy\":{\"events\":140,\"sites\":\"") + 100] = 'G';
	expect_profile_refused(bad_digit, "\"sites\" must be 16384 lowercase hex digits");
	free(long_sites);
	free(bad_digit);
}

static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* One damaged copy: a few bytes changed, a cut, or a JSON token spliced in. */
static size_t mutate(uint64_t *s, char *out)
{
	static const char *const tokens[] = {"-1",
					     "1e300",
					     "1.5",
					     "null",
					     "[]",
					     "{}",
					     "\"\"",
					     "18446744073709551616",
					     "\"0xffffffffffffffff\"",
					     "true",
					     ",",
					     ":",
					     "\"/\"",
					     "0",
					     "4294967296"};
	size_t len = sizeof(artifact_sample) - 1, at = next(s) % len;

	memcpy(out, artifact_sample, len);
	switch (next(s) % 3) {
	case 0:
		for (int i = 0, n = 1 + (int)(next(s) % 4); i < n; i++)
			out[next(s) % len] = (char)next(s);
		return len;
	case 1:
		return at;
	default: {
		const char *t = tokens[next(s) % (sizeof(tokens) / sizeof(tokens[0]))];
		size_t skip = next(s) % 8, tl = strlen(t);

		if (at + skip > len)
			skip = len - at;
		memcpy(out + at, t, tl);
		memcpy(out + at + tl, artifact_sample + at + skip, len - at - skip);
		return len - skip + tl;
	}
	}
}

static void test_damaged_artifacts_are_refused_or_read(void **state)
{
	static char text[sizeof(artifact_sample) + 64];
	uint64_t seed = 0x5eed, accepted = 0;

	(void)state;
	for (int i = 0; i < MUTANTS; i++) {
		struct artifact_expect e;
		char msg[1024];
		size_t len = mutate(&seed, text);
		/* an exact-size copy: ASan catches a read past its end */
		char *copy = malloc(len ? len : 1);

		assert_non_null(copy);
		memcpy(copy, text, len);
		if (parse(copy, len, &e, msg, sizeof(msg)) == 0)
			accepted++;
		else if (!msg[0])
			fail_msg("mutant %d refused without a reason", i);
		free(copy);
	}
	print_message("%d damaged artifacts: %llu still valid, the rest refused with a reason\n",
		      MUTANTS, (unsigned long long)accepted);
}

static void add_output(struct trace *t, uint32_t type, const char *text)
{
	struct trace_record r = {.type = type, .len = (uint32_t)strlen(text)};

	trace_append(t, &r, text);
}

/*
 * The output tail an artifact keeps: the job's output and panic text after
 * from (not the boot's, not the console's), its last lines, a trace cut
 * inside a record read up to the cut.
 */
static void test_the_output_tail_is_the_jobs_last_lines(void **state)
{
	struct trace t;
	size_t from;
	char *tail;

	(void)state;
	assert_int_equal(trace_init(&t), 0);
	add_output(&t, REWIND_EV_OUTPUT, "boot line\n");
	from = t.len;
	add_output(&t, REWIND_EV_OUTPUT, "one\ntwo\n");
	add_output(&t, REWIND_EV_CONSOLE, "kernel says\n");
	add_output(&t, REWIND_EV_OUTPUT, "three\nfour");
	add_output(&t, REWIND_EV_PANIC, "\npanic\n");
	tail = guest_output_tail(&t, from, 2);
	assert_string_equal(tail, "four\npanic\n");
	free(tail);
	tail = guest_output_tail(&t, from, 20);
	assert_string_equal(tail, "one\ntwo\nthree\nfour\npanic\n");
	free(tail);
	tail = guest_output_tail(&t, 0, 20);
	assert_string_equal(tail, "boot line\none\ntwo\nthree\nfour\npanic\n");
	free(tail);
	t.len -= 2; /* the panic record runs past the end now */
	tail = guest_output_tail(&t, from, 20);
	assert_string_equal(tail, "one\ntwo\nthree\nfour");
	free(tail);
	trace_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_real_artifact_reads_back),
		cmocka_unit_test(test_numbers_out_of_range_are_refused),
		cmocka_unit_test(test_a_recorded_profile_reads_back),
		cmocka_unit_test(test_a_hostile_profile_is_refused_naming_its_field),
		cmocka_unit_test(test_damaged_artifacts_are_refused_or_read),
		cmocka_unit_test(test_the_output_tail_is_the_jobs_last_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/* report/junit.xml (the JUnit XML that CI servers read). */
#include "reports/report_junit.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

static bool test_failed(const struct report_test *t)
{
	return !strcmp(report_text(t->state), "failed");
}

/* Why a test did not run its checks this night, or NULL if it did. */
static const char *skip_reason(const struct report_test *t)
{
	if (!strcmp(report_text(t->state), "skipped"))
		return "every run ended in the test's skip status";
	if (!strcmp(report_text(t->state), "not-run"))
		return "no time this night: the budget fits fewer tests than the suite has, "
		       "the next nights go on with the others";
	return NULL;
}

static size_t open_buckets_of(const struct report *r, const struct report_test *t)
{
	size_t n = 0;

	for (size_t i = 0; i < r->bucket_count; i++)
		n += report_state_is_open(r->buckets[i].state) &&
		     report_bucket_of(&r->buckets[i], t);
	return n;
}

/* The state that names the failure: new or reopened before the others. */
static const char *worst_state(const struct report *r, const struct report_test *t)
{
	static const char *const order[] = {"new", "reopened", "still-failing", "flaky"};

	for (size_t s = 0; s < sizeof(order) / sizeof(order[0]); s++)
		for (size_t i = 0; i < r->bucket_count; i++)
			if (report_bucket_of(&r->buckets[i], t) &&
			    !strcmp(report_text(r->buckets[i].state), order[s]))
				return order[s];
	return "open";
}

static void print_bucket(FILE *f, const struct report_bucket *b)
{
	report_escapef(f, "bucket %s (%s): %s %s: %s", b->id, b->state, b->cls, b->status,
		       b->message);
	fprintf(f, "\n  failures this night: %" PRId64 ", in all: %" PRId64 "\n", b->failures_night,
		b->failures_total);
	if (b->minimised)
		report_escapef(f, "  minimised schedule: %s\n", b->minimised);
	report_escapef(f, "  replay: %s\n", b->replay);
}

static void print_failure(FILE *f, const struct report *r, const struct report_test *t, size_t open)
{
	fprintf(f, "      <failure type=\"%s\" message=\"%zu open bucket%s\">", worst_state(r, t),
		open, open == 1 ? "" : "s");
	for (size_t i = 0; i < r->bucket_count; i++)
		if (report_state_is_open(r->buckets[i].state) &&
		    report_bucket_of(&r->buckets[i], t))
			print_bucket(f, &r->buckets[i]);
	fputs("</failure>\n", f);
}

static void print_error(FILE *f, const struct report_test *t)
{
	report_escapef(f, "      <error type=\"failed\" message=\"the test could not run: %s\">",
		       t->error ? t->error : "no reason recorded");
	report_escapef(f, "%s</error>\n", t->error);
}

static void print_case(FILE *f, const struct report *r, const struct report_test *t)
{
	size_t open = open_buckets_of(r, t);

	report_escapef(f, "    <testcase classname=\"rewind.explore\" name=\"%s\"", t->name);
	fprintf(f, " time=\"%.3f\"", t->seconds_run);
	if (!open && !test_failed(t) && !skip_reason(t)) {
		fputs("/>\n", f);
		return;
	}
	fputs(">\n", f);
	if (skip_reason(t))
		fprintf(f, "      <skipped message=\"%s\"/>\n", skip_reason(t));
	if (open)
		print_failure(f, r, t, open);
	if (test_failed(t))
		print_error(f, t);
	fputs("    </testcase>\n", f);
}

static void print_counts(FILE *f, const struct report *r)
{
	size_t failures = 0, errors = 0, skipped = 0;
	double seconds = 0;

	for (size_t i = 0; i < r->test_count; i++) {
		failures += open_buckets_of(r, &r->tests[i]) > 0;
		errors += test_failed(&r->tests[i]);
		skipped += skip_reason(&r->tests[i]) != NULL;
		seconds += r->tests[i].seconds_run;
	}
	fprintf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\"",
		r->test_count, failures, errors, skipped, seconds);
}

static void print_suite(FILE *f, const struct report *r)
{
	time_t started = (time_t)r->night.started;
	char stamp[32] = "";
	struct tm tm;

	if (r->night.started > 0 && gmtime_r(&started, &tm))
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(f, "  <testsuite name=\"rewind night %s\"", r->night_name);
	print_counts(f, r);
	if (stamp[0])
		fprintf(f, " timestamp=\"%s\"", stamp);
	fputs(">\n    <properties>\n", f);
	fprintf(f, "      <property name=\"night\" value=\"%" PRId64 "\"/>\n", r->night.id);
	report_escapef(f, "      <property name=\"state\" value=\"%s\"/>\n", r->night.state);
	report_escapef(f, "      <property name=\"engine\" value=\"%s\"/>\n", r->night.engine);
	fputs("    </properties>\n", f);
	for (size_t i = 0; i < r->test_count; i++)
		print_case(f, r, &r->tests[i]);
	fputs("  </testsuite>\n", f);
}

int report_junit_write(struct report *r)
{
	struct report_stream s;

	if (report_stream_open(&s))
		return -1;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"rewind explore\"",
	      s.f);
	print_counts(s.f, r);
	fputs(">\n", s.f);
	print_suite(s.f, r);
	fputs("</testsuites>\n", s.f);
	return report_stream_commit(r, &s, "junit.xml");
}

/* SPDX-License-Identifier: MIT */
/*
 * report/index.html. Every string from the history and the explanations is
 * escaped: messages, sites and explanations are the guest's output, which
 * is untrusted. Links are relative, so the results directory can be moved
 * or served as it is.
 */
#include "reports/report_html.h"

#include "reports/report_explain.h"
#include "reports/report_summary.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char STYLE[] =
	"body{font-family:sans-serif;margin:1.5em auto;max-width:1400px;padding:0 1em;"
	"color:#222}\n"
	"h1{margin-bottom:.2em}h2{border-bottom:2px solid #ccc;margin-top:1.6em}\n"
	"table{border-collapse:collapse;margin:.5em 0}\n"
	"th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}\n"
	"th{background:#f0f0f0}td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
	"pre{background:#f6f6f6;border:1px solid #ddd;padding:.6em;overflow-x:auto;"
	"white-space:pre-wrap;word-break:break-all}\n"
	"pre.replay{background:#fffbe6}\n"
	"figure{display:inline-block;margin:.5em .6em .5em 0}figure img{border:1px solid #ddd}\n"
	"figcaption{font-size:.9em;color:#555}\n"
	".verdict{font-size:1.2em;font-weight:bold;padding:.3em .6em;display:inline-block}\n"
	".status-0{background:#e3f6e3}.status-1{background:#fde8c8}.status-2{background:#f8d0d0}\n"
	".state{font-weight:bold;padding:0 .4em;border-radius:3px;background:#ddd}\n"
	"span.state-new,span.state-reopened,span.state-failed{background:#f8c0c0}\n"
	"span.state-still-failing,span.state-flaky,span.state-interrupted{background:#fde0b0}\n"
	"span.state-fixed,span.state-done{background:#c8f0c8}\n"
	"span.state-skipped,span.state-not-run{background:#e4e4f4}\n"
	"section.bucket{border:1px solid #ccc;border-radius:4px;padding:0 1em 1em;"
	"margin:1em 0}\n"
	"section.state-new,section.state-reopened{border-left:6px solid #d33}\n"
	"section.state-still-failing,section.state-flaky{border-left:6px solid #e90}\n"
	"section.state-fixed{border-left:6px solid #3a3}\n"
	".problem,.no-explanation,.no-plot{color:#a00}\n"
	"code{font-family:monospace}\n";

/* --- small writers -------------------------------------------------------- */

static void state_label(FILE *f, const char *state)
{
	report_escapef(f, "<span class=\"state state-%s\">%s</span>", state,
		       state ? state : "unknown");
}

static void row_text(FILE *f, const char *key, const char *value)
{
	report_escapef(f, "<tr><th>%s</th><td>%s</td></tr>\n", key, value);
}

static void row_number(FILE *f, const char *key, int64_t value)
{
	fprintf(f, "<tr><th>%s</th><td>%" PRId64 "</td></tr>\n", key, value);
}

/* --- the buckets ---------------------------------------------------------------- */

static void bucket_signature(FILE *f, const struct report_bucket *b)
{
	fputs("<table class=\"signature\">\n", f);
	row_text(f, "test", b->test);
	row_text(f, "class", b->cls);
	row_text(f, "status", b->status);
	report_escapef(f, "<tr><th>message</th><td><code>%s</code></td></tr>\n", b->message);
	row_number(f, "failures this night", b->failures_night);
	row_number(f, "failures in all", b->failures_total);
	row_number(f, "first night", b->first_night);
	row_number(f, "last night found", b->last_night);
	row_number(f, "nights found", b->nights_seen);
	fputs("</table>\n", f);
}

static void bucket_sites(FILE *f, const struct report_bucket *b)
{
	cJSON *sites = report_sites_json(b->sites), *site;

	fputs("<h4>Sites</h4>\n", f);
	if (!cJSON_GetArraySize(sites))
		fputs("<p>none recorded</p>\n", f);
	else
		fputs("<ul class=\"sites\">\n", f);
	cJSON_ArrayForEach(site, sites)
	{
		char *text = cJSON_IsString(site) ? NULL : cJSON_PrintUnformatted(site);

		fputs("<li><code>", f);
		if (cJSON_IsObject(site) &&
		    cJSON_IsString(cJSON_GetObjectItemCaseSensitive(site, "function")))
			report_explain_site(f, site);
		else
			report_escape(f, text ? text : site->valuestring);
		fputs("</code></li>\n", f);
		free(text);
	}
	if (cJSON_GetArraySize(sites))
		fputs("</ul>\n", f);
	cJSON_Delete(sites);
}

static void bucket_files(FILE *f, const struct report_bucket *b)
{
	report_escapef(f, "<h4>Replay</h4>\n<pre class=\"replay\"><code>%s</code></pre>\n",
		       b->replay ? b->replay : "(no replay command recorded)");
	fputs("<p class=\"replay-note\">Run it in the results directory.</p>\n"
	      "<ul class=\"files\">\n<li>minimised schedule: ",
	      f);
	report_html_link(f, b->minimised);
	fputs("</li>\n<li>first failing run: ", f);
	report_html_link(f, b->artifact);
	fputs("</li>\n</ul>\n", f);
}

static void bucket_section(FILE *f, const struct report *r, const struct report_bucket *b)
{
	report_escapef(f, "<section class=\"bucket state-%s\" id=\"bucket-%s\">\n<h3>", b->state,
		       b->id);
	state_label(f, b->state);
	/* "signal 6" says more than "signal"; a hang has only its class */
	report_escapef(f, " <code>%s</code> %s: %s</h3>\n", b->id, b->test,
		       b->status && b->status[0] ? b->status : b->cls);
	bucket_signature(f, b);
	bucket_sites(f, b);
	bucket_files(f, b);
	report_explain_write(f, r, b);
	fputs("</section>\n", f);
}

static void buckets_part(FILE *f, const struct report *r)
{
	fputs("<section id=\"buckets\">\n<h2>Buckets</h2>\n", f);
	if (!r->bucket_count)
		fputs("<p>No bucket has a state this night.</p>\n", f);
	for (size_t i = 0; i < r->bucket_count; i++)
		bucket_section(f, r, &r->buckets[i]);
	fputs("</section>\n", f);
}

/* --- the tests and the plots ------------------------------------------------------ */

static void test_buckets_cell(FILE *f, const struct report *r, const struct report_test *t)
{
	bool any = false;

	for (size_t i = 0; i < r->bucket_count; i++) {
		const struct report_bucket *b = &r->buckets[i];

		if (!report_bucket_of(b, t))
			continue;
		fputs(any ? "<br>" : "", f);
		report_escapef(f, "<a href=\"#bucket-%s\"><code>%s</code></a> ", b->id, b->id);
		state_label(f, b->state);
		any = true;
	}
	if (!any)
		fputs("none", f);
}

static void test_row(FILE *f, const struct report *r, const struct report_test *t)
{
	report_escapef(f, "<tr class=\"test\"><td class=\"test-name\">%s</td><td>", t->name);
	state_label(f, t->state);
	fprintf(f,
		"</td><td class=\"num\">%.0f / %" PRId64 "</td><td class=\"num\">%" PRId64
		"</td><td class=\"num\">%.1f</td><td class=\"num\">%" PRId64
		"</td><td class=\"num\">%" PRId64 "</td><td>",
		t->seconds_run, t->seconds_planned, t->execs, t->exec_per_s, t->edges, t->failures);
	test_buckets_cell(f, r, t);
	report_escapef(f, "</td><td>%s</td></tr>\n", t->error);
}

/* How many tests skipped or got no time, when any did. */
static void tests_not_run(FILE *f, const struct report *r)
{
	size_t skipped = 0, not_run = 0;

	for (size_t i = 0; i < r->test_count; i++) {
		skipped += !strcmp(report_text(r->tests[i].state), "skipped");
		not_run += !strcmp(report_text(r->tests[i].state), "not-run");
	}
	if (skipped)
		fprintf(f,
			"<p id=\"tests-skipped\">%zu test%s skipped: every run ended in the "
			"test's skip status.</p>\n",
			skipped, skipped == 1 ? "" : "s");
	if (not_run)
		fprintf(f,
			"<p id=\"tests-not-run\">%zu test%s got no time this night: the budget "
			"fits fewer tests than the suite has, the next nights go on with the "
			"others.</p>\n",
			not_run, not_run == 1 ? "" : "s");
}

static void tests_part(FILE *f, const struct report *r)
{
	fputs("<section id=\"tests\">\n<h2>Tests</h2>\n", f);
	tests_not_run(f, r);
	fputs("<table id=\"tests-table\">\n<thead><tr>"
	      "<th>test</th><th>state</th><th>seconds (run / planned)</th><th>executions</th>"
	      "<th>exec/s</th><th>edges</th><th>failures</th><th>buckets</th><th>error</th>"
	      "</tr></thead>\n<tbody>\n",
	      f);
	for (size_t i = 0; i < r->test_count; i++)
		test_row(f, r, &r->tests[i]);
	fputs("</tbody>\n</table>\n</section>\n", f);
}

static void figure(FILE *f, const char *src, const char *alt, const char *name)
{
	report_escapef(f,
		       "<figure class=\"plot\"><img src=\"%s\" width=\"560\" height=\"315\" "
		       "alt=\"%s%s\"><figcaption>%s%s</figcaption></figure>\n",
		       src, alt, name, alt, name);
}

static void plots_part(FILE *f, const struct report *r)
{
	fputs("<section id=\"plots\">\n<h2>Plots</h2>\n", f);
	if (r->plots_problem)
		report_escapef(f, "<p class=\"problem\">Some plots are missing: %s.</p>\n",
			       r->plots_problem);
	if (r->plot_open_buckets[0])
		figure(f, r->plot_open_buckets,
		       "Open buckets (new, still-failing, reopened, flaky) on each night up to "
		       "this one",
		       "");
	for (size_t i = 0; i < r->test_count; i++) {
		const struct report_test *t = &r->tests[i];

		if (!strcmp(report_text(t->state), "not-run"))
			continue; /* no time this night, nothing to plot */
		report_escapef(f, "<div class=\"test-plots\">\n<h3>%s</h3>\n", t->name);
		if (t->plot_execs[0])
			figure(f, t->plot_execs, "Executions over time: ", t->name);
		if (t->plot_edges[0])
			figure(f, t->plot_edges, "Coverage (edges) over time: ", t->name);
		if (!t->plot_execs[0] && !t->plot_edges[0])
			fputs("<p class=\"no-plot\">no plot: no samples this night</p>\n", f);
		fputs("</div>\n", f);
	}
	fputs("</section>\n", f);
}

/* --- the page ------------------------------------------------------------------- */

static void bucket_counts(FILE *f, const struct report *r)
{
	size_t open = 0, fresh = 0, fixed = 0;

	for (size_t i = 0; i < r->bucket_count; i++) {
		const char *state = report_text(r->buckets[i].state);

		open += report_state_is_open(state);
		fresh += !strcmp(state, "new") || !strcmp(state, "reopened");
		fixed += !strcmp(state, "fixed");
	}
	fprintf(f,
		"<tr><th>buckets</th><td>%zu open (%zu new or reopened), %zu fixed</td>"
		"</tr>\n",
		open, fresh, fixed);
}

static void night_part(FILE *f, const struct report *r)
{
	char started[48], ended[48];

	report_time_text(r->night.started, started, sizeof(started));
	report_time_text(r->night.ended, ended, sizeof(ended));
	fprintf(f, "<h1>Rewind night %s</h1>\n<p class=\"verdict status-%d\">", r->night_name,
		r->status);
	fprintf(f, "Exit status %d: ", r->status);
	report_escape(f, r->verdict);
	fputs("</p>\n<table class=\"night\" id=\"night\">\n<tr><th>state</th><td>", f);
	state_label(f, r->night.state);
	fputs("</td></tr>\n", f);
	row_text(f, "started", started);
	row_text(f, "ended", ended);
	row_number(f, "seconds (budget)", r->night.seconds);
	row_number(f, "jobs", r->night.jobs);
	row_text(f, "engine", r->night.engine);
	row_text(f, "suite", r->night.suite);
	bucket_counts(f, r);
	fputs("</table>\n<p>Also: <a href=\"summary.json\">summary.json</a>, "
	      "<a href=\"junit.xml\">junit.xml</a>.</p>\n",
	      f);
}

static void page(FILE *f, const struct report *r)
{
	fprintf(f,
		"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<title>Rewind night %s</title>\n<style>\n%s</style>\n</head>\n<body>\n",
		r->night_name, STYLE);
	night_part(f, r);
	/* what broke first (a reader came for it), the numbers next, the plots last */
	fputs("<nav><a href=\"#buckets\">Buckets</a> | <a href=\"#tests\">Tests</a> | "
	      "<a href=\"#plots\">Plots</a></nav>\n",
	      f);
	buckets_part(f, r);
	tests_part(f, r);
	plots_part(f, r);
	fputs("<footer><p>Written by <code>rewind report</code> from the history of the "
	      "results directory.</p></footer>\n</body>\n</html>\n",
	      f);
}

int report_html_write(struct report *r)
{
	struct report_stream s;

	if (report_stream_open(&s))
		return -1;
	page(s.f, r);
	return report_stream_commit(r, &s, "index.html");
}

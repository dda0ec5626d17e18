/* SPDX-License-Identifier: MIT */
/*
 * One bucket's explanation on report/index.html, from RESULTS/<explanation>
 * (explain.json, docs/explore.md) and explain.txt beside it. Both are the
 * guest's output, untrusted: every string is escaped, and a file that is
 * missing, too big or not an explanation leaves a note instead.
 */
#include "reports/report_explain.h"

#include "lib/file.h"
#include "reports/report_html.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What an explanation file may weigh before the page leaves it out. */
#define EXPLAIN_JSON_MAX ((size_t)16 << 20)
#define EXPLAIN_TXT_MAX	 ((size_t)4 << 20)

/* --- JSON from an untrusted file -------------------------------------------- */

/* v if it is an array (an object), else NULL: what cJSON_ArrayForEach may walk. */
static const cJSON *array_of(const cJSON *v)
{
	return cJSON_IsArray(v) ? v : NULL;
}

static const cJSON *object_of(const cJSON *v)
{
	return cJSON_IsObject(v) ? v : NULL;
}

static const char *json_string(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A number as text ("" when absent, hex strings as they are). */
static void json_value_text(const cJSON *v, char *buf, size_t size)
{
	buf[0] = 0;
	if (cJSON_IsNumber(v))
		snprintf(buf, size, "%.0f", v->valuedouble);
	else if (cJSON_IsString(v))
		snprintf(buf, size, "%s", v->valuestring);
	else if (cJSON_IsBool(v))
		snprintf(buf, size, "%s", cJSON_IsTrue(v) ? "true" : "false");
}

/* How long a field's text may be (json_value_text cuts it there). */
#define FIELD_TEXT 256

/* A field of o as text (json_value_text), in buf (FIELD_TEXT bytes). */
static const char *field_text(const cJSON *o, const char *key, char *buf)
{
	json_value_text(cJSON_GetObjectItemCaseSensitive(o, key), buf, FIELD_TEXT);
	return buf;
}

/* One frame's "function (file:line)"; no_function (NULL: nothing) for a frame without one. */
static void frame_text(FILE *f, const cJSON *frame, const char *no_function)
{
	const char *function = json_string(frame, "function");
	char line[FIELD_TEXT];

	report_escapef(f, "%s (<code>%s:%s</code>)", function ? function : no_function,
		       json_string(frame, "file"), field_text(frame, "line", line));
}

/* "function (file:line)", then what it was inlined into. */
void report_explain_site(FILE *f, const cJSON *site)
{
	const cJSON *inl = cJSON_GetObjectItemCaseSensitive(site, "inlined_into"), *frame;

	if (!cJSON_IsObject(site)) {
		fputs("unknown", f);
		return;
	}
	frame_text(f, site, "?");
	cJSON_ArrayForEach(frame, array_of(inl))
	{
		fputs(", inlined into ", f);
		frame_text(f, frame, NULL);
	}
}

/* --- the explanation ---------------------------------------------------------- */

static void explain_outcome(FILE *f, const cJSON *x)
{
	report_escapef(
		f, "<p>Outcome: <strong>%s</strong>; the last output line: <code>%s</code></p>\n",
		json_string(x, "outcome"), json_string(x, "last_output_line"));
}

/* One injection: its kind, then every other field as "key value". */
static void injection_text(FILE *f, const cJSON *inj)
{
	const cJSON *field;

	report_escape(f, json_string(inj, "kind") ? json_string(inj, "kind") : "?");
	cJSON_ArrayForEach(field, object_of(inj))
	{
		char text[FIELD_TEXT];

		if (field->string && !strcmp(field->string, "kind"))
			continue;
		json_value_text(field, text, sizeof(text));
		report_escapef(f, " %s %s", field->string, text);
	}
}

static void explain_schedule(FILE *f, const cJSON *x)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(x, "minimal_input");
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(in, "injections"), *inj;

	fputs("<h4>Minimal schedule</h4>\n", f);
	if (!cJSON_IsObject(in)) {
		fputs("<p>none recorded</p>\n", f);
		return;
	}
	report_escapef(f, "<p class=\"minimal-input\">mode %s, seed <code>%s",
		       json_string(in, "mode"), json_string(in, "seed"));
	fprintf(f, "</code>, %d injection%s</p>\n<ol class=\"schedule\" start=\"0\">\n",
		cJSON_GetArraySize(array_of(list)),
		cJSON_GetArraySize(array_of(list)) == 1 ? "" : "s");
	cJSON_ArrayForEach(inj, array_of(list))
	{
		fputs("<li><code>", f);
		injection_text(f, inj);
		fputs("</code></li>\n", f);
	}
	fputs("</ol>\n", f);
}

static void thread_text(FILE *f, const cJSON *t)
{
	char ordinal[FIELD_TEXT], tid[FIELD_TEXT];

	if (!cJSON_IsObject(t)) {
		fputs("unknown", f);
		return;
	}
	report_escapef(f, "thread %s (tid %s, %s)", field_text(t, "ordinal", ordinal),
		       field_text(t, "tid", tid), json_string(t, "program"));
}

static void landing_row(FILE *f, const cJSON *l)
{
	const cJSON *callers = cJSON_GetObjectItemCaseSensitive(l, "called_from"), *c;
	char step[FIELD_TEXT];

	report_escapef(f, "<tr><td><code>%s</code></td><td class=\"num\">%s</td><td>",
		       json_string(l, "injection"), field_text(l, "step", step));
	thread_text(f, cJSON_GetObjectItemCaseSensitive(l, "thread"));
	fputs("</td><td>", f);
	report_explain_site(f, cJSON_GetObjectItemCaseSensitive(l, "site"));
	cJSON_ArrayForEach(c, array_of(callers))
	{
		fputs("<br>called from ", f);
		report_explain_site(f, c);
	}
	report_escapef(f, "</td><td><code>%s</code></td></tr>\n", json_string(l, "last_output"));
}

static void explain_landings(FILE *f, const cJSON *x)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(x, "landings"), *l;

	fputs("<h4>Where the injections landed</h4>\n", f);
	if (!cJSON_GetArraySize(array_of(list))) {
		fputs("<p>no landing recorded</p>\n", f);
		return;
	}
	fputs("<table class=\"landings\"><thead><tr><th>injection</th><th>step</th>"
	      "<th>thread</th><th>site</th><th>its last output</th></tr></thead><tbody>\n",
	      f);
	cJSON_ArrayForEach(l, array_of(list))
	{
		landing_row(f, l);
	}
	fputs("</tbody></table>\n", f);
}

static void access_text(FILE *f, const char *what, const cJSON *a)
{
	char tid[FIELD_TEXT], address[FIELD_TEXT];

	fprintf(f, "<li>%s: ", what);
	report_escapef(f, "thread tid %s %ss <code>%s</code> in ", field_text(a, "tid", tid),
		       json_string(a, "kind"), field_text(a, "address", address));
	report_explain_site(f, cJSON_GetObjectItemCaseSensitive(a, "site"));
	if (json_string(a, "value"))
		report_escapef(f, ", value <code>%s</code>", json_string(a, "value"));
	fputs("</li>\n", f);
}

static void explain_racing_pair(FILE *f, const cJSON *x)
{
	const cJSON *pair = cJSON_GetObjectItemCaseSensitive(x, "racing_pair");
	const cJSON *after;

	if (!cJSON_IsObject(pair))
		return;
	after = cJSON_GetObjectItemCaseSensitive(pair, "store_after_load_in_failing_run");
	fputs("<h4>Racing pair</h4>\n<ul class=\"racing-pair\">\n", f);
	access_text(f, "the load", cJSON_GetObjectItemCaseSensitive(pair, "load"));
	access_text(f, "the store", cJSON_GetObjectItemCaseSensitive(pair, "store"));
	fputs("</ul>\n", f);
	if (cJSON_IsTrue(after))
		fputs("<p>In the nearest passing run the load reads this store; in the failing "
		      "run the store comes after the load.</p>\n",
		      f);
}

static void explain_timeline(FILE *f, const cJSON *x)
{
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(x, "timeline"), *row;

	if (!cJSON_GetArraySize(array_of(rows)))
		return;
	fputs("<h4>Timeline</h4>\n<table class=\"timeline\"><thead><tr><th>step</th><th>tid</th>"
	      "<th>what</th></tr></thead><tbody>\n",
	      f);
	cJSON_ArrayForEach(row, array_of(rows))
	{
		char step[FIELD_TEXT], tid[FIELD_TEXT];

		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "cut"))) {
			fputs("<tr><td colspan=\"3\">&#8230;</td></tr>\n", f);
			continue;
		}
		report_escapef(f,
			       "<tr><td class=\"num\">%s</td><td class=\"num\">%s</td>"
			       "<td><code>%s</code></td></tr>\n",
			       field_text(row, "step", step), field_text(row, "tid", tid),
			       json_string(row, "what"));
	}
	fputs("</tbody></table>\n", f);
}

/* Reads RESULTS/path, NUL-terminated; NULL with why set when it cannot. */
static char *read_results_file(const struct report *r, const char *path, size_t max,
			       const char **why)
{
	char full[4400];
	uint8_t *data;
	size_t len;
	char *text;

	snprintf(full, sizeof(full), "%s/%s", r->results, path);
	if (access(full, F_OK) < 0) {
		*why = "its file is missing";
		return NULL;
	}
	if (file_read_max(full, max, "the explanation", &data, &len) < 0) {
		*why = "its file cannot be read (see the message on stderr)";
		return NULL;
	}
	text = malloc(len + 1);
	if (text) {
		memcpy(text, data, len);
		text[len] = 0;
	}
	free(data);
	if (!text)
		*why = "out of memory";
	return text;
}

/* explain.txt beside explain.json, in a <pre>, when it is there. */
static void explain_text(FILE *f, const struct report *r, const char *json_path)
{
	const char *slash = strrchr(json_path, '/'), *why = NULL;
	char *path, *text;

	if (asprintf(&path, "%.*sexplain.txt", slash ? (int)(slash - json_path + 1) : 0,
		     json_path) < 0)
		return;
	text = read_results_file(r, path, EXPLAIN_TXT_MAX, &why);
	if (text)
		report_escapef(f, "<h4>explain.txt</h4>\n<pre class=\"explain-txt\">%s</pre>\n",
			       text);
	free(text);
	free(path);
}

static void no_explanation(FILE *f, const char *why)
{
	report_escapef(f, "<p class=\"no-explanation\">no explanation: %s</p>\n", why);
}

void report_explain_write(FILE *f, const struct report *r, const struct report_bucket *b)
{
	const char *why = NULL;
	char *text;
	cJSON *x;

	fputs("<div class=\"explanation\">\n<h4>Explanation</h4>\n", f);
	if (!b->explanation || !b->explanation[0]) {
		no_explanation(f, "none was recorded for this bucket");
		fputs("</div>\n", f);
		return;
	}
	text = read_results_file(r, b->explanation, EXPLAIN_JSON_MAX, &why);
	x = text ? cJSON_Parse(text) : NULL;
	if (!text)
		no_explanation(f, why);
	else if (!cJSON_IsObject(x) || !json_string(x, "format") ||
		 strcmp(json_string(x, "format"), "rewind-explanation"))
		no_explanation(f, "its file is not a rewind explanation (explain.json)");
	if (x && !strcmp(report_text(json_string(x, "format")), "rewind-explanation")) {
		fputs("<p>From ", f);
		report_html_link(f, b->explanation);
		fputs(".</p>\n", f);
		explain_outcome(f, x);
		explain_schedule(f, x);
		explain_landings(f, x);
		explain_racing_pair(f, x);
		explain_timeline(f, x);
	}
	explain_text(f, r, b->explanation);
	cJSON_Delete(x);
	free(text);
	fputs("</div>\n", f);
}

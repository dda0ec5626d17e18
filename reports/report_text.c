/* SPDX-License-Identifier: MIT */
/*
 * The small helpers the report's writers (reports/report_*.c) share: text
 * of a column, a bucket's test, HTML and XML escapes (of a value, or of
 * every value of a template), UTF-8 repair, times, and the memory stream a
 * file is built in. Below every writer and reports/report.c.
 */
#include "reports/report.h"

#include "lib/file.h"
#include "lib/log.h"
#include "lib/utf8.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

bool report_state_is_open(const char *state)
{
	static const char *const open[] = {"new", "still-failing", "reopened", "flaky"};

	for (size_t i = 0; state && i < sizeof(open) / sizeof(open[0]); i++)
		if (!strcmp(state, open[i]))
			return true;
	return false;
}

const char *report_text(const char *s)
{
	return s ? s : "";
}

bool report_bucket_of(const struct report_bucket *b, const struct report_test *t)
{
	return !strcmp(report_text(b->test), report_text(t->name));
}

void report_escape(FILE *out, const char *s)
{
	const uint8_t *p = (const uint8_t *)s, *end = p ? p + strlen(s) : NULL;

	while (p && *p) {
		size_t n = utf8_sequence_length(p, (size_t)(end - p));

		if (*p == '&')
			fputs("&amp;", out);
		else if (*p == '<')
			fputs("&lt;", out);
		else if (*p == '>')
			fputs("&gt;", out);
		else if (*p == '"')
			fputs("&quot;", out);
		else if (*p == '\'')
			fputs("&#39;", out);
		else if (*p == '\t' || *p == '\n')
			fputc(*p, out);
		else if (n == 0 || *p < 0x20 || *p == 0x7f)
			fputs("\xef\xbf\xbd", out); /* U+FFFD */
		else
			fwrite(p, 1, n, out);
		p += n ? n : 1;
	}
}

void report_escapef(FILE *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	while (*fmt) {
		if (fmt[0] == '%' && fmt[1] == 's') {
			report_escape(out, va_arg(ap, const char *));
			fmt += 2;
		} else if (fmt[0] == '%' && fmt[1] == '%') {
			fputc('%', out);
			fmt += 2;
		} else {
			fputc(*fmt++, out);
		}
	}
	va_end(ap);
}

char *report_utf8(const char *s)
{
	const uint8_t *p = (const uint8_t *)s, *end;
	char *copy, *out;

	if (!s || !(copy = malloc(strlen(s) * 3 + 1)))
		return NULL;
	end = p + strlen(s);
	for (out = copy; *p;) {
		size_t n = utf8_sequence_length(p, (size_t)(end - p));

		if (n) {
			memcpy(out, p, n);
			out += n, p += n;
		} else {
			memcpy(out, "\xef\xbf\xbd", 3);
			out += 3, p++;
		}
	}
	*out = 0;
	return copy;
}

void report_time_text(int64_t t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t <= 0 || !gmtime_r(&tt, &tm) || !strftime(buf, size, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, size, "-");
}

int report_stream_open(struct report_stream *s)
{
	s->data = NULL;
	s->len = 0;
	s->f = open_memstream(&s->data, &s->len);
	if (!s->f) {
		rw_err_errno(errno, "out of memory");
		return -1;
	}
	return 0;
}

int report_stream_commit(struct report *r, struct report_stream *s, const char *name)
{
	char path[4200];
	struct file_part part;
	bool bad = ferror(s->f) != 0;
	int rc = -1;

	if (fclose(s->f) || bad) {
		rw_err("out of memory while writing %s", name);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/%s", r->report_dir, name);
	part.data = s->data;
	part.len = s->len;
	if (file_write_atomic(path, &part, 1) == 0)
		rc = 0;
	else
		rw_err("cannot write %s (see above)", path);
out:
	free(s->data);
	s->data = NULL;
	s->f = NULL;
	return rc;
}

/* From report/ back to RESULTS/ (report/ is RESULTS/nights/NNNN/report). */
#define TO_RESULTS "../../../"

/* A path relative to RESULTS as a link from report/ (percent-encoded). */
static void href(FILE *f, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";

	if (path[0] != '/')
		fputs(TO_RESULTS, f);
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/-_.~", *p))
			fputc(*p, f);
		else
			fprintf(f, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
	}
}

void report_html_link(FILE *f, const char *path)
{
	if (!path || !path[0]) {
		fputs("none", f);
		return;
	}
	fputs("<a href=\"", f);
	href(f, path);
	fputs("\"><code>", f);
	report_escape(f, path);
	fputs("</code></a>", f);
}

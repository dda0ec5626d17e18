/* SPDX-License-Identifier: MIT */
/* The report's index.html: a static page (no script, no network, inline CSS). */
#ifndef REWIND_REPORT_HTML_H
#define REWIND_REPORT_HTML_H

#include "reports/report.h"

/*
 * Writes report/index.html: the night, each bucket with its explanation
 * (RESULTS/<explanation>, explain.txt beside it), minimised schedule and
 * replay command, then the tests, then the plots; 0 or -1 (message printed).
 */
int report_html_write(struct report *r);

#endif

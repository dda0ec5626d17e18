/* SPDX-License-Identifier: MIT */
/* One bucket's explanation (explain.json, explain.txt) on report/index.html. */
#ifndef REWIND_REPORT_EXPLAIN_H
#define REWIND_REPORT_EXPLAIN_H

#include "reports/report.h"

#include <cjson/cJSON.h>
#include <stdio.h>

/*
 * Writes b's explanation as a <div class="explanation">: the outcome, the
 * minimal schedule, where the injections landed, the racing pair and the
 * timeline from RESULTS/<b->explanation>, then explain.txt beside it; a
 * note saying why when there is none or it cannot be read.
 */
void report_explain_write(FILE *f, const struct report *r, const struct report_bucket *b);

/* A site object ("function (file:line)", then what it was inlined into), escaped. */
void report_explain_site(FILE *f, const cJSON *site);

#endif

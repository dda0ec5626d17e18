/* SPDX-License-Identifier: MIT */
/* The report's summary.json: the night, its tests and buckets, for machines. */
#ifndef REWIND_REPORT_SUMMARY_H
#define REWIND_REPORT_SUMMARY_H

#include "reports/report.h"

#include <cjson/cJSON.h>

/* Writes report/summary.json; 0 or -1 (message printed). */
int report_summary_write(struct report *r);

/*
 * A bucket's sites (buckets.sites) as a JSON array: the column's own JSON
 * array, or its lines as strings when it is plain text; never NULL.
 */
cJSON *report_sites_json(const char *sites);

#endif

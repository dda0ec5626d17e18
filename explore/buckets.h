/* SPDX-License-Identifier: MIT */
/*
 * Failure buckets across nights (docs/explore.md, "Buckets"): a night's
 * artifacts grouped by signature into the history, the first of each new
 * bucket kept and explained, and the buckets a night did not find checked
 * against the current build (fixed or still failing).
 */
#ifndef REWIND_BUCKETS_H
#define REWIND_BUCKETS_H

#include "explore/night.h"
#include "reports/history.h"

/* Records test t's buckets for night n; 0, or -1 (reported). */
int buckets_import_test(sqlite3 *db, const struct night *n, const struct suite_test *t);

/* Brings each bucket's totals and state up to date from bucket_nights. */
int buckets_update_totals(sqlite3 *db);

#endif

/* SPDX-License-Identifier: MIT */
/* The report's plots: gnuplot run on data files from the history (report/plots/). */
#ifndef REWIND_REPORT_PLOTS_H
#define REWIND_REPORT_PLOTS_H

#include "reports/report.h"

/*
 * Draws report/plots/execs-TEST.png and edges-TEST.png from each test's
 * samples of the night, and open-buckets.png over the nights up to it; sets
 * the names of those it made in r (a test without samples gets none) and
 * r->plots_problem when gnuplot could not draw them (message printed). The
 * report goes on without plots.
 */
void report_plots_write(struct report *r, sqlite3 *db);

#endif

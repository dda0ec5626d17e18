/* SPDX-License-Identifier: MIT */
/* The report's junit.xml: one test case per test of the night, for CI. */
#ifndef REWIND_REPORT_JUNIT_H
#define REWIND_REPORT_JUNIT_H

#include "reports/report.h"

/*
 * Writes report/junit.xml: a test case per night_tests row, with a
 * <failure> while a bucket of the test is open that night and an <error>
 * when the test could not run; 0 or -1 (message printed).
 */
int report_junit_write(struct report *r);

#endif

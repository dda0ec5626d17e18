/* SPDX-License-Identifier: MIT */
/*
 * Live progress of a night on this machine: every few seconds one line with
 * executions, exec/s, failures and buckets, from afl-fuzz's plot_data (which
 * it rewrites every 5 s, unlike fuzzer_stats) and the artifacts folders.
 */
#ifndef REWIND_PROGRESS_H
#define REWIND_PROGRESS_H

#include "explore/night.h"

#include <stdint.h>

#define PROGRESS_MAX_SEEN    4096
#define PROGRESS_MAX_BUCKETS 256

struct progress_test {
	uint64_t *seen; /* hashes of artifact names already read (PROGRESS_MAX_SEEN at most) */
	size_t seen_count, seen_capacity;
	char buckets[PROGRESS_MAX_BUCKETS][17];
	size_t bucket_count;
	uint64_t execs, edges;
	size_t artifacts;	  /* failing runs so far */
	double exec_per_s, since; /* since: when execs was read */
	bool finished;		  /* every worker of it has written its result: read no more */
};

/* Zeroed to start; its tests are allocated at the first line. */
struct progress {
	struct progress_test *tests;
	size_t count;
};

/* One line on stderr, plus a line for each bucket seen for the first time. */
void progress_print(struct progress *p, const struct night *n, double elapsed);

void progress_free(struct progress *p);

/* Numbers of afl's plot_data rows: t, total_execs, edges_found, saved_crashes, execs_per_sec. */
struct plot_row {
	double t, execs, edges, crashes, exec_per_s;
};

/* Reads instance_dir/plot_data: calls fn for each row; 0, or -1 if there is none. */
int progress_plot_rows(const char *instance_dir, void (*fn)(const struct plot_row *, void *),
		       void *ctx);

/* The last row of instance_dir/plot_data (all zero if there is none). */
void progress_last_row(const char *instance_dir, struct plot_row *row);

/* What a rewind-harness --progress file says so far (all 0 if there is none). */
struct harness_counts {
	unsigned long long execs, failures, skips; /* skips: runs that ended in the skip status */
};

void progress_read_counts(const char *path, struct harness_counts *c);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * What --explain found (struct explanation, filled by harness/explain/explain.c),
 * and its report: text for the terminal, JSON beside the file, the
 * minimised schedule as an artifact of its own, and the timeline of the
 * job's threads around the failure (built by harness/explain/timeline.c).
 */
#ifndef REWIND_EXPLAIN_REPORT_H
#define REWIND_EXPLAIN_REPORT_H

#include "harness/explain/landing.h"
#include "harness/explain/minimise.h"
#include "harness/explain/symbols.h"
#include "harness/replay.h"

#define EXPLAIN_WINDOWS	    4
#define EXPLAIN_WINDOW_SCAN 48u /* positions tried on each side of an injection */
#define TIMELINE_ROWS	    48
#define TIMELINE_COLUMNS    4
#define ROW_CUT		    UINT32_MAX /* a row that stands for rows left out */

enum position_unit { UNIT_STEP, UNIT_EVENT };

struct window_side {
	bool found;	     /* a position that does not fail alike */
	bool capped;	     /* still failing after the scan's limit */
	uint64_t pos;	     /* that position */
	enum exec_class cls; /* what the run there came to */
};

struct window {
	uint32_t index; /* in the minimal schedule (file order) */
	struct injection inj;
	enum position_unit unit;
	uint64_t pos, lo, hi; /* its position; it fails alike at every one in lo..hi */
	struct window_side below, above;
};

struct access {
	uint32_t tid;
	uint64_t pc, addr, value; /* value: what a load read, what a store left */
	bool value_known;
	uint32_t what;
	bool write;
	uint64_t index; /* its event number */
	struct code_location site;
};

struct racing_pair {
	bool log_faithful; /* both logged runs came to what they should */
	bool found;
	uint64_t diverge_index; /* the first event the two runs do differently */
	struct access first;	/* the load whose source differs (as the failing run made it) */
	struct access second;	/* the store it reads in the passing run */
	bool second_after;	/* the failing run makes that store after the load */
};

struct switch_rec {
	uint64_t step;
	uint32_t from, to;
};

struct switch_diff {
	bool found, in_fail, in_pass;
	struct switch_rec fail, pass;
};

struct timeline_row {
	uint64_t step;
	uint32_t tid;	/* 0: the whole job (outcome) */
	char text[256]; /* room for a spin yield's code location */
	bool landing;	/* an injection landed here */
};

struct explanation {
	struct exec_input original, minimal, passing;
	bool has_passing; /* a run one position away that passes */
	struct exec_result failure, final;
	struct failure_signature signature;
	uint64_t minimise_execs, window_execs;
	/* a walk's failure: the walk, and the PCT sample that stands for it (minimise_walk) */
	bool is_walk;
	struct exec_input walk;
	uint32_t stand_in; /* its number among the samples tried, 0: none failed alike */
	struct window windows[EXPLAIN_WINDOWS];
	unsigned int window_count;
	struct racing_pair pair;
	struct switch_diff switch_diff;
	char program[128];
	struct symbols syms;
	struct landing landings[LANDING_MAX];
	unsigned int landing_count;
	struct thread_table threads; /* at the end of the final run */
	struct timeline_row rows[TIMELINE_ROWS];
	unsigned int row_count;
	bool rows_cut; /* rows were left out between the ones kept */
};

/*
 * Prints the explanation to text (stdout, or stderr under --json), writes
 * it as JSON (json_path, or PATH.explain.json) and the minimal schedule as
 * an artifact (PATH.min.json). 0 or -errno.
 */
int explain_report(struct explanation *x, const struct executor *ex, const struct replay_case *c,
		   const char *path, const char *json_path, FILE *text);

/* The explanation as JSON ("format": "rewind-explanation"), what explain_report writes. */
cJSON *explain_report_json(const struct explanation *x, const struct replay_case *c,
			   const char *path);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Crash artifacts: one self-contained JSON file per distinct failure (class
 * and trace hash), written atomically. It holds the input (seed and
 * schedule, in JSON and as the raw bytes afl-fuzz saw), the job, the hashes
 * of everything the run is a function of, what a pct input's execution
 * read of the job's profile, the outcome with its step, the trace hash and
 * the last lines of guest output: enough for `rewind-harness --replay FILE`
 * to rebuild the run and check it is the same.
 */
#ifndef REWIND_ARTIFACT_H
#define REWIND_ARTIFACT_H

#include "harness/executor.h"
#include "harness/job.h"
#include "harness/profile_record.h"
#include "harness/run_identity.h"
#include "lib/json_file.h"

#define ARTIFACT_FORMAT "rewind-crash"
/* 2: "added_files"; 3: a racy-events input's sites come from profile runs that are PCT
 * samples (harness/executor.c profile_racy); 4: "profile", what a pct input's execution
 * read of the job's profile, which its replay uses; versions 1 to 3 are read too */
#define ARTIFACT_VERSION	   4
#define ARTIFACT_OUTPUT_TAIL_LINES 20

/* A file the job added to the guest, by content. */
struct artifact_file {
	char guest[256];
	uint32_t mode;
	uint64_t xxh3;
};

/* What the artifact says happened. */
struct artifact_expect {
	enum exec_class cls;
	uint64_t job_steps;
	uint64_t trace_xxh3;
	char detail[256];
	struct run_identity identity;
	struct artifact_file files[RUN_MAX_ADDS]; /* the job's added files (version 2 on) */
	size_t file_count;
	uint64_t version; /* ARTIFACT_VERSION or an older one */
	struct profile_record
		profile; /* "profile" (events 0: none recorded, the replay profiles) */
};

/*
 * Writes DIR/CLASS-TRACEHASH.json unless it exists (same failure, same
 * file). Returns 1 if written, 0 if it existed, -errno if it could not be
 * written (reported; nothing half-written is left).
 */
int artifact_write(const char *dir, const struct harness_job *job, const struct executor *ex,
		   const uint8_t *raw, size_t raw_len, const struct exec_input *input,
		   const struct exec_result *res, char *path, size_t path_len);

/* Writes the artifact of this run to path (atomically, replacing it). 0 or -errno. */
int artifact_write_to(const char *path, const struct harness_job *job, const struct executor *ex,
		      const uint8_t *raw, size_t raw_len, const struct exec_input *input,
		      const struct exec_result *res);

/*
 * Reads an artifact: applies its job to job, fills input and expect.
 * 0 or -EINVAL with the reason reported.
 */
int artifact_parse(const char *text, size_t len, const char *what, struct harness_job *job,
		   struct exec_input *input, struct artifact_expect *expect);

/* The files of the job's archive (what --add put into the guest), by content hash. */
size_t artifact_files_of(const struct executor *ex, struct artifact_file *out, size_t max);

/* An integer field of o in min..max; absent, fractional, negative or out of range: -EINVAL. */
int artifact_u64_field(const cJSON *o, const char *key, const char *what, uint64_t min,
		       uint64_t max, uint64_t *out);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The job rewind-harness fuzzes or replays: guest kernel, base initramfs,
 * command, files to add, memory and budgets. The defaults are the bundled
 * racy example next to the harness binary (build/guest/...); a job file
 * (JSON, docs/harness.md) or flags override them. Also stored in every
 * crash artifact, so a replay rebuilds the same job.
 */
#ifndef REWIND_JOB_H
#define REWIND_JOB_H

#include "vmm/run_options.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#define JOB_MAX_ARGS 64

#define JOB_DEFAULT_COMMAND	"/bin/ledger"
#define JOB_DEFAULT_EPOCH_S	1767225600ull /* 2026-01-01T00:00:00Z, as `rewind run` */
#define JOB_DEFAULT_MEM		(128ull << 20)
#define JOB_DEFAULT_STEP_BUDGET 100000ull
#define JOB_DEFAULT_STUCK_MS	2000ull
#define JOB_DEFAULT_WALL_MS	10000ull
/*
 * A replay's or an explanation's verdict is the guest's: the step budget
 * (at least 1) and the stuck watchdog end every run, whatever the host's
 * speed. The job's wall budget, a fuzzing guard, does not cut them short;
 * this guard only catches a host that stalls, and says so.
 */
#define JOB_REPLAY_WALL_GUARD_MS (30ull * 60 * 1000)
#define JOB_DEFAULT_SLICE_BLOCKS RUN_DEFAULT_SLICE_BLOCKS /* counter mode: a preemption every N */
#define JOB_DEFAULT_BLOCK_NS	 RUN_DEFAULT_BLOCK_NS	  /* counter mode: time of one event */

/* A job option as the command line gave it (see job_apply_option). */
struct job_change {
	const char *option, *arg;
};

struct harness_job {
	struct run_options run; /* points into the strings below */
	uint64_t wall_ms;
	uint64_t slice_blocks, block_ns; /* counter mode */
	uint64_t skip_status;		 /* the job's exit code for "skipped" (0: none) */
	char *kernel, *initramfs, *user, *cwd;
	char *job_archive; /* a bundle's job archive, used as it is (run.job_archive_path) */
	char *argv[JOB_MAX_ARGS + 1];
	char *adds[RUN_MAX_ADDS];
	char *envs[RUN_MAX_ENVS];
};

/* The defaults, with paths found relative to this executable. 0 or -errno (reported). */
int job_init_defaults(struct harness_job *job);

/* Overrides fields present in a job object (a job file's or an artifact's "job"). */
int job_apply_json(struct harness_job *job, const cJSON *obj, const char *what);

/* Reads a job file and applies it. */
int job_load_file(struct harness_job *job, const char *path);

int job_set_kernel(struct harness_job *job, const char *path);
int job_set_initramfs(struct harness_job *job, const char *path);
/* Adds "HOST[:GUEST[:MODE]]"; a file for a guest path the job adds already replaces that add. */
int job_add_file(struct harness_job *job, const char *spec);
/* The guest path an add spec puts its file at. */
void job_add_guest_path(const char *spec, char *out, size_t out_len);
int job_set_command(struct harness_job *job, char *const *argv, size_t argc);
int job_set_user(struct harness_job *job, const char *user);
/* Runs the job from a job archive made before (NULL: build it from the job again). */
int job_set_archive(struct harness_job *job, const char *path);
int job_set_cwd(struct harness_job *job, const char *cwd);
/* Sets "NAME=VALUE" in the job's environment; a later value of a NAME replaces. */
int job_add_env(struct harness_job *job, const char *entry);

enum job_field_kind {
	JOB_FIELD_PATH,	   /* a host path (set) */
	JOB_FIELD_STRING,  /* a guest-side word: the user, the working directory (set) */
	JOB_FIELD_ENV,	   /* the environment: a job file's array, an option (one NAME=VALUE) */
	JOB_FIELD_COMMAND, /* the command: a job file's array, the command line's words after -- */
	JOB_FIELD_ADD,	   /* a file to add: a job file's array (all of them), an option (one) */
	JOB_FIELD_MEM,	   /* guest RAM: whole MiB in a job file, a size (128M, 1G) as an option */
	JOB_FIELD_U64,	   /* an integer in min..max at offset */
	JOB_FIELD_FILE,	   /* --job FILE: a job file applied */
};

/* A field of a job (job_fields, in job.c, lists them all). */
struct job_field {
	const char *key;   /* in a job file and an artifact's "job"; NULL: option only */
	const char *flag;  /* rewind-harness's long option; NULL: job file only */
	const char *alias; /* another name of the option, or NULL */
	enum job_field_kind kind;
	uint64_t min, max; /* JOB_FIELD_U64 and JOB_FIELD_MEM (in bytes) */
	size_t offset;	   /* JOB_FIELD_U64: of its uint64_t in struct harness_job */
	int (*set)(struct harness_job *job, const char *value); /* JOB_FIELD_PATH, _STRING */
};

/* Every job field, ending with one whose key and flag are NULL. */
extern const struct job_field job_fields[];

/* The field of a long option (by name or alias, without dashes), or NULL. */
const struct job_field *job_field_of_flag(const char *flag);

/*
 * A job option of rewind-harness's command line, by its long name without
 * dashes ("kernel", "add", "mem", "step-budget", ...), applied to job: the
 * command line's own job, or an artifact's that a replay changes.
 */
int job_apply_option(struct harness_job *job, const char *option, const char *arg);

struct option;
/*
 * getopt_long's entries for the job fields with a command-line flag, and
 * their aliases, into out: each field's val is base + its index in
 * job_fields. Returns how many (at most 2 a field: out holds that many).
 */
size_t job_getopt_options(struct option *out, int base);

/* The job as an object that job_apply_json accepts. */
cJSON *job_to_json(const struct harness_job *job);

void job_free(struct harness_job *job);

#endif

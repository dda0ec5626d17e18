/* SPDX-License-Identifier: MIT */
#include "harness/replay.h"

#include "harness/artifact.h"
#include "harness/bundle.h"
#include "harness/executor.h"
#include "harness/harness.h"
#include "lib/file.h"
#include "lib/json_file.h"
#include "lib/log.h"

#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define REPLAY_MAX_FILE (16u << 20) /* an artifact is a few KiB */

static void differs(int *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One line "PROGRAM: differs: what" on stderr; counts it in *n. */
static void differs(int *n, const char *fmt, ...)
{
	va_list ap;

	(*n)++;
	fprintf(stderr, "%s: differs: ", rw_log.program);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* Compares what the artifact names with what this replay runs; returns the differences. */
static int identity_differences(const struct run_identity *want, const struct run_identity *got,
				const struct harness_job *job)
{
	int n = 0;

	if (want->kernel_xxh3 != got->kernel_xxh3)
		differs(&n,
			"kernel: the artifact's is 0x%016" PRIx64 ", %s is 0x%016" PRIx64
			" (another kernel)\n",
			want->kernel_xxh3, job->run.kernel_path, got->kernel_xxh3);
	if (want->initramfs_xxh3 != got->initramfs_xxh3)
		differs(&n,
			"initramfs: the artifact's is 0x%016" PRIx64 ", %s is 0x%016" PRIx64 "\n",
			want->initramfs_xxh3, job->run.initrd_path, got->initramfs_xxh3);
	if (want->job_xxh3 != got->job_xxh3)
		differs(&n, "the job's command or added files\n");
	if (strcmp(want->cpu_model, got->cpu_model) != 0)
		differs(&n, "CPU model: artifact %s, here %s\n", want->cpu_model, got->cpu_model);
	if (want->abi_version != got->abi_version)
		differs(&n, "VMM ABI: artifact v%" PRIu64 ", here v%" PRIu64 "\n",
			want->abi_version, got->abi_version);
	if (want->quantum_ns != got->quantum_ns)
		differs(&n, "clock quantum: %" PRIu64 " ns vs %" PRIu64 " ns\n", want->quantum_ns,
			got->quantum_ns);
	return n;
}

static int outcome_differences(const struct artifact_expect *want, const struct exec_result *got)
{
	int n = 0;

	if (want->cls != got->cls)
		differs(&n, "outcome: artifact %s (%s), replay %s (%s)\n",
			exec_class_name(want->cls), want->detail, exec_class_name(got->cls),
			got->detail);
	if (want->job_steps != got->job_steps)
		differs(&n, "step: artifact %" PRIu64 ", replay %" PRIu64 "\n", want->job_steps,
			got->job_steps);
	if (want->trace_xxh3 != got->trace_hash)
		differs(&n, "trace: artifact 0x%016" PRIx64 ", replay 0x%016" PRIx64 "\n",
			want->trace_xxh3, got->trace_hash);
	return n;
}

static int set_default_path(struct harness_job *job, const char *what, const char *artifact,
			    const char *here, int (*set)(struct harness_job *, const char *))
{
	if (!strcmp(artifact, here))
		return 0;
	fprintf(stderr,
		"%s: not reading the artifact's %s %s (an artifact is untrusted; --trust reads "
		"the paths it names); using %s\n",
		rw_log.program, what, artifact, here);
	return set(job, here);
}

static bool command_line_adds(const struct replay_options *opt, const char *guest)
{
	char have[4096];

	for (size_t i = 0; i < opt->change_count; i++) {
		if (strcmp(opt->changes[i].option, "add") != 0)
			continue;
		job_add_guest_path(opt->changes[i].arg, have, sizeof(have));
		if (!strcmp(have, guest))
			return true;
	}
	return false;
}

/*
 * An artifact's host paths are not read without --trust: the kernel and
 * initramfs are this checkout's, every added file must come from --add.
 */
static int untrusted_paths(struct replay_case *c, const struct replay_options *opt,
			   const char *path)
{
	struct harness_job here;
	char guest[4096];
	int missing = 0;
	int rc = job_init_defaults(&here);

	if (!rc)
		rc = set_default_path(&c->job, "kernel", c->job.kernel, here.kernel,
				      job_set_kernel);
	if (!rc)
		rc = set_default_path(&c->job, "initramfs", c->job.initramfs, here.initramfs,
				      job_set_initramfs);
	job_free(&here);
	for (size_t i = 0; !rc && i < c->job.run.add_count; i++) {
		job_add_guest_path(c->job.adds[i], guest, sizeof(guest));
		if (command_line_adds(opt, guest))
			continue;
		rw_err("%s: the job adds %s from the host path %s, which an untrusted artifact may "
		       "not make this replay read: give the file with --add FILE:%s, replay a "
		       "bundle (--bundle), or say --trust if you wrote this artifact",
		       path, guest, c->job.adds[i], guest);
		missing++;
	}
	return rc ? rc : missing ? -EINVAL : 0;
}

/* "replaying with the artifact's job changed: --add ... -- ..." */
static void say_changes(const struct replay_options *opt)
{
	fprintf(stderr, "%s: replaying with the artifact's job changed:", rw_log.program);
	for (size_t i = 0; i < opt->change_count; i++)
		fprintf(stderr, " --%s %s", opt->changes[i].option, opt->changes[i].arg);
	if (opt->command)
		fputs(" --", stderr);
	for (size_t i = 0; opt->command && i < opt->command_len; i++)
		fprintf(stderr, " %s", opt->command[i]);
	fputc('\n', stderr);
}

/*
 * Job options of the command line change the artifact's job: says so, and
 * how. Only --add (an untrusted artifact's files given by the user) may
 * leave it as it was: replay_job_opened decides once the job is built.
 */
static int apply_changes(struct replay_case *c, const struct replay_options *opt)
{
	int rc = 0;

	if (!opt->change_count && !opt->command)
		return 0;
	/* the wall budget is no part of a replay (JOB_REPLAY_WALL_GUARD_MS) */
	c->job_changed = opt->command != NULL;
	c->adds_only = opt->command == NULL;
	for (size_t i = 0; i < opt->change_count; i++) {
		c->job_changed |= strcmp(opt->changes[i].option, "wall-ms") != 0;
		c->adds_only &= !strcmp(opt->changes[i].option, "add") ||
				!strcmp(opt->changes[i].option, "wall-ms");
	}
	c->adds_only &= c->job_changed && c->is_artifact;
	if (!c->job_changed)
		return 0;
	if (!c->adds_only)
		say_changes(opt);
	for (size_t i = 0; !rc && i < opt->change_count; i++)
		rc = job_apply_option(&c->job, opt->changes[i].option, opt->changes[i].arg);
	if (!rc && opt->command)
		rc = job_set_command(&c->job, opt->command, opt->command_len);
	return rc;
}

/* JSON that names itself a crash artifact? Else one line that says what it is. */
static bool is_artifact_json(const char *path, const uint8_t *data, size_t len)
{
	cJSON *root = cJSON_ParseWithLength((const char *)data, len);
	const cJSON *format = cJSON_GetObjectItemCaseSensitive(root, "format");
	bool ok = cJSON_IsString(format) && !strcmp(format->valuestring, ARTIFACT_FORMAT);

	if (!root)
		rw_err("%s: not valid JSON (near byte %td); a crash artifact is the JSON file "
		       "rewind fuzz wrote",
		       path, cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() - (const char *)data : 0);
	else if (!ok)
		rw_err("%s: JSON, but not a crash artifact (no \"format\": \"%s\"); give one of "
		       "rewind fuzz's OUT/artifacts/*.json",
		       path, ARTIFACT_FORMAT);
	cJSON_Delete(root);
	return ok;
}

static int load_artifact(const char *path, const uint8_t *data, size_t len,
			 const struct replay_options *opt, struct replay_case *c)
{
	if (!is_artifact_json(path, data, len))
		return REPLAY_BAD_FILE;
	c->is_artifact = true;
	if (job_init_defaults(&c->job) < 0 ||
	    artifact_parse((const char *)data, len, path, &c->job, &c->input, &c->expect) < 0)
		return REPLAY_BAD_FILE;
	if (c->bundle[0] ? bundle_locate(c->bundle, c) < 0
			 : !opt->trust && untrusted_paths(c, opt, path) < 0)
		return REPLAY_BAD_FILE;
	/* a fix changes the job: it is built again, from the bundle's files */
	if (c->bundle[0] && c->job.job_archive && (opt->change_count || opt->command) &&
	    (job_set_archive(&c->job, NULL) < 0 || bundle_locate_adds(c->bundle, c) < 0))
		return REPLAY_BAD_FILE;
	return apply_changes(c, opt) < 0 ? REPLAY_BAD_FILE : REPLAY_OK;
}

/* A raw input: what afl-fuzz ran, its own mutations decoded, not rejected. */
static void load_raw(const char *path, const uint8_t *data, size_t len, struct replay_case *c)
{
	char why[160];

	if (input_parse(data, len, &c->input, why, sizeof(why)) == 0)
		return;
	input_decode(data, len, &c->input);
	fprintf(stderr,
		"%s: %s is not in the documented input format (%s); replaying it decoded, as the "
		"harness ran it under afl-fuzz\n",
		rw_log.program, path, why);
}

/*
 * What the bytes are, by their start: '{' an artifact (it must parse as
 * one), the magic "RWSI" a binary input (docs/input-format.md). Neither
 * can begin the other, so the choice is unambiguous; anything else (an
 * empty file, other text) is refused unless --raw says it is afl-fuzz's.
 */
enum file_kind { FILE_ARTIFACT, FILE_INPUT, FILE_OTHER };

static enum file_kind kind_of(const uint8_t *data, size_t len)
{
	size_t i = 0;

	while (i < len && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r'))
		i++;
	if (i < len && data[i] == '{')
		return FILE_ARTIFACT;
	if (len >= 4 && memcmp(data, INPUT_MAGIC, 4) == 0)
		return FILE_INPUT;
	return FILE_OTHER;
}

int replay_load(const char *path, const struct replay_options *opt, struct replay_case *c)
{
	char file[4200];
	uint8_t *data;
	size_t len;
	enum file_kind kind;
	int rc = REPLAY_OK;

	memset(c, 0, sizeof(*c));
	snprintf(file, sizeof(file), "%s", path);
	if (bundle_is(path)) {
		snprintf(c->bundle, sizeof(c->bundle), "%s", path);
		snprintf(file, sizeof(file), "%s/%s", path, BUNDLE_ARTIFACT);
	}
	if (file_read_max(file, REPLAY_MAX_FILE, "crash file", &data, &len) < 0)
		return REPLAY_BAD_FILE;
	kind = opt->raw && !c->bundle[0] ? FILE_INPUT : kind_of(data, len);
	if (kind == FILE_ARTIFACT || c->bundle[0])
		rc = load_artifact(file, data, len, opt, c);
	else if (kind == FILE_INPUT)
		load_raw(path, data, len, c);
	else {
		rw_err("%s is %s a crash artifact (JSON, from '{') nor a Rewind input (binary, "
		       "from \"RWSI\"); give an artifact, or --raw to replay any bytes as "
		       "afl-fuzz's target reads them",
		       path, len ? "neither" : "empty: neither");
		rc = REPLAY_BAD_FILE;
	}
	free(data);
	return rc;
}

void replay_case_free(struct replay_case *c)
{
	if (c->is_artifact)
		job_free(&c->job);
	c->is_artifact = false;
}

/* Runs the input again runs times: each must give the first run's class and trace. */
static int repeat_differences(struct executor *ex, const struct exec_input *input,
			      const struct exec_result *first, unsigned int runs)
{
	struct exec_result again;

	ex->vm.cfg.output = NULL;
	for (unsigned int i = 1; i <= runs; i++) {
		if (executor_run(ex, input, &again) < 0)
			return -EIO;
		if (again.trace_hash != first->trace_hash || again.cls != first->cls) {
			fprintf(stderr,
				"%s: differs: run %u of %u gave %s, trace 0x%016" PRIx64 "\n",
				rw_log.program, i + 1, runs + 1, exec_class_name(again.cls),
				again.trace_hash);
			return 1;
		}
	}
	return 0;
}

static const struct harness_job *job_of(const struct replay_case *c,
					const struct replay_options *opt)
{
	return c->is_artifact ? &c->job : opt->job;
}

bool replay_host_stalled(const struct exec_result *res)
{
	if (res->cls != CLASS_TIMEOUT)
		return false;
	rw_err("the run went on past the wall guard of %llu minutes: the host stalled (or is "
	       "far too busy), which is no outcome of the job; no verdict, run it again",
	       JOB_REPLAY_WALL_GUARD_MS / 60000);
	return true;
}

int replay_record_differences(const struct replay_case *c, const struct replay_options *opt,
			      const struct executor *ex, const struct exec_result *res)
{
	struct run_identity here;

	if (!c->is_artifact || c->job_changed)
		return 0;
	run_identity_of(ex, &here);
	return identity_differences(&c->expect.identity, &here, job_of(c, opt)) +
	       outcome_differences(&c->expect, res);
}

void replay_job_opened(struct replay_case *c, const struct replay_options *opt, struct executor *ex)
{
	if (c->adds_only) {
		c->adds_only = false;
		c->job_changed = ex->job_hash != c->expect.identity.job_xxh3;
		if (c->job_changed)
			say_changes(opt);
		else
			fprintf(stderr,
				"%s: the job is the artifact's: --add gives the guest the same "
				"files at the same paths\n",
				rw_log.program);
	}
	if (c->is_artifact && !c->job_changed && c->expect.profile.events &&
	    executor_use_profile(ex, &c->expect.profile, &c->input,
				 run_identity_is(&c->expect.identity, ex)))
		fprintf(stderr,
			"%s: the run's identity is the artifact's: its recorded profile (%" PRIu64
			" events) stands for the profile run\n",
			rw_log.program, c->expect.profile.events);
}

/* Opens the case's job: REPLAY_OK, or REPLAY_SETUP (said). */
static int open_job(struct executor *ex, struct replay_case *c, const struct replay_options *opt,
		    FILE *output)
{
	const struct harness_job *job = job_of(c, opt);
	struct executor_config cfg = {.run = job->run,
				      .wall_ms = JOB_REPLAY_WALL_GUARD_MS, /* not the job's */
				      .slice_blocks = job->slice_blocks,
				      .block_ns = job->block_ns,
				      .skip_status = job->skip_status,
				      .output = output,
				      .racy_profiles_unperturbed =
					      c->is_artifact && c->expect.version < 3};

	if (executor_open(ex, &cfg) < 0)
		return REPLAY_SETUP;
	replay_job_opened(c, opt, ex);
	return REPLAY_OK;
}

/* Opens the case's job and runs its input once, printing output and outcome. */
static int run_first(struct executor *ex, struct replay_case *c, const struct replay_options *opt,
		     FILE *output, struct exec_result *res)
{
	int rc = open_job(ex, c, opt, output);

	if (rc != REPLAY_OK)
		return rc;
	if (executor_run(ex, &c->input, res) < 0)
		return REPLAY_HOST;
	fflush(stdout);
	if (res->counter_missing) {
		rw_err("%s", COUNTER_MISSING);
		return REPLAY_SETUP;
	}
	if (replay_host_stalled(res))
		return REPLAY_HOST;
	if (res->cls == CLASS_REJECTED) {
		rw_err("the input is not a valid schedule for this job: %s", res->detail);
		return REPLAY_BAD_FILE;
	}
	exec_result_print(res);
	return REPLAY_OK;
}

/* --expect-fixed: success is a run that no longer fails. */
static int verdict_fixed(const struct exec_result *res)
{
	if (exec_class_is_failure(res->cls)) {
		fprintf(stderr, "%s: still fails: %s (%s) at step %" PRIu64 "\n", rw_log.program,
			exec_class_name(res->cls), res->detail, res->job_steps);
		return REPLAY_FAILS;
	}
	if (res->cls != CLASS_PASS) {
		fprintf(stderr, "%s: neither fails nor passes: outcome %s (%s)\n", rw_log.program,
			exec_class_name(res->cls), res->detail);
		return REPLAY_DIFFERS;
	}
	fprintf(stderr, "%s: fixed: the failure is gone (the job passes)\n", rw_log.program);
	return REPLAY_OK;
}

/* An artifact replayed with a changed job: does it still fail the same way? */
static int verdict_changed(const struct replay_case *c, const struct exec_result *res)
{
	if (res->cls == c->expect.cls) {
		fprintf(stderr, "%s: reproduces with the changed job: %s, as in the artifact\n",
			rw_log.program, exec_class_name(res->cls));
		return exec_class_is_failure(res->cls) ? REPLAY_FAILS : REPLAY_OK;
	}
	fprintf(stderr,
		"%s: does not reproduce with the changed job: outcome %s, the artifact's %s\n",
		rw_log.program, exec_class_name(res->cls), exec_class_name(c->expect.cls));
	return REPLAY_DIFFERS;
}

/* The unchanged artifact, or a raw input: the same run every time; does it fail? */
static int verdict_same(const struct replay_case *c, const struct replay_options *opt,
			struct executor *ex, const struct exec_result *res)
{
	/* No record to compare a raw input with: it must at least repeat itself. */
	unsigned int runs = opt->repeat ? opt->repeat : c->is_artifact ? 1 : 2;
	int diff_count = replay_record_differences(c, opt, ex, res);
	int again = repeat_differences(ex, &c->input, res, runs - 1);

	if (again < 0)
		return REPLAY_HOST;
	if (diff_count + again) {
		fprintf(stderr, "%s: the replay is NOT the same run\n", rw_log.program);
		return REPLAY_DIFFERS;
	}
	fprintf(stderr, "%s: replay identical (%s%s, %u run%s, trace 0x%016" PRIx64 ")\n",
		rw_log.program,
		c->is_artifact ? "outcome, step and trace as in the artifact"
			       : "same outcome and trace",
		runs > 1 ? " every time" : "", runs, runs > 1 ? "s" : "", res->trace_hash);
	return exec_class_is_failure(res->cls) ? REPLAY_FAILS : REPLAY_OK;
}

/* The verdict's word in --json: what the exit status says. */
static const char *verdict_name(int status)
{
	return status == REPLAY_OK ? "pass" : status == REPLAY_FAILS ? "fail" : "differs";
}

cJSON *replay_json(const char *format, const char *path, const struct replay_case *c,
		   const struct exec_result *res, int status)
{
	cJSON *o = cJSON_CreateObject();
	char hash[24];

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "format", format);
	cJSON_AddNumberToObject(o, "version", 1);
	cJSON_AddStringToObject(o, "file", path);
	cJSON_AddStringToObject(o, "kind",
				c->bundle[0]	 ? "bundle"
				: c->is_artifact ? "artifact"
						 : "raw");
	cJSON_AddBoolToObject(o, "job_changed", c->job_changed);
	cJSON_AddStringToObject(o, "verdict", verdict_name(status));
	cJSON_AddNumberToObject(o, "exit_status", status);
	cJSON_AddBoolToObject(o, "same", status != REPLAY_DIFFERS);
	cJSON_AddStringToObject(o, "outcome", exec_class_name(res->cls));
	cJSON_AddStringToObject(o, "detail", res->detail ? res->detail : "");
	if (res->has_job_status && WIFEXITED(res->job_status))
		cJSON_AddNumberToObject(o, "job_status", WEXITSTATUS(res->job_status));
	else
		cJSON_AddNullToObject(o, "job_status");
	if (res->has_job_status && WIFSIGNALED(res->job_status))
		cJSON_AddStringToObject(o, "signal",
					sigabbrev_np(WTERMSIG(res->job_status)) ?: "?");
	else
		cJSON_AddNullToObject(o, "signal");
	cJSON_AddNumberToObject(o, "steps", (double)res->job_steps);
	snprintf(hash, sizeof(hash), "0x%016" PRIx64, res->trace_hash);
	cJSON_AddStringToObject(o, "trace", hash);
	if (c->is_artifact) {
		snprintf(hash, sizeof(hash), "0x%016" PRIx64, c->expect.trace_xxh3);
		cJSON_AddStringToObject(o, "recorded_outcome", exec_class_name(c->expect.cls));
		cJSON_AddNumberToObject(o, "recorded_steps", (double)c->expect.job_steps);
		cJSON_AddStringToObject(o, "recorded_trace", hash);
	}
	return o;
}

int replay_print_json(cJSON *o)
{
	return json_print_line(o, "the JSON verdict") < 0 ? REPLAY_HOST : REPLAY_OK;
}

static int run_case(struct replay_case *c, const char *path, const struct replay_options *opt)
{
	struct executor ex;
	struct exec_result res;
	int rc = run_first(&ex, c, opt, opt->json ? stderr : stdout, &res);

	if (rc == REPLAY_OK) {
		if (opt->expect_fixed)
			rc = verdict_fixed(&res);
		else if (c->job_changed)
			rc = verdict_changed(c, &res);
		else
			rc = verdict_same(c, opt, &ex, &res);
		/* a verdict is 0, 1 or 3; none after a host error */
		if (opt->json && rc != REPLAY_HOST) {
			int out =
				replay_print_json(replay_json("rewind-replay", path, c, &res, rc));

			rc = out != REPLAY_OK ? out : rc;
		}
	}
	executor_close(&ex);
	return rc;
}

int replay_file(const char *path, const struct replay_options *opt)
{
	struct replay_case *c = calloc(1, sizeof(*c));
	int rc;

	if (!c)
		return REPLAY_HOST;
	rc = replay_load(path, opt, c);
	if (rc == REPLAY_OK)
		rc = run_case(c, path, opt);
	replay_case_free(c);
	free(c);
	return rc;
}

int replay_bundle(const char *path, const struct replay_options *opt, const char *dir)
{
	struct replay_case *c = calloc(1, sizeof(*c));
	struct executor ex;
	struct exec_result res;
	int rc;

	if (!c)
		return REPLAY_HOST;
	rc = replay_load(path, opt, c);
	if (rc == REPLAY_OK && !c->is_artifact) {
		rw_err("%s is a raw input: a bundle needs an artifact (its job and identity); "
		       "rewind-harness INPUT writes one for an input that fails",
		       path);
		rc = REPLAY_BAD_FILE;
	}
	if (rc == REPLAY_OK) {
		rc = run_first(&ex, c, opt, NULL, &res);
		if (rc == REPLAY_OK && !exec_class_is_failure(res.cls)) {
			rw_err("%s does not fail here (outcome %s): nothing to bundle", path,
			       exec_class_name(res.cls));
			rc = REPLAY_DIFFERS;
		}
		if (rc == REPLAY_OK && bundle_write(dir, c, &ex, &res) < 0)
			rc = REPLAY_HOST;
		if (rc == REPLAY_OK)
			fprintf(stderr,
				"%s: bundle %s written: replay it anywhere with rewind replay %s\n",
				rw_log.program, dir, dir);
		executor_close(&ex);
	}
	replay_case_free(c);
	free(c);
	return rc;
}

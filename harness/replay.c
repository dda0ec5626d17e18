#include "harness/replay.h"

#include "harness/artifact.h"
#include "harness/bundle.h"
#include "harness/executor.h"
#include "harness/harness.h"
#include "vmm/file.h"
#include "vmm/log.h"

#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define REPLAY_MAX_FILE (16u << 20) /* an artifact is a few KiB */

static void differs(int *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void differs(int *n, const char *fmt, ...)
{
	va_list ap;

	(*n)++;
	fputs("rewind-harness: differs: ", stderr);
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
		"rewind-harness: not reading the artifact's %s %s (an artifact is untrusted; "
		"--trust reads the paths it names); using %s\n",
		what, artifact, here);
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

/* Job options of the command line change the artifact's job: says so, and how. */
static int apply_changes(struct replay_case *c, const struct replay_options *opt)
{
	int rc = 0;

	if (!opt->change_count && !opt->command)
		return 0;
	/* the wall budget is no part of a replay (JOB_REPLAY_WALL_GUARD_MS) */
	c->job_changed = opt->command != NULL;
	for (size_t i = 0; i < opt->change_count; i++)
		c->job_changed |= strcmp(opt->changes[i].option, "wall-ms") != 0;
	if (!c->job_changed)
		return 0;
	fputs("rewind-harness: replaying with the artifact's job changed:", stderr);
	for (size_t i = 0; i < opt->change_count; i++)
		fprintf(stderr, " --%s %s", opt->changes[i].option, opt->changes[i].arg);
	if (opt->command)
		fputs(" --", stderr);
	for (size_t i = 0; opt->command && i < opt->command_len; i++)
		fprintf(stderr, " %s", opt->command[i]);
	fputc('\n', stderr);
	for (size_t i = 0; !rc && i < opt->change_count; i++)
		rc = job_apply_option(&c->job, opt->changes[i].option, opt->changes[i].arg);
	if (!rc && opt->command)
		rc = job_set_command(&c->job, opt->command, opt->command_len);
	return rc;
}

static int load_artifact(const char *path, const uint8_t *data, size_t len,
			 const struct replay_options *opt, struct replay_case *c)
{
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
	return apply_changes(c, opt) < 0 ? REPLAY_BAD_FILE : REPLAY_SAME;
}

int replay_load(const char *path, const struct replay_options *opt, struct replay_case *c)
{
	char file[4200];
	uint8_t *data;
	size_t len, i = 0;
	char why[160];
	int rc = REPLAY_SAME;

	memset(c, 0, sizeof(*c));
	snprintf(file, sizeof(file), "%s", path);
	if (bundle_is(path)) {
		snprintf(c->bundle, sizeof(c->bundle), "%s", path);
		snprintf(file, sizeof(file), "%s/%s", path, BUNDLE_ARTIFACT);
	}
	if (file_read_max(file, REPLAY_MAX_FILE, "crash file", &data, &len) < 0)
		return REPLAY_BAD_FILE;
	while (i < len && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r'))
		i++;
	if (i < len && data[i] == '{')
		rc = load_artifact(file, data, len, opt, c);
	else if (input_parse(data, len, &c->input, why, sizeof(why)) < 0) {
		/* what afl-fuzz ran: its own mutations are decoded, not rejected */
		input_decode(data, len, &c->input);
		fprintf(stderr,
			"rewind-harness: %s is not in the documented input format (%s); replaying "
			"it decoded, as the harness ran it under afl-fuzz\n",
			path, why);
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
		if (executor_run(ex, input, &again) < 0 || again.trace_hash != first->trace_hash ||
		    again.cls != first->cls) {
			fprintf(stderr,
				"rewind-harness: differs: run %u of %u gave %s, trace 0x%016" PRIx64
				"\n",
				i + 1, runs + 1, exec_class_name(again.cls), again.trace_hash);
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

/* Opens the case's job and runs its input once, printing output and outcome. */
static int run_first(struct executor *ex, const struct replay_case *c,
		     const struct replay_options *opt, FILE *output, struct exec_result *res)
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

	if (executor_open(ex, &cfg) < 0 || executor_run(ex, &c->input, res) < 0)
		return REPLAY_SETUP;
	fflush(stdout);
	if (res->counter_missing) {
		rw_err("%s", COUNTER_MISSING);
		return REPLAY_SETUP;
	}
	if (replay_host_stalled(res))
		return REPLAY_SETUP;
	exec_result_print(res);
	return REPLAY_SAME;
}

/* --expect-fixed: success is a run that no longer fails. */
static int verdict_fixed(const struct exec_result *res)
{
	if (exec_class_is_failure(res->cls)) {
		fprintf(stderr, "rewind-harness: still fails: %s (%s) at step %" PRIu64 "\n",
			exec_class_name(res->cls), res->detail, res->job_steps);
		return REPLAY_DIFFERS;
	}
	if (res->cls != CLASS_PASS) {
		fprintf(stderr, "rewind-harness: neither fails nor passes: outcome %s (%s)\n",
			exec_class_name(res->cls), res->detail);
		return REPLAY_DIFFERS;
	}
	fprintf(stderr, "rewind-harness: fixed: the failure is gone (the job passes)\n");
	return REPLAY_SAME;
}

/* An artifact replayed with a changed job: does it still fail the same way? */
static int verdict_changed(const struct replay_case *c, const struct exec_result *res)
{
	if (res->cls == c->expect.cls) {
		fprintf(stderr,
			"rewind-harness: reproduces with the changed job: %s, as in the artifact\n",
			exec_class_name(res->cls));
		return REPLAY_SAME;
	}
	fprintf(stderr,
		"rewind-harness: does not reproduce with the changed job: outcome %s, the "
		"artifact's %s\n",
		exec_class_name(res->cls), exec_class_name(c->expect.cls));
	return REPLAY_DIFFERS;
}

/* The unchanged artifact, or a raw input: the same run every time, and a failure. */
static int verdict_same(const struct replay_case *c, const struct replay_options *opt,
			struct executor *ex, const struct exec_result *res)
{
	/* No record to compare a raw input with: it must at least repeat itself. */
	unsigned int runs = opt->repeat ? opt->repeat : c->is_artifact ? 1 : 2;
	struct run_identity here;
	int diff_count = 0;

	if (c->is_artifact) {
		run_identity_of(ex, &here);
		diff_count = identity_differences(&c->expect.identity, &here, job_of(c, opt)) +
			     outcome_differences(&c->expect, res);
	}
	diff_count += repeat_differences(ex, &c->input, res, runs - 1);
	if (diff_count) {
		fprintf(stderr, "rewind-harness: the replay is NOT the same run\n");
		return REPLAY_DIFFERS;
	}
	fprintf(stderr,
		"rewind-harness: replay identical (%s%s, %u run%s, trace 0x%016" PRIx64 ")\n",
		c->is_artifact ? "outcome, step and trace as in the artifact"
			       : "same outcome and trace",
		runs > 1 ? " every time" : "", runs, runs > 1 ? "s" : "", res->trace_hash);
	if (!c->is_artifact && !exec_class_is_failure(res->cls)) {
		fprintf(stderr, "rewind-harness: does not reproduce: the input %s\n",
			res->cls == CLASS_PASS ? "passes" : "ends in a timeout, not a failure");
		return REPLAY_DIFFERS;
	}
	return REPLAY_SAME;
}

static int run_case(struct replay_case *c, const struct replay_options *opt)
{
	struct executor ex;
	struct exec_result res;
	int rc = run_first(&ex, c, opt, stdout, &res);

	if (rc == REPLAY_SAME) {
		if (opt->expect_fixed)
			rc = verdict_fixed(&res);
		else if (c->job_changed)
			rc = verdict_changed(c, &res);
		else
			rc = verdict_same(c, opt, &ex, &res);
	}
	executor_close(&ex);
	return rc;
}

int replay_file(const char *path, const struct replay_options *opt)
{
	struct replay_case *c = calloc(1, sizeof(*c));
	int rc;

	if (!c)
		return REPLAY_SETUP;
	rc = replay_load(path, opt, c);
	if (rc == REPLAY_SAME)
		rc = run_case(c, opt);
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
		return REPLAY_SETUP;
	rc = replay_load(path, opt, c);
	if (rc == REPLAY_SAME && !c->is_artifact) {
		rw_err("%s is a raw input: --bundle needs an artifact (its job and identity); "
		       "make one with rewind-harness INPUT, which writes it for a failure",
		       path);
		rc = REPLAY_BAD_FILE;
	}
	if (rc == REPLAY_SAME) {
		rc = run_first(&ex, c, opt, NULL, &res);
		if (rc == REPLAY_SAME && !exec_class_is_failure(res.cls)) {
			rw_err("%s does not fail here (outcome %s): nothing to bundle", path,
			       exec_class_name(res.cls));
			rc = REPLAY_DIFFERS;
		}
		if (rc == REPLAY_SAME && bundle_write(dir, c, &ex, &res) < 0)
			rc = REPLAY_SETUP;
		if (rc == REPLAY_SAME)
			fprintf(stderr,
				"rewind-harness: bundle %s written: replay it anywhere with "
				"rewind-harness --replay %s\n",
				dir, dir);
		executor_close(&ex);
	}
	replay_case_free(c);
	free(c);
	return rc;
}

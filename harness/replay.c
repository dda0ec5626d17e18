#include "harness/replay.h"

#include "harness/artifact.h"
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

/* An artifact's kernel or initramfs path may not exist here: fall back to the defaults. */
static int resolve_paths(struct harness_job *job, const struct replay_options *opt,
			 const struct harness_job *defaults)
{
	int rc = 0;

	if (opt->kernel)
		rc = job_set_kernel(job, opt->kernel);
	else if (access(job->run.kernel_path, R_OK) < 0) {
		fprintf(stderr, "rewind-harness: the artifact's kernel %s is not here; using %s\n",
			job->run.kernel_path, defaults->run.kernel_path);
		rc = job_set_kernel(job, defaults->run.kernel_path);
	}
	if (rc)
		return rc;
	if (opt->initramfs)
		return job_set_initramfs(job, opt->initramfs);
	if (access(job->run.initrd_path, R_OK) < 0) {
		fprintf(stderr,
			"rewind-harness: the artifact's initramfs %s is not here; using %s\n",
			job->run.initrd_path, defaults->run.initrd_path);
		return job_set_initramfs(job, defaults->run.initrd_path);
	}
	return 0;
}

struct replay_case {
	struct harness_job job;
	struct exec_input input;
	struct artifact_expect expect;
	bool is_artifact;
};

static int load_case(const char *path, const struct replay_options *opt, struct replay_case *c)
{
	uint8_t *data;
	size_t len, i = 0;
	char why[160];
	int rc = REPLAY_SAME;

	if (file_read_all(path, &data, &len) < 0)
		return REPLAY_BAD_FILE;
	while (i < len && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r'))
		i++;
	c->is_artifact = i < len && data[i] == '{';
	if (c->is_artifact) {
		if (job_init_defaults(&c->job) < 0 ||
		    artifact_parse((const char *)data, len, path, &c->job, &c->input, &c->expect) <
			    0 ||
		    resolve_paths(&c->job, opt, opt->job) < 0)
			rc = REPLAY_BAD_FILE;
	} else if (input_parse(data, len, &c->input, why, sizeof(why)) < 0) {
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

static int run_case(struct replay_case *c, const struct replay_options *opt)
{
	const struct harness_job *job = c->is_artifact ? &c->job : opt->job;
	struct executor_config cfg = {.run = job->run,
				      .wall_ms = job->wall_ms,
				      .slice_blocks = job->slice_blocks,
				      .block_ns = job->block_ns,
				      .output = stdout};
	/* No record to compare a raw input with: it must at least repeat itself. */
	unsigned int runs = opt->repeat ? opt->repeat : c->is_artifact ? 1 : 2;
	struct executor ex;
	struct exec_result res;
	struct run_identity here;
	int diff_count = 0;

	if (executor_open(&ex, &cfg) < 0 || executor_run(&ex, &c->input, &res) < 0) {
		executor_close(&ex);
		return REPLAY_SETUP;
	}
	fflush(stdout);
	if (res.counter_missing) {
		rw_err("%s", COUNTER_MISSING);
		executor_close(&ex);
		return REPLAY_SETUP;
	}
	exec_result_print(&res);
	if (c->is_artifact) {
		run_identity_of(&ex, &here);
		diff_count = identity_differences(&c->expect.identity, &here, job) +
			     outcome_differences(&c->expect, &res);
	}
	diff_count += repeat_differences(&ex, &c->input, &res, runs - 1);
	executor_close(&ex);
	if (diff_count) {
		fprintf(stderr, "rewind-harness: the replay is NOT the same run\n");
		return REPLAY_DIFFERS;
	}
	fprintf(stderr,
		"rewind-harness: replay identical (%s%s, %u run%s, trace 0x%016" PRIx64 ")\n",
		c->is_artifact ? "outcome, step and trace as in the artifact"
			       : "same outcome and trace",
		runs > 1 ? " every time" : "", runs, runs > 1 ? "s" : "", res.trace_hash);
	return REPLAY_SAME;
}

int replay_file(const char *path, const struct replay_options *opt)
{
	struct replay_case *c = calloc(1, sizeof(*c));
	int rc;

	if (!c)
		return REPLAY_SETUP;
	rc = load_case(path, opt, c);
	if (rc == REPLAY_SAME)
		rc = run_case(c, opt);
	if (c->is_artifact)
		job_free(&c->job);
	free(c);
	return rc;
}

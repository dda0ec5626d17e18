/* SPDX-License-Identifier: MIT */
#include "harness/harness.h"

#include "harness/artifact.h"
#include "harness/coverage.h"
#include "lib/file.h"
#include "lib/host_time.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#define PROGRESS_EVERY_NS 2000000000ull

/*
 * --progress FILE: the counts so far, every 2 s at most, for a live view
 * (afl-fuzz writes its plot_data only after its first minute) and for
 * rewind explore to tell a test that skips (every run ended in the job's
 * skip status). A coarse clock read per execution; the file write is off
 * the per-execution path.
 */
static uint64_t coarse_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void note_progress(struct harness *h)
{
	uint64_t now;

	if (!h->progress_path)
		return;
	now = coarse_now_ns();
	if (!h->first_exec_ns)
		h->first_exec_ns = now;
	if (now < h->progress_due_ns)
		return;
	h->progress_due_ns = now + PROGRESS_EVERY_NS;
	harness_write_progress(h);
}

/*
 * The counts, and the first failure this harness saw: afl-fuzz discards
 * failures during its calibration and trimming, and rewind fuzz reports
 * this one whatever afl-fuzz counted. The artifact path is a JSON string
 * the harness made (artifact_write names it from the folder it was given).
 */
void harness_write_progress(const struct harness *h)
{
	char text[sizeof(h->first_failure_artifact) + 512];
	double seconds;
	int n;

	if (!h->progress_path)
		return;
	seconds = h->first_exec_ns ? (double)(coarse_now_ns() - h->first_exec_ns) / 1e9 : 0;
	n = snprintf(text, sizeof(text),
		     "{\"format\": \"rewind-progress\", \"version\": 1, \"execs\": %llu, "
		     "\"failures\": %llu, \"skips\": %llu, \"answered\": %llu, "
		     "\"seconds\": %.3f, \"busy_seconds\": %.3f, \"pct_events\": %llu, "
		     "\"pct_racy_events\": %llu, \"pct_racy_estimate\": %llu, "
		     "\"racy_profile_samples\": %llu, \"steps_profiled\": %llu",
		     (unsigned long long)h->execs, (unsigned long long)h->failures,
		     (unsigned long long)h->skips, (unsigned long long)h->answered, seconds,
		     h->busy_seconds, (unsigned long long)h->ex.pct_events,
		     (unsigned long long)executor_racy_events(&h->ex),
		     (unsigned long long)h->ex.pct_racy_estimate,
		     (unsigned long long)h->ex.racy_profile_samples,
		     (unsigned long long)h->steps_profiled);
	if (h->pct_seen)
		n += snprintf(text + n, sizeof(text) - (size_t)n, ", \"kernel_events\": %s",
			      h->kernel_events ? "true" : "false");
	if (h->first_failure_exec)
		n += snprintf(
			text + n, sizeof(text) - (size_t)n,
			", \"first_failure\": {\"execution\": %llu, "
			"\"racy_profile_runs\": %llu, \"class\": \"%s\", \"artifact\": \"%s\"}",
			(unsigned long long)h->first_failure_exec,
			(unsigned long long)h->first_failure_profiles,
			exec_class_name(h->first_failure_class), h->first_failure_artifact);
	n += snprintf(text + n, sizeof(text) - (size_t)n, "}\n");
	if (n < 0 || (size_t)n >= sizeof(text))
		return;
	file_write_atomic(h->progress_path, &(struct file_part){text, (size_t)n}, 1);
}

/* src as the inside of a JSON string; cut short (never mid-escape) if out is too small. */
static void copy_json_escaped(char *out, size_t len, const char *src)
{
	size_t o = 0;

	for (; *src && o + 7 < len; src++) {
		unsigned char c = (unsigned char)*src;

		if (c == '"' || c == '\\')
			o += (size_t)snprintf(out + o, len - o, "\\%c", c);
		else if (c < 0x20)
			o += (size_t)snprintf(out + o, len - o, "\\u%04x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = 0;
}

/*
 * A failing run of input (data, len bytes): counted, noted if it is the
 * first, and its artifact written. 0, or -errno if the artifact was not
 * written (reported; the search goes on).
 */
static int note_failure(struct harness *h, const uint8_t *data, size_t len,
			const struct exec_input *input, const struct exec_result *res)
{
	char path[4096];
	int rc;

	if (!h->failures++) {
		h->first_failure_exec = h->execs;
		h->first_failure_profiles = h->ex.racy_profile_runs;
		h->first_failure_class = res->cls;
	}
	if (!h->artifact_dir) {
		if (h->failures == 1)
			harness_write_progress(h); /* afl-fuzz may stop us any moment now */
		return 0;
	}
	rc = artifact_write(h->artifact_dir, &h->job, &h->ex, data, len, input, res, path,
			    sizeof(path));
	if (rc < 0)
		fprintf(stderr,
			"rewind-harness: the artifact of this %s was not written (see above); "
			"the input alone replays it\n",
			exec_class_name(res->cls));
	if (h->failures == 1) {
		if (rc >= 0)
			copy_json_escaped(h->first_failure_artifact,
					  sizeof(h->first_failure_artifact), path);
		harness_write_progress(h); /* afl-fuzz may stop us any moment now */
	}
	if (rc == 1) {
		h->artifacts++;
		if (!h->quiet)
			fprintf(stderr, "rewind-harness: %s at step %llu: artifact %s\n",
				exec_class_name(res->cls), (unsigned long long)res->job_steps,
				path);
	}
	return 0;
}

/*
 * A PCT sample the executor ran to learn the job's racy sites
 * (executor_sample_fn): an execution of the search like any other, though
 * afl-fuzz never asked for it, so counted, and a failure of it is found.
 */
static void profile_sample_ran(void *ctx, const struct exec_input *in,
			       const struct exec_result *res)
{
	struct harness *h = ctx;
	uint8_t raw[INPUT_MAX_SIZE];
	size_t len = input_encode(in, raw);

	h->execs++;
	if (exec_class_is_failure(res->cls))
		note_failure(h, raw, len, in, res);
}

/*
 * The exits of the first run that passed in the mode the mutator's stall
 * samples use: steps mode, or pct mode for a job the guest kernel makes the
 * events for (a plain job's stall samples keep its priorities). About the
 * job's unperturbed run (afl-fuzz may skip the seeds' dry run, so it need
 * not be one without injections), where the stall samples land; said at
 * once (the mutator reads it at every mutant until it knows it).
 */
static void note_steps_profile(struct harness *h, const struct exec_input *input,
			       const struct harness_exec *e)
{
	bool stall_mode = input->mode == INPUT_MODE_STEPS ||
			  (input->mode == INPUT_MODE_PCT && e->res.kernel_events);

	if (h->steps_profiled || !stall_mode || e->cls != CLASS_PASS || !e->res.job_steps)
		return;
	h->steps_profiled = e->res.job_steps;
	harness_write_progress(h);
}

/*
 * Whether the job's events come from the guest kernel (a job not
 * instrumented), from its first pct run: said at once, as k is (a plain
 * job's fresh samples are shared between priorities and stalls at exits).
 */
static void note_pct_run(struct harness *h, const struct exec_input *input,
			 const struct harness_exec *e)
{
	if (h->pct_seen || input->mode != INPUT_MODE_PCT || e->res.counter_missing)
		return;
	h->pct_seen = true;
	h->kernel_events = e->res.kernel_events;
	harness_write_progress(h);
}

static int exec_one(struct harness *h, const uint8_t *data, size_t len, struct harness_exec *out)
{
	struct exec_input input;
	bool profiled;
	int rc;

	memset(&out->res, 0, sizeof(out->res));
	/* afl-fuzz's own mutations rarely keep an input valid: every byte string is one */
	if (input_decode(data, len, &input) == 1)
		h->decoded++;
	out->why[0] = '\0';
	profiled = h->ex.pct_events != 0;
	h->ex.sample_done = profile_sample_ran;
	h->ex.sample_ctx = h;
	rc = executor_run(&h->ex, &input, &out->res);
	h->execs++; /* after the profile samples it may have run first */
	out->cls = out->res.cls;
	if (rc < 0)
		return rc;
	if (!profiled && h->ex.pct_events)
		harness_write_progress(h); /* the mutator waits for k and its estimate */
	note_pct_run(h, &input, out);
	note_steps_profile(h, &input, out);
	h->skips += out->cls == CLASS_SKIP;
	if (out->res.counter_missing) {
		/* the job cannot provide the mode: as if the input were invalid */
		h->rejected++;
		out->cls = CLASS_REJECTED;
		snprintf(out->why, sizeof(out->why), "%s", COUNTER_MISSING);
		coverage_add_class(h->map, h->map_size, CLASS_REJECTED);
		return 0;
	}
	if (input.mode == INPUT_MODE_PCT)
		coverage_add_interleavings(h->map, h->map_size, &h->ex.vm.trace,
					   h->ex.job_trace_from, &h->ex.vm.feedback, out->cls,
					   out->res.job_status);
	else
		coverage_add_trace(h->map, h->map_size, &h->ex.vm.trace, h->ex.job_trace_from,
				   &h->ex.vm.feedback, out->cls, out->res.job_status);
	if (!exec_class_is_failure(out->cls))
		return 0;
	return note_failure(h, data, len, &input, &out->res);
}

int harness_wait_status(const struct harness_exec *e)
{
	if (!exec_class_is_failure(e->cls))
		return 0;
	if (e->cls == CLASS_SIGNAL && WTERMSIG(e->res.job_status) > 0)
		return WTERMSIG(e->res.job_status); /* "killed by signal N" */
	return SIGABRT;
}

int harness_exec(struct harness *h, const uint8_t *data, size_t len, struct harness_exec *out)
{
	double start;
	int rc;

	note_progress(h);
	if (!h->progress_path)
		return exec_one(h, data, len, out);
	/* the harness's own time per execution: under afl-fuzz, the rest is afl's */
	start = host_time_seconds();
	rc = exec_one(h, data, len, out);
	h->busy_seconds += host_time_seconds() - start;
	return rc;
}

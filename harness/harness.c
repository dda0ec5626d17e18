#include "harness/harness.h"

#include "harness/artifact.h"
#include "harness/coverage.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

int harness_exec(struct harness *h, const uint8_t *data, size_t len, struct harness_exec *out)
{
	struct exec_input input;
	char path[4096];
	int rc;

	h->execs++;
	memset(&out->res, 0, sizeof(out->res));
	if (input_parse(data, len, &input, out->why, sizeof(out->why)) < 0) {
		h->rejected++;
		out->cls = CLASS_REJECTED;
		h->map[h->map_size - COVERAGE_CLASS_BYTES + CLASS_REJECTED] = 1;
		return 0;
	}
	out->why[0] = '\0';
	rc = executor_run(&h->ex, &input, &out->res);
	out->cls = out->res.cls;
	if (rc < 0)
		return rc;
	if (out->res.counter_missing) {
		/* the job cannot provide the mode: as if the input were invalid */
		h->rejected++;
		out->cls = CLASS_REJECTED;
		snprintf(out->why, sizeof(out->why), "%s", COUNTER_MISSING);
		h->map[h->map_size - COVERAGE_CLASS_BYTES + CLASS_REJECTED] = 1;
		return 0;
	}
	coverage_add_trace(h->map, h->map_size, &h->ex.vm.trace, h->ex.job_trace_from, out->cls,
			   out->res.job_status);
	if (!exec_class_is_failure(out->cls))
		return 0;
	h->failures++;
	if (!h->artifact_dir)
		return 0;
	rc = artifact_write(h->artifact_dir, &h->job, &h->ex, data, len, &input, &out->res, path,
			    sizeof(path));
	if (rc < 0)
		fprintf(stderr,
			"rewind-harness: the artifact of this %s was not written (see above); "
			"the input alone replays it\n",
			exec_class_name(out->cls));
	if (rc == 1) {
		h->artifacts++;
		if (!h->quiet)
			fprintf(stderr, "rewind-harness: %s at step %llu: artifact %s\n",
				exec_class_name(out->cls), (unsigned long long)out->res.job_steps,
				path);
	}
	return 0;
}

int harness_wait_status(const struct harness_exec *e)
{
	if (!exec_class_is_failure(e->cls))
		return 0;
	if (e->cls == CLASS_SIGNAL && WTERMSIG(e->res.job_status) > 0)
		return WTERMSIG(e->res.job_status); /* "killed by signal N" */
	return SIGABRT;
}

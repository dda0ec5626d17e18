/* SPDX-License-Identifier: MIT */
/* A one-shot run, or the forkserver under afl-fuzz (harness/cmd_run.h). */
#include "harness/cmd_run.h"

#include "harness/coverage.h"
#include "harness/event_log.h"
#include "harness/forkserver.h"
#include "lib/file.h"
#include "lib/json_file.h"
#include "lib/log.h"

#include <stdlib.h>
#include <sys/wait.h>

/*
 * --json: the outcome as one JSON object on stdout, its "format" and
 * "version" first as in every JSON file of Rewind's, then the job's own
 * status (job_status, as rewind run names it) and exec_result_to_json's.
 */
static cJSON *json_outcome(const struct exec_result *res)
{
	cJSON *o = cJSON_CreateObject(), *fields = exec_result_to_json(res), *f;

	if (!o || !fields) {
		cJSON_Delete(o);
		cJSON_Delete(fields);
		return NULL;
	}
	cJSON_AddStringToObject(o, "format", "rewind-outcome");
	cJSON_AddNumberToObject(o, "version", 1);
	while ((f = fields->child) != NULL)
		cJSON_AddItemToObject(o, f->string, cJSON_DetachItemViaPointer(fields, f));
	cJSON_Delete(fields);
	if (res->has_job_status && WIFEXITED(res->job_status))
		cJSON_AddNumberToObject(o, "job_status", WEXITSTATUS(res->job_status));
	else
		cJSON_AddNullToObject(o, "job_status");
	return o;
}

static int print_json_outcome(const struct exec_result *res)
{
	return json_print_line(json_outcome(res), "the JSON outcome");
}

/*
 * One input (data, read from path before the harness opened), not under
 * afl-fuzz: its output, its outcome, an artifact if it fails.
 */
static int run_once(struct harness *h, const char *path, const uint8_t *data, size_t len,
		    const char *trace_path, bool json)
{
	static uint8_t map[COVERAGE_MAX_SIZE];
	struct harness_exec e;
	int rc;

	h->map = map;
	cli_say_if_decoded(path, data, len, "running it decoded");
	rc = harness_exec(h, data, len, &e);
	fflush(stdout);
	if (rc < 0)
		return STATUS_HOST; /* the job started: a KVM or host error mid-run */
	if (e.res.counter_missing) {
		rw_err("%s", COUNTER_MISSING);
		return STATUS_SETUP;
	}
	if (e.cls == CLASS_REJECTED) {
		rw_err("%s is not a valid input: %s", path, e.why);
		return STATUS_BAD_FILE;
	}
	if (e.res.kernel_events)
		fprintf(stderr, "%s\n", KERNEL_EVENTS);
	if (!json)
		exec_result_print(&e.res);
	else if (print_json_outcome(&e.res) < 0)
		return STATUS_HOST;
	if (trace_path && trace_write(&h->ex.vm.trace, trace_path) < 0)
		return STATUS_HOST;
	return exec_class_is_failure(e.cls) ? STATUS_FOUND : STATUS_OK;
}

/*
 * Under afl-fuzz: the quick checks, the hello, then the boot (afl-fuzz
 * times out the hello, not the first pid: forkserver_hello).
 */
static int serve_afl(struct harness *h, struct cli *c)
{
	static struct forkserver fs; /* its testcase buffer is too big for the stack */
	int rc = 1;

	cli_harness_settings(h, c);
	if (cli_prepare_harness(h, c, NULL) < 0)
		return STATUS_SETUP;
	if (forkserver_hello(&fs, h, c->file) < 0)
		goto out;
	if (cli_boot_harness(h, c) < 0)
		rw_err("the job did not start after the hello to afl-fuzz, which reports a fork "
		       "server that failed (AFL_DEBUG_CHILD=1 shows this message)");
	else
		rc = forkserver_serve(&fs, h);
out:
	forkserver_close(&fs);
	return rc;
}

int cmd_run(struct cli *c)
{
	static struct harness h;
	bool afl = forkserver_wanted();
	uint8_t *data = NULL;
	size_t len = 0;
	int rc;

	if (afl && forkserver_tie_to_afl() < 0)
		return STATUS_SETUP;
	if (!afl && !c->file) {
		rw_err("no input to run; rewind-harness --help lists the modes and options");
		return STATUS_BAD_FILE;
	}
	/* the input is read before KVM is opened: a missing file is a usage error */
	if (!afl && file_read_max(c->file, INPUT_FILE_MAX, "input", &data, &len) < 0)
		return STATUS_BAD_FILE;
	if (!afl && c->event_log_path && event_log_alloc(&c->event_log) < 0) {
		free(data);
		return STATUS_SETUP;
	}
	if (afl) {
		/* afl-fuzz reads the map; the guest's output would only slow it down */
		rc = serve_afl(&h, c);
	} else if (cli_open_harness(&h, c, c->json ? stderr : stdout) < 0) {
		rc = STATUS_SETUP;
	} else {
		rc = run_once(&h, c->file, data, len, c->trace_path, c->json);
		if (c->event_log.at && (rc == STATUS_OK || rc == STATUS_FOUND) &&
		    event_log_write(&c->event_log, c->event_log_path) < 0)
			rc = STATUS_HOST;
	}
	executor_close(&h.ex);
	free(c->event_log.at);
	free(data);
	return rc;
}

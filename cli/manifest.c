/* SPDX-License-Identifier: MIT */
#include "cli/manifest.h"

#include "lib/file.h"
#include "lib/json_file.h"
#include "lib/log.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

static cJSON *inputs_json(const struct run_options *opt, const struct run_inputs *in,
			  const struct vm *vm)
{
	cJSON *o = cJSON_CreateObject(), *cmd = cJSON_AddArrayToObject(o, "command");
	cJSON *adds;

	for (size_t i = 0; i < opt->argc; i++)
		cJSON_AddItemToArray(cmd, cJSON_CreateString(opt->argv[i]));
	cJSON_AddStringToObject(o, "kernel", opt->kernel_path);
	json_add_hex(o, "kernel_xxh3", in->kernel_hash, JSON_HEX_PLAIN);
	cJSON_AddStringToObject(o, "initrd", opt->initrd_path);
	json_add_hex(o, "initrd_xxh3", in->initrd_hash, JSON_HEX_PLAIN);
	adds = cJSON_AddArrayToObject(o, "add");
	for (size_t i = 0; i < opt->add_count; i++)
		cJSON_AddItemToArray(adds, cJSON_CreateString(opt->adds[i]));
	if (opt->user)
		cJSON_AddStringToObject(o, "user", opt->user);
	if (opt->cwd)
		cJSON_AddStringToObject(o, "cwd", opt->cwd);
	if (opt->env_count) {
		cJSON *env = cJSON_AddArrayToObject(o, "env");

		for (size_t i = 0; i < opt->env_count; i++)
			cJSON_AddItemToArray(env, cJSON_CreateString(opt->envs[i]));
	}
	cJSON_AddNumberToObject(o, "seed", (double)opt->seed);
	cJSON_AddNumberToObject(o, "epoch_s", (double)opt->epoch_s);
	cJSON_AddNumberToObject(o, "mem_bytes", (double)opt->mem_bytes);
	cJSON_AddNumberToObject(o, "quantum_ns", (double)vm->clock.quantum_ns);
	cJSON_AddStringToObject(o, "cpu_model", vm->cpu_model);
	cJSON_AddNumberToObject(o, "step_budget", (double)opt->step_budget);
	cJSON_AddNumberToObject(o, "stuck_ms", (double)opt->stuck_ms);
	cJSON_AddNumberToObject(o, "slice_blocks", (double)opt->slice_blocks);
	cJSON_AddNumberToObject(o, "block_ns", (double)opt->block_ns);
	return o;
}

/* The job's own status: its exit code, or the signal that killed it (null when none). */
static void add_job_status(cJSON *o, const struct vm *vm)
{
	bool exited = vm->has_job_status && WIFEXITED(vm->job_status);
	bool killed = vm->has_job_status && WIFSIGNALED(vm->job_status);
	const char *sig = killed ? sigabbrev_np(WTERMSIG(vm->job_status)) : NULL;

	if (exited)
		cJSON_AddNumberToObject(o, "job_status", WEXITSTATUS(vm->job_status));
	else
		cJSON_AddNullToObject(o, "job_status");
	if (killed)
		cJSON_AddStringToObject(o, "signal", sig ? sig : "?");
	else
		cJSON_AddNullToObject(o, "signal");
}

static cJSON *result_json(const struct vm *vm, const struct run_result *res)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "outcome", vm_outcome_name(vm->outcome));
	cJSON_AddStringToObject(o, "detail", vm->detail);
	cJSON_AddNumberToObject(o, "exit_status", res->exit_status);
	add_job_status(o, vm);
	if (vm->has_job_status)
		cJSON_AddNumberToObject(o, "job_wait_status", vm->job_status);
	cJSON_AddNumberToObject(o, "steps", (double)vm->steps);
	cJSON_AddNumberToObject(o, "ready_step", (double)vm->ready_step);
	cJSON_AddNumberToObject(o, "virtual_ns", (double)vm->clock.now_ns);
	cJSON_AddNumberToObject(o, "wall_s", res->wall_s);
	json_add_hex(o, "trace_xxh3", trace_hash(&vm->trace), JSON_HEX_PLAIN);
	cJSON_AddNumberToObject(o, "trace_records", (double)vm->trace.count);
	return o;
}

cJSON *manifest_run_json(const struct run_options *opt, const struct vm *vm,
			 const struct run_result *res)
{
	cJSON *o = cJSON_CreateObject(), *settings;

	cJSON_AddStringToObject(o, "format", "rewind-run");
	cJSON_AddNumberToObject(o, "version", RUN_JSON_VERSION);
	json_add_hex(o, "run_id", res->run_id, JSON_HEX_PLAIN);
	cJSON_AddStringToObject(o, "outcome", vm_outcome_name(vm->outcome));
	cJSON_AddStringToObject(o, "detail", vm->detail);
	add_job_status(o, vm);
	cJSON_AddNumberToObject(o, "exit_status", res->exit_status);
	cJSON_AddNumberToObject(o, "steps", (double)vm->steps);
	cJSON_AddNumberToObject(o, "virtual_s", (double)vm->clock.now_ns / 1e9);
	cJSON_AddNumberToObject(o, "wall_s", res->wall_s);
	json_add_hex(o, "trace", trace_hash(&vm->trace), JSON_HEX_PLAIN);
	if (res->run_dir_written)
		cJSON_AddStringToObject(o, "run_dir", res->run_dir);
	else
		cJSON_AddNullToObject(o, "run_dir");
	settings = cJSON_AddObjectToObject(o, "settings");
	cJSON_AddNumberToObject(settings, "mem_bytes", (double)opt->mem_bytes);
	cJSON_AddNumberToObject(settings, "step_budget", (double)opt->step_budget);
	cJSON_AddNumberToObject(settings, "stuck_ms", (double)opt->stuck_ms);
	cJSON_AddNumberToObject(settings, "seed", (double)opt->seed);
	cJSON_AddNumberToObject(settings, "epoch_s", (double)opt->epoch_s);
	cJSON_AddNumberToObject(settings, "slice_blocks", (double)opt->slice_blocks);
	cJSON_AddNumberToObject(settings, "block_ns", (double)opt->block_ns);
	cJSON_AddNumberToObject(settings, "repeat", (double)opt->repeat);
	return o;
}

void manifest_run_dir_name(const struct run_options *opt, struct run_result *res)
{
	if (opt->out_dir)
		snprintf(res->run_dir, sizeof(res->run_dir), "%s", opt->out_dir);
	else
		snprintf(res->run_dir, sizeof(res->run_dir), "rewind-runs/%016llx",
			 (unsigned long long)res->run_id);
}

static int make_run_dir(const struct run_options *opt, const struct run_result *res)
{
	if (!opt->out_dir && mkdir("rewind-runs", 0755) < 0 && errno != EEXIST) {
		rw_err_errno(errno, "cannot create rewind-runs/");
		return -errno;
	}
	if (mkdir(res->run_dir, 0755) < 0 && errno != EEXIST) {
		rw_err_errno(errno, "cannot create the run directory %s", res->run_dir);
		return -errno;
	}
	return 0;
}

int manifest_write_run(const struct run_options *opt, const struct run_inputs *in,
		       const struct vm *vm, const struct run_result *res)
{
	char path[sizeof(res->run_dir) + 32];
	cJSON *root = cJSON_CreateObject();
	char *text;
	int rc = make_run_dir(opt, res);

	cJSON_AddStringToObject(root, "format", "rewind-manifest");
	cJSON_AddNumberToObject(root, "version", MANIFEST_VERSION);
	json_add_hex(root, "run_id", res->run_id, JSON_HEX_PLAIN);
	cJSON_AddItemToObject(root, "inputs", inputs_json(opt, in, vm));
	cJSON_AddItemToObject(root, "result", result_json(vm, res));
	text = cJSON_Print(root);
	cJSON_Delete(root);
	if (!text)
		return -ENOMEM;
	/* the trace first: a manifest is only there with the trace it names */
	if (!rc) {
		snprintf(path, sizeof(path), "%s/trace.bin", res->run_dir);
		rc = trace_write(&vm->trace, path);
	}
	if (!rc) {
		struct file_part parts[] = {{text, strlen(text)}, {"\n", 1}};

		snprintf(path, sizeof(path), "%s/manifest.json", res->run_dir);
		rc = file_write_atomic(path, parts, 2);
	}
	free(text);
	return rc;
}

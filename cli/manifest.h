/* SPDX-License-Identifier: MIT */
/* The run directory: manifest.json (inputs and result) and trace.bin. */
#ifndef REWIND_MANIFEST_H
#define REWIND_MANIFEST_H

#include "cli/run.h"
#include "vmm/run_inputs.h"
#include "vmm/vm.h"

#include <cjson/cJSON.h>

/* manifest.json: "format": "rewind-manifest", "version": 2 (version 1 said
 * "rewind_manifest": 1, and its result's exit_status was the job's own) */
#define MANIFEST_VERSION 2
/* `rewind run --json`'s object: "format": "rewind-run" */
#define RUN_JSON_VERSION 1

/* The run directory's name (opt->out_dir or rewind-runs/<run id>), into res->run_dir. */
void manifest_run_dir_name(const struct run_options *opt, struct run_result *res);

/* Creates the run directory res->run_dir and writes both files. */
int manifest_write_run(const struct run_options *opt, const struct run_inputs *in,
		       const struct vm *vm, const struct run_result *res);

/* `rewind run --json`'s object: the outcome, the job's status, the settings used. */
cJSON *manifest_run_json(const struct run_options *opt, const struct vm *vm,
			 const struct run_result *res);

#endif

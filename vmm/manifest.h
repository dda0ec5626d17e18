/* The run directory: manifest.json (inputs and result) and trace.bin. */
#ifndef REWIND_MANIFEST_H
#define REWIND_MANIFEST_H

#include "vmm/run_inputs.h"
#include "vmm/vm.h"

#define MANIFEST_VERSION 1

/* Creates the run directory (opt->out_dir or rewind-runs/<run id>) and writes both files. */
int manifest_write_run(const struct run_options *opt, const struct run_inputs *in,
		       const struct vm *vm, const struct run_result *res);

#endif

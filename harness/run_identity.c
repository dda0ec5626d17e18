/* SPDX-License-Identifier: MIT */
#include "harness/run_identity.h"

#include "lib/json_file.h"
#include "rewind/abi.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void run_identity_of(const struct executor *ex, struct run_identity *id)
{
	*id = (struct run_identity){.kernel_xxh3 = ex->in.kernel_hash,
				    .initramfs_xxh3 = ex->base_initrd_hash,
				    .job_xxh3 = ex->job_hash,
				    .abi_version = REWIND_ABI_VERSION,
				    .quantum_ns = ex->vm.clock.quantum_ns};
	snprintf(id->cpu_model, sizeof(id->cpu_model), "%s", ex->vm.cpu_model);
}

bool run_identity_is(const struct run_identity *id, const struct executor *ex)
{
	struct run_identity here;

	run_identity_of(ex, &here);
	return id->kernel_xxh3 == here.kernel_xxh3 && id->initramfs_xxh3 == here.initramfs_xxh3 &&
	       id->job_xxh3 == here.job_xxh3 && !strcmp(id->cpu_model, here.cpu_model) &&
	       id->abi_version == here.abi_version && id->quantum_ns == here.quantum_ns;
}

cJSON *run_identity_to_json(const struct run_identity *id)
{
	cJSON *o = cJSON_CreateObject();

	json_add_hex(o, "kernel_xxh3", id->kernel_xxh3, JSON_HEX_HASH);
	json_add_hex(o, "initramfs_xxh3", id->initramfs_xxh3, JSON_HEX_HASH);
	json_add_hex(o, "job_xxh3", id->job_xxh3, JSON_HEX_HASH);
	cJSON_AddStringToObject(o, "cpu_model", id->cpu_model);
	cJSON_AddNumberToObject(o, "abi_version", (double)id->abi_version);
	cJSON_AddNumberToObject(o, "quantum_ns", (double)id->quantum_ns);
	return o;
}

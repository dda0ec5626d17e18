/* SPDX-License-Identifier: MIT */
#include "vmm/version.h"

#include "lib/file.h"
#include "rewind/abi.h"
#include "vmm/cpuid.h"

#include <inttypes.h>
#include <stdlib.h>
#include <xxhash.h>

/* The build's git commit; the GNUmakefile passes it (-DREWIND_COMMIT), else unknown. */
#ifndef REWIND_COMMIT
#define REWIND_COMMIT ""
#endif

#define KERNEL_MAX (64u << 20) /* a bzImage is a few MiB */

static void print_kernel(FILE *to, const char *path)
{
	uint8_t *data;
	size_t len;

	char *full = realpath(path, NULL);

	if (!full) {
		fprintf(to, "kernel %s (missing)\n", path);
		return;
	}
	if (file_read_max(full, KERNEL_MAX, "guest kernel", &data, &len) == 0) {
		fprintf(to, "kernel %s (XXH3 0x%016" PRIx64 ", %zu bytes)\n", full,
			XXH3_64bits(data, len), len);
		free(data);
	}
	free(full);
}

void version_print(FILE *to, const char *program, const char *kernel_path)
{
	fprintf(to, "%s %s (commit %s)\n", program, REWIND_VERSION,
		REWIND_COMMIT[0] ? REWIND_COMMIT : "unknown");
	fprintf(to, "guest ABI %u\n", REWIND_ABI_VERSION);
	fprintf(to, "CPU model %s (\"%s\")\n", cpuid_model_name_here(), CPUID_MODEL_BRAND);
	print_kernel(to, kernel_path);
}

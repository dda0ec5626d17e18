/* SPDX-License-Identifier: MIT */
/*
 * AFL++ target for reading a job file (harness/job.c: what job_load_file does
 * with the bytes, cJSON_ParseWithLength then job_apply_json over the
 * defaults), which `rewind-harness --job FILE` and every artifact's "job"
 * go through.
 *
 *   fuzz_job FILE             checks FILE (stdin without FILE)
 *   fuzz_job --write-seeds DIR writes a few valid job files into DIR
 *
 * Every byte string is refused (not JSON, or job_apply_json's -EINVAL or
 * -E2BIG, the message on stderr) or accepted, never crashed on or read out
 * of bounds. An accepted job has every field in its documented range, one
 * add per guest path, and survives job_to_json and job_apply_json unchanged.
 * Persistent mode as in tests/fuzz/fuzz.h. Planted bug
 * (-DFUZZ_PLANTED_BUG): an accepted job whose command, kernel, initramfs
 * or adds hold a byte of 0x80 or more (no seed's do).
 */
#define FUZZ_NAME "fuzz_job"

#include "harness/job.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/job_round_trip.h"

#include <stdbool.h>

/* Ranges as docs/harness.md and job_apply_json give them. */
static void check_ranges(const struct harness_job *job)
{
	const struct run_options *r = &job->run;
	char a[4096], b[4096];

	if (r->mem_bytes < (64ull << 20) || r->mem_bytes > (3072ull << 20) ||
	    r->mem_bytes % (1u << 20) || r->epoch_s > (1ull << 40) || r->step_budget < 1 ||
	    r->step_budget > (1ull << 40) || r->stuck_ms < 10 || r->stuck_ms > 3600000 ||
	    job->wall_ms < 1 || job->wall_ms > 86400000 || job->slice_blocks > (1u << 30) ||
	    job->block_ns > 1000)
		fuzz_die("job_apply_json", "accepted a number out of range");
	if (!r->kernel_path || r->kernel_path != job->kernel || !r->kernel_path[0] ||
	    !r->initrd_path || r->initrd_path != job->initramfs || !r->initrd_path[0])
		fuzz_die("job_apply_json", "left kernel or initramfs unset");
	if (r->argc < 1 || r->argc > JOB_MAX_ARGS || r->argv != job->argv || job->argv[r->argc])
		fuzz_die("job_apply_json", "left a command of the wrong length");
	for (size_t i = 0; i < r->argc; i++) {
		if (!job->argv[i])
			fuzz_die("job_apply_json", "left a hole in the command");
	}
	if (r->add_count > RUN_MAX_ADDS)
		fuzz_die("job_apply_json", "accepted too many adds");
	for (size_t i = 0; i < r->add_count; i++) {
		if (!job->adds[i] || r->adds[i] != job->adds[i])
			fuzz_die("job_apply_json", "left an add unset");
		job_add_guest_path(job->adds[i], a, sizeof(a));
		for (size_t j = 0; j < i; j++) {
			job_add_guest_path(job->adds[j], b, sizeof(b));
			if (!strcmp(a, b))
				fuzz_die("job_apply_json", "kept two adds for one guest path");
		}
	}
}

#ifdef FUZZ_PLANTED_BUG
static bool holds_non_ascii(const struct harness_job *job)
{
	bool found = fuzz_not_ascii(job->kernel) || fuzz_not_ascii(job->initramfs);

	for (size_t i = 0; i < job->run.argc; i++)
		found |= fuzz_not_ascii(job->argv[i]);
	for (size_t i = 0; i < job->run.add_count; i++)
		found |= fuzz_not_ascii(job->adds[i]);
	return found;
}
#endif

static void check(const uint8_t *bytes, size_t len, const char *path)
{
	struct harness_job job;
	/* an exact-size copy (not NUL-terminated), so ASan catches a read past the end */
	char *text = (char *)fuzz_copy(bytes, len);
	cJSON *obj = cJSON_ParseWithLength(text, len);
	int rc;

	(void)path;
	if (!obj) {
		free(text);
		return;
	}
	if (job_init_defaults(&job) < 0)
		fuzz_die("job_init_defaults", "failed");
	rc = job_apply_json(&job, obj, "fuzzed job");
	if (rc == 0) {
		check_ranges(&job);
		check_job_round_trip(&job);
		FUZZ_PLANTED(holds_non_ascii(&job), "an accepted job with a byte of 0x80 or more");
	} else if (rc != -EINVAL && rc != -E2BIG) {
		fuzz_die("job_apply_json", "returned neither 0, -EINVAL nor -E2BIG");
	}
	cJSON_Delete(obj);
	job_free(&job);
	free(text);
}

static int write_seed(const char *dir, const char *name, const char *text)
{
	return fuzz_write_seed(dir, name, text, strlen(text));
}

static int write_seeds(const char *dir)
{
	/* docs/harness.md's example */
	int rc = write_seed(
		dir, "docs",
		"{\"kernel\": \"build/guest/bzImage\", \"initramfs\": "
		"\"build/guest/initramfs.cpio\",\n"
		" \"command\": [\"/bin/mytest\", \"--quick\"], \"add\": [\"./mytest\"],\n"
		" \"mem_mib\": 128, \"epoch_s\": 1767225600,\n"
		" \"step_budget\": 100000, \"stuck_ms\": 2000, \"wall_ms\": 10000,\n"
		" \"slice_blocks\": 10000, \"block_ns\": 1}\n");

	rc |= write_seed(dir, "empty", "{}");
	rc |= write_seed(dir, "command", "{\"command\": [\"/bin/ledger\"]}");
	rc |= write_seed(dir, "counter",
			 "{\"command\": [\"/tests/lost_update\", \"-n\", \"4\"],\n"
			 " \"add\": [\"lost_update:/tests/lost_update:755\", \"data.txt\", "
			 "\"cfg:/etc/t.cfg:644\"],\n"
			 " \"mem_mib\": 3072, \"step_budget\": 1099511627776, \"stuck_ms\": 10,\n"
			 " \"wall_ms\": 86400000, \"slice_blocks\": 0, \"block_ns\": 1000}\n");
	rc |= write_seed(dir, "replaced-add",
			 "{\"add\": [\"a:/bin/x\", \"b:/bin/x:700\"], \"mem_mib\": 64}");
	return rc ? -1 : 0;
}

int main(int argc, char **argv)
{
	return fuzz_main(argc, argv, check, write_seeds, NULL, NULL);
}

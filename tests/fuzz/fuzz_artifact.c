/* SPDX-License-Identifier: MIT */
/*
 * AFL++ target for reading a crash artifact (harness/artifact.c:
 * artifact_parse, and the job object in it, harness/job.c), which
 * `rewind-harness --replay FILE` does with a file from anyone.
 *
 *   fuzz_artifact FILE             checks FILE (stdin without FILE)
 *   fuzz_artifact --write-seeds DIR writes a few valid artifacts into DIR
 *
 * Every byte string is accepted or refused with -EINVAL (the message goes to
 * stderr; nothing captures it), never crashed on or read out of bounds. An
 * accepted artifact's input must encode to bytes that parse back to the same
 * input, and survive its JSON form; its job must survive job_to_json and
 * job_apply_json; its expectations must be in range. Persistent mode as in
 * tests/fuzz/fuzz.h. Planted bug (-DFUZZ_PLANTED_BUG): an accepted artifact
 * whose input seed is not 0 (every seed's is).
 */
#define FUZZ_NAME "fuzz_artifact"

#include "harness/artifact.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/job_round_trip.h"
#include "tests/unit/artifact_sample.h"

/* The input encodes, parses back and survives JSON unchanged. */
static void check_input(const struct exec_input *in)
{
	static struct exec_input back, again;
	static uint8_t bytes[INPUT_MAX_SIZE], bytes_back[INPUT_MAX_SIZE];
	char why[160] = "";
	size_t len = input_encode(in, bytes);
	cJSON *json;

	if (input_parse(bytes, len, &back, why, sizeof(why)) != 0)
		fuzz_die("input_parse of the accepted input's encoding", why);
	if (input_encode(&back, bytes_back) != len || memcmp(bytes, bytes_back, len) != 0)
		fuzz_die("input round trip", "bytes differ");
	json = input_to_json(in);
	if (!json)
		fuzz_die("input_to_json", "refused an accepted input");
	if (input_from_json(json, &again, why, sizeof(why)) != 0)
		fuzz_die("input_from_json of input_to_json", why);
	cJSON_Delete(json);
	if (input_encode(&again, bytes_back) != len || memcmp(bytes, bytes_back, len) != 0)
		fuzz_die("input JSON round trip", "bytes differ");
}

static void check_expect(const struct artifact_expect *e)
{
	if (e->cls >= CLASS_COUNT || e->file_count > RUN_MAX_ADDS || e->job_steps > (1ull << 40) ||
	    e->identity.abi_version < 1 || e->identity.quantum_ns < 1 ||
	    memchr(e->detail, '\0', sizeof(e->detail)) == NULL ||
	    memchr(e->identity.cpu_model, '\0', sizeof(e->identity.cpu_model)) == NULL)
		fuzz_die("artifact_parse", "accepted an expectation out of range");
	for (size_t i = 0; i < e->file_count; i++) {
		if (e->files[i].guest[0] != '/' || e->files[i].mode > 07777 ||
		    memchr(e->files[i].guest, '\0', sizeof(e->files[i].guest)) == NULL)
			fuzz_die("artifact_parse", "accepted an added file out of range");
	}
}

static void check(const uint8_t *bytes, size_t len, const char *path)
{
	static struct exec_input in;
	static struct artifact_expect e;
	struct harness_job job;
	/* an exact-size copy (not NUL-terminated), so ASan catches a read past the end */
	char *text = (char *)fuzz_copy(bytes, len);
	int rc;

	(void)path;
	if (job_init_defaults(&job) < 0)
		fuzz_die("job_init_defaults", "failed");
	rc = artifact_parse(text, len, "fuzzed artifact", &job, &in, &e);
	if (rc == 0) {
		check_input(&in);
		check_job_round_trip(&job);
		check_expect(&e);
		FUZZ_PLANTED(in.seed != 0, "an accepted artifact whose input seed is not 0");
	} else if (rc != -EINVAL) {
		fuzz_die("artifact_parse", "returned neither 0 nor -EINVAL");
	}
	job_free(&job);
	free(text);
}

/* Version 1 (no added_files): a pct input on an instrumented test, a deadlock. */
static const char artifact_v1_pct[] =
	"{\"format\":\"rewind-crash\",\"version\":1,"
	"\"input\":{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"pct\","
	"\"seed\":\"0x0000000000000000\",\"injections\":["
	"{\"thread\":1,\"kind\":\"priority\",\"priority\":99},"
	"{\"position\":2147483648,\"kind\":\"demote\",\"priority\":3}]},"
	"\"input_hex\":\"\","
	"\"job\":{\"command\":[\"/tests/lost_update\",\"-n\",\"4\"],"
	"\"add\":[\"lost_update:/tests/lost_update:755\",\"data.txt\"],"
	"\"mem_mib\":256,\"step_budget\":50000,\"slice_blocks\":5000,\"block_ns\":2},"
	"\"identity\":{\"kernel_xxh3\":\"0x0000000000000001\","
	"\"initramfs_xxh3\":\"0x0000000000000002\",\"job_xxh3\":\"0x0000000000000003\","
	"\"cpu_model\":\"rewind-intel-v1\",\"abi_version\":4,\"quantum_ns\":1000},"
	"\"outcome\":{\"class\":\"deadlock\",\"detail\":\"every task blocked\",\"step\":812},"
	"\"trace_xxh3\":\"0x00000000deadbeef\"}";

/* Counter mode, a preemption, two added files, an exit with a status. */
static const char artifact_counter[] =
	"{\"format\":\"rewind-crash\",\"version\":2,"
	"\"input\":{\"format\":\"rewind-input\",\"version\":1,\"mode\":\"counter\","
	"\"seed\":\"0x0000000000000000\",\"injections\":[{\"block\":1200,\"kind\":\"preempt\"},"
	"{\"step\":7,\"kind\":\"timer-late\",\"us\":40}]},"
	"\"job\":{\"command\":[\"/bin/t\"],\"add\":[\"t\",\"cfg:/etc/t.cfg:644\"],"
	"\"stuck_ms\":500,\"wall_ms\":20000},"
	"\"added_files\":[{\"guest\":\"/bin/t\",\"mode\":493,\"xxh3\":\"0x1\"},"
	"{\"guest\":\"/etc/t.cfg\",\"mode\":420,\"xxh3\":\"0xfedcba9876543210\"}],"
	"\"identity\":{\"kernel_xxh3\":\"0xa\",\"initramfs_xxh3\":\"0xb\",\"job_xxh3\":\"0xc\","
	"\"cpu_model\":\"rewind-amd-v1\",\"abi_version\":4,\"quantum_ns\":5000},"
	"\"outcome\":{\"class\":\"exit\",\"detail\":\"job exited 3\",\"job_wait_status\":768,"
	"\"step\":4096},\"trace_xxh3\":\"0x0\",\"output_tail\":\"\"}";

static int write_seeds(const char *dir)
{
	int rc = fuzz_write_seed(dir, "v2", artifact_sample, strlen(artifact_sample));

	rc |= fuzz_write_seed(dir, "v1-pct", artifact_v1_pct, strlen(artifact_v1_pct));
	rc |= fuzz_write_seed(dir, "counter", artifact_counter, strlen(artifact_counter));
	return rc ? -1 : 0;
}

int main(int argc, char **argv)
{
	return fuzz_main(argc, argv, check, write_seeds, NULL, NULL);
}

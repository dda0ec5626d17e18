/* rewind-harness: the AFL++ target, one-shot runner, replayer and input converter. */
#include "harness/artifact.h"
#include "harness/coverage.h"
#include "harness/forkserver.h"
#include "harness/harness.h"
#include "harness/reach.h"
#include "harness/replay.h"
#include "mutators/schedule.h"
#include "vmm/file.h"
#include "vmm/log.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

enum mode { MODE_RUN, MODE_REPLAY, MODE_TO_JSON, MODE_FROM_JSON, MODE_RANDOM };

struct cli {
	enum mode mode;
	const char *file; /* the input, artifact or JSON file */
	const char *output;
	const char *trace_path; /* one-shot run: write the event trace here */
	const char *artifact_dir;
	const char *kernel, *initramfs;
	size_t map_size;
	uint64_t random_execs, random_seed; /* --random: the baseline search */
	uint64_t random_seconds;	    /* --seconds: its time budget (0: none) */
	uint8_t random_mode;
	uint64_t repeat; /* --replay: run it this many times */
	struct harness_job job;
};

static void usage(FILE *to)
{
	fprintf(to,
		"usage: afl-fuzz -i corpus/ledger -o OUT -- rewind-harness [OPTIONS] @@\n"
		"       rewind-harness [OPTIONS] INPUT       run one input, print output and "
		"outcome\n"
		"       rewind-harness --replay FILE [--repeat N]  replay a crash artifact or raw\n"
		"                                            input (N times: each run the same?)\n"
		"       rewind-harness --to-json INPUT       print an input as JSON\n"
		"       rewind-harness --from-json FILE -o OUT  write the input of a JSON input "
		"or\n"
		"                                            artifact as the binary afl-fuzz uses\n"
		"\n"
		"Runs a job in Rewind's deterministic guest, once per input; an input is a seed\n"
		"plus a schedule of injections (docs/input-format.md). Under afl-fuzz it is a\n"
		"forkserver target: the guest boots once, every execution restores the keyframe\n"
		"taken when the job was about to start. Coverage comes from the guest's event\n"
		"trace; every failure (non-zero exit, fatal signal, panic, deadlock, livelock,\n"
		"stuck) is reported as a crash and saved as a self-contained JSON artifact.\n"
		"\n"
		"Job (default: the bundled racy example %s; docs/harness.md):\n"
		"  --job FILE          a job file (JSON: kernel, initramfs, command, add, "
		"mem_mib,\n"
		"                      epoch_s, step_budget, stuck_ms, wall_ms, slice_blocks,\n"
		"                      block_ns)\n"
		"  --kernel FILE       guest bzImage (default: build/guest/bzImage)\n"
		"  --initramfs FILE    base initramfs (default: build/guest/initramfs.cpio)\n"
		"  --add HOST[:GUEST]  put a host file into the guest (default GUEST: /bin/NAME)\n"
		"  --mem MIB           guest RAM in MiB (default %llu)\n"
		"  --step-budget N     steps after which a run is a livelock (default %llu)\n"
		"  --stuck-ms MS       wall ms without an exit after which a run is stuck\n"
		"                      (default %llu)\n"
		"  --wall-ms MS        wall budget of one execution; a run over it is a timeout,\n"
		"                      not a crash (default %llu)\n"
		"  --slice-blocks N    counter mode: preempt every N schedule events when the\n"
		"                      schedule says nothing (default %llu, 0 = never)\n"
		"  --block-ns NS       counter and pct modes: virtual time of one schedule event\n"
		"                      (default %llu)\n"
		"  -- CMD [ARGS...]    the command to run in the guest\n"
		"\n"
		"Fuzzing:\n"
		"  --artifacts DIR     where crash artifacts go (default: rewind-crashes)\n"
		"  --trace FILE        (one input) write its event trace (RWTRACE1, vmm/trace.h)\n"
		"  --random N          the baseline: run up to N random inputs of the format (no\n"
		"                      coverage feedback) until the first failure; print the "
		"count\n"
		"  --random-seed S     their seed (default 0); --counter: counter-mode inputs;\n"
		"                      --pct: PCT samples (pct mode); --seconds S: stop after S\n"
		"                      seconds\n"
		"  --map-size N        coverage map bytes, a power of two (default %u)\n"
		"  -v, --verbose       show the guest kernel's console\n"
		"\n"
		"Inputs: any bytes are an input (what is not in the documented format is\n"
		"decoded field by field, docs/input-format.md); modes: steps for any static\n"
		"binary, pct (priority schedules) and counter for a test built with\n"
		"guest/rewind-cc or guest/rewind-c++ (docs/harness.md, \"Modes\").\n"
		"\n"
		"Exit status: one-shot run: 0 pass, 1 failure, 2 unreadable file; --replay: 0\n"
		"the same run, 1 it differs (said on stderr), 2 unreadable file; 64 setup failed\n"
		"(or the job cannot run the input's mode).\n",
		JOB_DEFAULT_COMMAND, JOB_DEFAULT_MEM >> 20, JOB_DEFAULT_STEP_BUDGET,
		JOB_DEFAULT_STUCK_MS, JOB_DEFAULT_WALL_MS, JOB_DEFAULT_SLICE_BLOCKS,
		JOB_DEFAULT_BLOCK_NS, COVERAGE_DEFAULT_SIZE);
}

static int parse_u64(const char *text, const char *what, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(text, &end, 0);
	if (errno || end == text || *end || text[0] == '-' || *out < min || *out > max) {
		rw_err("%s must be an integer in %llu..%llu, not '%s'", what,
		       (unsigned long long)min, (unsigned long long)max, text);
		return -EINVAL;
	}
	return 0;
}

enum {
	OPT_JOB = 256,
	OPT_KERNEL,
	OPT_INITRAMFS,
	OPT_ADD,
	OPT_MEM,
	OPT_STEP_BUDGET,
	OPT_STUCK_MS,
	OPT_WALL_MS,
	OPT_ARTIFACTS,
	OPT_MAP_SIZE,
	OPT_REPLAY,
	OPT_TO_JSON,
	OPT_FROM_JSON,
	OPT_TRACE,
	OPT_SLICE_BLOCKS,
	OPT_BLOCK_NS,
	OPT_RANDOM,
	OPT_RANDOM_SEED,
	OPT_COUNTER,
	OPT_PCT,
	OPT_SECONDS,
	OPT_REPEAT,
};

static const struct option long_options[] = {
	{"job", required_argument, NULL, OPT_JOB},
	{"kernel", required_argument, NULL, OPT_KERNEL},
	{"initramfs", required_argument, NULL, OPT_INITRAMFS},
	{"add", required_argument, NULL, OPT_ADD},
	{"mem", required_argument, NULL, OPT_MEM},
	{"step-budget", required_argument, NULL, OPT_STEP_BUDGET},
	{"stuck-ms", required_argument, NULL, OPT_STUCK_MS},
	{"wall-ms", required_argument, NULL, OPT_WALL_MS},
	{"artifacts", required_argument, NULL, OPT_ARTIFACTS},
	{"map-size", required_argument, NULL, OPT_MAP_SIZE},
	{"replay", required_argument, NULL, OPT_REPLAY},
	{"to-json", required_argument, NULL, OPT_TO_JSON},
	{"from-json", required_argument, NULL, OPT_FROM_JSON},
	{"trace", required_argument, NULL, OPT_TRACE},
	{"slice-blocks", required_argument, NULL, OPT_SLICE_BLOCKS},
	{"block-ns", required_argument, NULL, OPT_BLOCK_NS},
	{"random", required_argument, NULL, OPT_RANDOM},
	{"random-seed", required_argument, NULL, OPT_RANDOM_SEED},
	{"counter", no_argument, NULL, OPT_COUNTER},
	{"pct", no_argument, NULL, OPT_PCT},
	{"seconds", required_argument, NULL, OPT_SECONDS},
	{"repeat", required_argument, NULL, OPT_REPEAT},
	{"output", required_argument, NULL, 'o'},
	{"verbose", no_argument, NULL, 'v'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int set_mode(struct cli *c, enum mode mode, const char *file)
{
	if (c->mode != MODE_RUN) {
		rw_err("--replay, --to-json and --from-json exclude each other");
		return -EINVAL;
	}
	c->mode = mode;
	c->file = file;
	return 0;
}

static int apply_option(struct cli *c, int opt, const char *arg)
{
	uint64_t v;

	switch (opt) {
	case OPT_JOB:
		return job_load_file(&c->job, arg);
	case OPT_KERNEL:
		c->kernel = arg;
		return job_set_kernel(&c->job, arg);
	case OPT_INITRAMFS:
		c->initramfs = arg;
		return job_set_initramfs(&c->job, arg);
	case OPT_ADD:
		return job_add_file(&c->job, arg);
	case OPT_MEM:
		if (parse_u64(arg, "--mem", 64, 3072, &v) < 0)
			return -EINVAL;
		c->job.run.mem_bytes = v << 20;
		return 0;
	case OPT_STEP_BUDGET:
		return parse_u64(arg, "--step-budget", 1, 1ull << 40, &c->job.run.step_budget);
	case OPT_STUCK_MS:
		return parse_u64(arg, "--stuck-ms", 10, 3600000, &c->job.run.stuck_ms);
	case OPT_WALL_MS:
		return parse_u64(arg, "--wall-ms", 10, 86400000, &c->job.wall_ms);
	case OPT_ARTIFACTS:
		c->artifact_dir = arg;
		return 0;
	case OPT_MAP_SIZE:
		if (parse_u64(arg, "--map-size", COVERAGE_MIN_SIZE, COVERAGE_MAX_SIZE, &v) < 0)
			return -EINVAL;
		if (v & (v - 1)) {
			rw_err("--map-size must be a power of two, not %llu",
			       (unsigned long long)v);
			return -EINVAL;
		}
		c->map_size = v;
		return 0;
	case OPT_REPLAY:
		return set_mode(c, MODE_REPLAY, arg);
	case OPT_TO_JSON:
		return set_mode(c, MODE_TO_JSON, arg);
	case OPT_FROM_JSON:
		return set_mode(c, MODE_FROM_JSON, arg);
	case 'o':
		c->output = arg;
		return 0;
	case OPT_TRACE:
		c->trace_path = arg;
		return 0;
	case OPT_SLICE_BLOCKS:
		return parse_u64(arg, "--slice-blocks", 0, 1u << 30, &c->job.slice_blocks);
	case OPT_BLOCK_NS:
		return parse_u64(arg, "--block-ns", 0, 1000, &c->job.block_ns);
	case OPT_RANDOM:
		c->mode = MODE_RANDOM;
		return parse_u64(arg, "--random", 1, 1ull << 40, &c->random_execs);
	case OPT_RANDOM_SEED:
		return parse_u64(arg, "--random-seed", 0, UINT64_MAX, &c->random_seed);
	case OPT_COUNTER:
		c->random_mode = INPUT_MODE_COUNTER;
		return 0;
	case OPT_PCT:
		c->random_mode = INPUT_MODE_PCT;
		return 0;
	case OPT_SECONDS:
		return parse_u64(arg, "--seconds", 1, 1u << 30, &c->random_seconds);
	case OPT_REPEAT:
		return parse_u64(arg, "--repeat", 1, 100000, &c->repeat);
	case 'v':
		c->job.run.verbose = true;
		return 0;
	default:
		return -EINVAL;
	}
}

/* Returns 0, 1 after --help, or -EINVAL. */
static int parse_cli(struct cli *c, int argc, char **argv)
{
	int opt;

	while ((opt = getopt_long(argc, argv, "+o:vh", long_options, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 1;
		}
		if (opt == '?' || apply_option(c, opt, optarg) < 0)
			return -EINVAL;
	}
	/* [INPUT] [-- CMD ARGS...]: getopt stops at the first non-option, or
	 * right after a "--" it consumed (then there is no INPUT) */
	bool after_dashes = optind > 1 && strcmp(argv[optind - 1], "--") == 0;

	if (!after_dashes && optind < argc && strcmp(argv[optind], "--") != 0)
		c->file = c->mode == MODE_RUN ? argv[optind++] : c->file;
	if (!after_dashes && optind < argc && strcmp(argv[optind], "--") == 0)
		optind++;
	else if (!after_dashes && optind < argc) {
		rw_err("unexpected argument '%s' (the command goes after --)", argv[optind]);
		return -EINVAL;
	}
	if (optind < argc && job_set_command(&c->job, argv + optind, (size_t)(argc - optind)) < 0)
		return -EINVAL;
	return 0;
}

/* Says on stderr when the bytes at path are not in the documented format (they are decoded). */
static void say_if_decoded(const char *path, const uint8_t *data, size_t len, const char *doing)
{
	struct exec_input input;
	char why[160];

	if (input_parse(data, len, &input, why, sizeof(why)) < 0)
		fprintf(stderr,
			"rewind-harness: %s is not in the documented input format (%s); %s\n", path,
			why, doing);
}

static int to_json(const char *path)
{
	struct exec_input input;
	uint8_t *data;
	size_t len;
	char *text;
	cJSON *json;

	if (file_read_all(path, &data, &len) < 0)
		return 2;
	say_if_decoded(path, data, len, "this is the input the harness makes of it");
	input_decode(data, len, &input);
	free(data);
	json = input_to_json(&input);
	text = cJSON_Print(json);
	cJSON_Delete(json);
	if (!text)
		return 2;
	printf("%s\n", text);
	free(text);
	return 0;
}

/* The input of a JSON input file, or of an artifact's "input". */
static int json_input(const char *path, struct exec_input *input)
{
	uint8_t *data;
	size_t len;
	char why[160];
	cJSON *root, *in;
	int rc;

	if (file_read_all(path, &data, &len) < 0)
		return -ENOENT;
	root = cJSON_ParseWithLength((const char *)data, len);
	free(data);
	if (!root) {
		rw_err("%s is not valid JSON", path);
		return -EINVAL;
	}
	in = cJSON_GetObjectItemCaseSensitive(root, "input");
	rc = input_from_json(cJSON_IsObject(in) ? in : root, input, why, sizeof(why));
	if (rc < 0)
		rw_err("%s: %s", path, why);
	cJSON_Delete(root);
	return rc;
}

static int from_json(const char *path, const char *out)
{
	struct exec_input input;
	uint8_t buf[INPUT_MAX_SIZE];
	struct file_part part = {buf, 0};

	if (!out) {
		rw_err("--from-json needs -o OUT, the binary input to write");
		return 2;
	}
	if (json_input(path, &input) < 0)
		return 2;
	part.len = input_encode(&input, buf);
	return file_write_atomic(out, &part, 1) < 0 ? 2 : 0;
}

static int open_harness(struct harness *h, struct cli *c, FILE *output)
{
	struct executor_config cfg = {.run = c->job.run,
				      .wall_ms = c->job.wall_ms,
				      .slice_blocks = c->job.slice_blocks,
				      .block_ns = c->job.block_ns,
				      .output = output};

	int rc;

	h->job = c->job;
	h->map_size = c->map_size;
	h->artifact_dir = c->artifact_dir;
	rc = executor_open(&h->ex, &cfg);
	return rc ? rc : reach_check(&h->ex);
}

/* One input, not under afl-fuzz: its output, its outcome, an artifact if it fails. */
static int run_once(struct harness *h, const char *path, const char *trace_path)
{
	static uint8_t map[COVERAGE_MAX_SIZE];
	struct harness_exec e;
	uint8_t *data;
	size_t len;
	int rc;

	if (file_read_all(path, &data, &len) < 0)
		return 2;
	h->map = map;
	say_if_decoded(path, data, len, "running it decoded");
	rc = harness_exec(h, data, len, &e);
	free(data);
	fflush(stdout);
	if (rc < 0)
		return 64;
	if (e.res.counter_missing) {
		rw_err("%s", COUNTER_MISSING);
		return 64;
	}
	if (e.cls == CLASS_REJECTED) {
		rw_err("%s is not a valid input: %s", path, e.why);
		return 2;
	}
	exec_result_print(&e.res);
	if (trace_path && trace_write(&h->ex.vm.trace, trace_path) < 0)
		return 64;
	return exec_class_is_failure(e.cls) ? 1 : 0;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * Random search, the baseline coverage guidance is measured against: fresh
 * inputs from the search's base distribution (schedule_random: PCT samples
 * with --pct, 1-4 random injections otherwise), no feedback. Prints the
 * executions to the first failure, or how many ran without one.
 */
static int random_search(struct cli *c)
{
	static struct harness h;
	static uint8_t map[COVERAGE_MAX_SIZE];
	struct schedule_mutator *m = afl_custom_init(NULL, (unsigned int)c->random_seed);
	struct timespec t0;
	uint64_t ran = 0;
	int rc = 1;

	if (!m || open_harness(&h, c, NULL) < 0) {
		executor_close(&h.ex);
		afl_custom_deinit(m);
		return 64;
	}
	h.map = map;
	h.quiet = true;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (ran < c->random_execs && rc == 1 &&
	       (!c->random_seconds || seconds_since(&t0) < (double)c->random_seconds)) {
		struct harness_exec e;
		uint8_t *out;
		size_t len = schedule_random(m, c->random_mode, &out);

		ran++;
		if (harness_exec(&h, out, len, &e) < 0) {
			rc = 64;
			break;
		}
		if (exec_class_is_failure(e.cls)) {
			printf("random: first failure (%s) after %llu executions, %.1f s\n",
			       exec_class_name(e.cls), (unsigned long long)ran, seconds_since(&t0));
			rc = 0;
		}
	}
	if (rc == 1)
		printf("random: no failure in %llu executions, %.1f s\n", (unsigned long long)ran,
		       seconds_since(&t0));
	executor_close(&h.ex);
	afl_custom_deinit(m);
	return rc;
}

static int fuzz_or_run(struct cli *c)
{
	static struct harness h;
	bool afl = forkserver_wanted();
	int rc;

	if (!afl && !c->file) {
		usage(stderr);
		return 2;
	}
	/* afl-fuzz reads the map; the guest's output would only slow it down */
	if (open_harness(&h, c, afl ? NULL : stdout) < 0) {
		executor_close(&h.ex);
		return 64;
	}
	rc = afl ? forkserver_serve(&h, c->file) : run_once(&h, c->file, c->trace_path);
	executor_close(&h.ex);
	return rc;
}

int main(int argc, char **argv)
{
	struct cli c = {.map_size = COVERAGE_DEFAULT_SIZE};
	struct replay_options ro;
	const char *env_dir = getenv("REWIND_ARTIFACTS");
	int rc;

	c.artifact_dir = env_dir && *env_dir ? env_dir : "rewind-crashes";
	if (job_init_defaults(&c.job) < 0)
		return 64;
	rc = parse_cli(&c, argc, argv);
	if (rc != 0) {
		job_free(&c.job);
		return rc > 0 ? 0 : 2;
	}
	switch (c.mode) {
	case MODE_REPLAY:
		ro = (struct replay_options){.job = &c.job,
					     .kernel = c.kernel,
					     .initramfs = c.initramfs,
					     .repeat = (unsigned int)c.repeat};
		rc = replay_file(c.file, &ro);
		break;
	case MODE_TO_JSON:
		rc = to_json(c.file);
		break;
	case MODE_FROM_JSON:
		rc = from_json(c.file, c.output);
		break;
	case MODE_RANDOM:
		rc = random_search(&c);
		break;
	case MODE_RUN:
	default:
		rc = fuzz_or_run(&c);
	}
	job_free(&c.job);
	return rc;
}

/* rewind-harness: the AFL++ target, one-shot runner, replayer and input converter. */
#include "harness/artifact.h"
#include "harness/coverage.h"
#include "harness/explain.h"
#include "harness/forkserver.h"
#include "harness/harness.h"
#include "harness/reach.h"
#include "harness/replay.h"
#include "mutators/schedule.h"
#include "vmm/counter.h"
#include "vmm/file.h"
#include "vmm/host_time.h"
#include "vmm/log.h"
#include "vmm/number.h"
#include "vmm/version.h"

#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

/*
 * rewind-harness's exit statuses (the usage's "Exit status"): a replay's,
 * which every mode shares. What "not ok" means depends on the mode: a run
 * failed, a replay differs, a random search found nothing.
 */
enum cli_status {
	STATUS_OK = REPLAY_SAME,
	STATUS_NOT_OK = REPLAY_DIFFERS,
	STATUS_BAD_FILE = REPLAY_BAD_FILE, /* unreadable, invalid or untrusted file; usage */
	STATUS_SETUP = REPLAY_SETUP,	   /* the job or the input's mode cannot be set up */
};

#define INPUT_FILE_MAX	(16u << 20) /* inputs and JSON files are a few KiB */
#define CLI_MAX_FILES	64
#define CLI_MAX_CHANGES (RUN_MAX_ADDS + 16)

enum mode {
	MODE_RUN,
	MODE_REPLAY,
	MODE_TO_JSON,
	MODE_FROM_JSON,
	MODE_RANDOM,
	MODE_EXPLAIN,
	MODE_BUNDLE
};

struct cli {
	enum mode mode;
	const char *file; /* the input, artifact or JSON file */
	const char *output;
	const char *trace_path; /* one-shot run: write the event trace here */
	/* one-shot run: write its schedule events here (--event-log), kept in event_log */
	const char *event_log_path;
	struct vm_event_log event_log;
	const char *artifact_dir;
	const char *progress_path; /* --progress FILE */
	size_t map_size;
	uint64_t random_execs, random_seed; /* --random: the baseline search */
	uint64_t random_seconds;	    /* --seconds: its time budget (0: none) */
	bool random_keep_going;		    /* --keep-going: on past failures, all N run */
	uint8_t random_mode;
	uint64_t repeat; /* --replay: run it this many times */
	bool trust;	 /* --trust: a replay may read the host paths an artifact names */
	bool json;	 /* --json: a one-shot run's outcome as JSON on stdout */
	bool version;	 /* --version */
	bool expect_fixed;
	struct harness_job job;
	/* the job options as given, in order: a replay applies them over an artifact's job */
	struct job_change changes[CLI_MAX_CHANGES];
	size_t change_count;
	const char *files[CLI_MAX_FILES]; /* arguments that are not options: INPUT, more replays */
	size_t file_count;
	char **command; /* after --, or NULL */
	size_t command_len;
};

static void usage(FILE *to)
{
	fprintf(to,
		"usage: afl-fuzz -i corpus/ledger -o OUT -- rewind-harness [OPTIONS] @@\n"
		"       rewind-harness [OPTIONS] INPUT       run one input, print output and "
		"outcome\n"
		"       rewind-harness --replay FILE... [--repeat N]  replay crash artifacts,\n"
		"                                            bundles or raw inputs (N times each)\n"
		"       rewind-harness --replay ARTIFACT [JOB OPTIONS] [--expect-fixed] [-- CMD]\n"
		"                                            replay it with the job changed (a "
		"fix)\n"
		"       rewind-harness --explain FILE [-o JSON]  why it fails: minimal schedule,\n"
		"                                            where it lands, window, racing pair\n"
		"       rewind-harness --bundle ARTIFACT -o DIR  a crash bundle that replays on\n"
		"                                            any machine (--replay DIR)\n"
		"       rewind-harness --to-json FILE        print an input (or an artifact's) as "
		"JSON\n"
		"       rewind-harness --from-json FILE -o OUT  write the input of a JSON input "
		"or\n"
		"                                            artifact as the binary afl-fuzz uses\n"
		"       rewind-harness --version             version, guest ABI, CPU model, "
		"kernel\n"
		"\n"
		"Runs a job in Rewind's deterministic guest, once per input; an input is a seed\n"
		"plus a schedule of injections (docs/input-format.md). Under afl-fuzz it is a\n"
		"forkserver target: the guest boots once, every execution restores the keyframe\n"
		"taken when the job was about to start. Coverage comes from the guest's event\n"
		"trace; every failure (non-zero exit, fatal signal, panic, deadlock, livelock,\n"
		"stuck) is reported as a crash and saved as a self-contained JSON artifact.\n"
		"\n"
		"Job (default: the bundled racy example %s; docs/harness.md):\n"
		"  --job FILE          a job file (JSON: kernel, initramfs, command, add, user,\n"
		"                      cwd, env, mem_mib, epoch_s, step_budget, stuck_ms,\n"
		"                      wall_ms, slice_blocks, block_ns, skip_status)\n"
		"  --kernel FILE       guest bzImage (default: build/guest/bzImage)\n"
		"  --initramfs FILE    base initramfs (default: build/guest/initramfs.cpio);\n"
		"                      --initrd FILE: the same (rewind run's older name)\n"
		"  --add HOST[:GUEST]  put a host file into the guest (default GUEST: /bin/NAME),\n"
		"                      or a directory and all in it (default GUEST: its own\n"
		"                      path); a dynamically linked program brings its loader\n"
		"                      and shared libraries\n"
		"  --user USER         run the job as USER (rewind, nobody, UID[:GID]; default\n"
		"                      root); the files it adds are its own\n"
		"  --cwd DIR           the job's working directory, made if missing (default /)\n"
		"  --env NAME=VALUE    set in the job's environment (repeatable)\n"
		"  --skip-status N     the job's exit code N means \"skipped\" (libuv 7,\n"
		"                      autotools 77): not a failure (default 0: none)\n"
		"  --mem SIZE          guest RAM: 128M, 1G, ... (K, M or G; a bare number is\n"
		"                      MiB; 64M..3G in whole MiB, default %lluM)\n"
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
		"  --progress FILE     rewrite FILE with the executions and failures so far,\n"
		"                      every 2 s at most (JSON; rewind explore's live view)\n"
		"  --trace FILE        (one input) write its event trace (RWTRACE1, vmm/trace.h)\n"
		"  --json              (one input) print the outcome as one JSON object on stdout\n"
		"                      (class, detail, status, exit_code or signal, steps,\n"
		"                      injections, trace); the guest's output goes to stderr\n"
		"  --event-log FILE    (one input, counter and pct modes) write every schedule\n"
		"                      event of the same run as JSON lines (index, tid, what,\n"
		"                      pc, addr, value before the access); at most 1M events\n"
		"  --random N          the baseline: run up to N random inputs of the format (no\n"
		"                      coverage feedback) until the first failure; print the "
		"count\n"
		"  --random-seed S     their seed (default 0); --counter: counter-mode inputs;\n"
		"                      --pct: PCT samples (pct mode); --seconds S: stop after S\n"
		"                      seconds; --keep-going: on past failures (all N run: a\n"
		"                      rate without afl-fuzz, bench/exec)\n"
		"  --map-size N        coverage map bytes, a power of two (default %u)\n"
		"  -v, --verbose       show the guest kernel's console, and where in the source\n"
		"                      each error comes from (REWIND_DEBUG=1: that alone)\n"
		"\n"
		"Replay and explain (an artifact is untrusted: the host paths it names are not\n"
		"read unless you say so; the kernel and initramfs are this checkout's):\n"
		"  --trust             read the kernel, initramfs and added files the artifact\n"
		"                      names (for an artifact you wrote yourself)\n"
		"  --expect-fixed      exit 0 only if the failure is gone (check a fix)\n"
		"  job options         --add, --kernel, --mem, -- CMD ... given with --replay\n"
		"                      change the artifact's job; the replay says what changed\n"
		"\n"
		"Inputs: any bytes are an input (what is not in the documented format is\n"
		"decoded field by field, docs/input-format.md); modes: steps for any static\n"
		"binary, pct (priority schedules) and counter for a test built with\n"
		"guest/rewind-cc or guest/rewind-c++ (docs/harness.md, \"Modes\").\n"
		"\n"
		"Exit status: one-shot run: 0 pass, 1 failure, 2 unreadable file; --replay: 0\n"
		"it reproduces (an artifact: the same run), 1 it does not or it differs (said\n"
		"on stderr; --expect-fixed: 0 the job passes, 1 it still fails); --explain: 0\n"
		"explained, 1 it does not fail; 2 unreadable or untrusted file; 64 setup failed\n"
		"(the guest cannot run the job's command, or the input's mode; a slow /dev/kvm:\n"
		"run through tests/box/run, or set REWIND_ALLOW_SLOW_KVM=1).\n",
		JOB_DEFAULT_COMMAND, JOB_DEFAULT_MEM >> 20, JOB_DEFAULT_STEP_BUDGET,
		JOB_DEFAULT_STUCK_MS, JOB_DEFAULT_WALL_MS, JOB_DEFAULT_SLICE_BLOCKS,
		JOB_DEFAULT_BLOCK_NS, COVERAGE_DEFAULT_SIZE);
}

enum {
	OPT_ARTIFACTS = 256,
	OPT_PROGRESS,
	OPT_MAP_SIZE,
	OPT_REPLAY,
	OPT_TO_JSON,
	OPT_FROM_JSON,
	OPT_TRACE,
	OPT_RANDOM,
	OPT_RANDOM_SEED,
	OPT_COUNTER,
	OPT_PCT,
	OPT_SECONDS,
	OPT_KEEP_GOING,
	OPT_REPEAT,
	OPT_TRUST,
	OPT_EXPECT_FIXED,
	OPT_EXPLAIN,
	OPT_BUNDLE,
	OPT_EVENT_LOG,
	OPT_JSON,
	OPT_VERSION,
	OPT_JOB_FIELD = 0x1000, /* + the index of a field in job_fields */
};

/* The options that are not job fields (those come from job_fields). */
static const struct option other_options[] = {
	{"artifacts", required_argument, NULL, OPT_ARTIFACTS},
	{"progress", required_argument, NULL, OPT_PROGRESS},
	{"map-size", required_argument, NULL, OPT_MAP_SIZE},
	{"replay", required_argument, NULL, OPT_REPLAY},
	{"to-json", required_argument, NULL, OPT_TO_JSON},
	{"from-json", required_argument, NULL, OPT_FROM_JSON},
	{"trace", required_argument, NULL, OPT_TRACE},
	{"event-log", required_argument, NULL, OPT_EVENT_LOG},
	{"random", required_argument, NULL, OPT_RANDOM},
	{"random-seed", required_argument, NULL, OPT_RANDOM_SEED},
	{"counter", no_argument, NULL, OPT_COUNTER},
	{"pct", no_argument, NULL, OPT_PCT},
	{"seconds", required_argument, NULL, OPT_SECONDS},
	{"keep-going", no_argument, NULL, OPT_KEEP_GOING},
	{"repeat", required_argument, NULL, OPT_REPEAT},
	{"trust", no_argument, NULL, OPT_TRUST},
	{"expect-fixed", no_argument, NULL, OPT_EXPECT_FIXED},
	{"explain", required_argument, NULL, OPT_EXPLAIN},
	{"bundle", required_argument, NULL, OPT_BUNDLE},
	{"json", no_argument, NULL, OPT_JSON},
	{"version", no_argument, NULL, OPT_VERSION},
	{"output", required_argument, NULL, 'o'},
	{"verbose", no_argument, NULL, 'v'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

#define MAX_OPTIONS 64

/* getopt's table: an option (and its alias) per job field with a flag, then the others. */
static void build_options(struct option *out)
{
	size_t n = 0;

	for (int i = 0; job_fields[i].key || job_fields[i].flag; i++) {
		const struct job_field *f = &job_fields[i];

		if (!f->flag)
			continue;
		out[n++] = (struct option){f->flag, required_argument, NULL, OPT_JOB_FIELD + i};
		if (f->alias)
			out[n++] = (struct option){f->alias, required_argument, NULL,
						   OPT_JOB_FIELD + i};
	}
	for (size_t i = 0; i < sizeof(other_options) / sizeof(other_options[0]); i++)
		out[n++] = other_options[i];
}

static int set_mode(struct cli *c, enum mode mode, const char *file)
{
	if (c->mode != MODE_RUN) {
		rw_err("--replay, --explain, --bundle, --to-json and --from-json exclude each "
		       "other");
		return -EINVAL;
	}
	c->mode = mode;
	c->file = file;
	return 0;
}

/* A job option: applied to the command line's job, and kept for a replay's. */
static int apply_job_option(struct cli *c, int opt, const char *arg)
{
	const char *name = job_fields[opt - OPT_JOB_FIELD].flag; /* --initrd: "initramfs" */

	if (c->change_count == CLI_MAX_CHANGES) {
		rw_err("more than %d job options", CLI_MAX_CHANGES);
		return -E2BIG;
	}
	c->changes[c->change_count++] = (struct job_change){name, arg};
	return job_apply_option(&c->job, name, arg);
}

static int apply_option(struct cli *c, int opt, const char *arg)
{
	uint64_t v;

	if (opt >= OPT_JOB_FIELD)
		return apply_job_option(c, opt, arg);
	switch (opt) {
	case OPT_ARTIFACTS:
		c->artifact_dir = arg;
		return 0;
	case OPT_PROGRESS:
		c->progress_path = arg;
		return 0;
	case OPT_MAP_SIZE:
		if (number_parse_u64(arg, "--map-size", COVERAGE_MIN_SIZE, COVERAGE_MAX_SIZE, &v) <
		    0)
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
	case OPT_EVENT_LOG:
		c->event_log_path = arg;
		return 0;
	case OPT_RANDOM:
		c->mode = MODE_RANDOM;
		return number_parse_u64(arg, "--random", 1, 1ull << 40, &c->random_execs);
	case OPT_RANDOM_SEED:
		return number_parse_u64(arg, "--random-seed", 0, UINT64_MAX, &c->random_seed);
	case OPT_COUNTER:
		c->random_mode = INPUT_MODE_COUNTER;
		return 0;
	case OPT_PCT:
		c->random_mode = INPUT_MODE_PCT;
		return 0;
	case OPT_SECONDS:
		return number_parse_u64(arg, "--seconds", 1, 1u << 30, &c->random_seconds);
	case OPT_KEEP_GOING:
		c->random_keep_going = true;
		return 0;
	case OPT_TRUST:
		c->trust = true;
		return 0;
	case OPT_EXPECT_FIXED:
		c->expect_fixed = true;
		return 0;
	case OPT_EXPLAIN:
		return set_mode(c, MODE_EXPLAIN, arg);
	case OPT_BUNDLE:
		return set_mode(c, MODE_BUNDLE, arg);
	case OPT_REPEAT:
		return number_parse_u64(arg, "--repeat", 1, 100000, &c->repeat);
	case OPT_JSON:
		c->json = true;
		return 0;
	case OPT_VERSION:
		c->version = true;
		return 0;
	case 'v':
		c->job.run.verbose = true;
		rw_log.where = true;
		return 0;
	default:
		return -EINVAL;
	}
}

/* The option that chose a mode, for messages. */
static const char *mode_option(enum mode m)
{
	static const char *const names[] = {
		[MODE_RUN] = "a run",	      [MODE_REPLAY] = "--replay",
		[MODE_TO_JSON] = "--to-json", [MODE_FROM_JSON] = "--from-json",
		[MODE_RANDOM] = "--random",   [MODE_EXPLAIN] = "--explain",
		[MODE_BUNDLE] = "--bundle",
	};

	return names[m];
}

/* getopt's '?' or ':' (opterr is 0: the messages are ours). */
static void say_bad_option(int opt, char **argv)
{
	const char *arg = argv[optind - 1];

	if (opt == ':')
		rw_err("%s needs a value (rewind-harness --help)", arg);
	else
		rw_err("unknown option '%s' (rewind-harness --help lists them; the guest's command "
		       "goes after --)",
		       arg);
}

/* A file argument the mode has no use for. */
static void say_extra_file(enum mode mode, const char *file)
{
	if (mode == MODE_RANDOM)
		rw_err("--random makes its own inputs and takes no file, not '%s': to run a "
		       "command "
		       "in the guest, put it after -- (rewind-harness --random N -- CMD [ARGS...])",
		       file);
	else
		rw_err("%s takes one file, and '%s' is one more: to run a command in the guest, "
		       "put "
		       "it after -- (rewind-harness [OPTIONS] INPUT -- CMD [ARGS...])",
		       mode_option(mode), file);
}

/* Returns 0, 1 after --help, or -EINVAL. */
static int parse_cli(struct cli *c, int argc, char **argv)
{
	struct option long_options[MAX_OPTIONS];

	build_options(long_options);
	/* options in any order: around an INPUT (more --replay files), up to "--",
	 * after which everything is the command */
	for (;;) {
		int opt;

		opterr = 0;
		while ((opt = getopt_long(argc, argv, "+:o:vh", long_options, NULL)) != -1) {
			if (opt == 'h') {
				usage(stdout);
				return 1;
			}
			if (opt == '?' || opt == ':') {
				say_bad_option(opt, argv);
				return -EINVAL;
			}
			if (apply_option(c, opt, optarg) < 0)
				return -EINVAL;
		}
		if (optind >= argc || (optind > 1 && strcmp(argv[optind - 1], "--") == 0))
			break;
		if (c->file_count == CLI_MAX_FILES) {
			rw_err("more than %d files", CLI_MAX_FILES);
			return -EINVAL;
		}
		c->files[c->file_count++] = argv[optind++];
	}
	if (c->mode == MODE_RUN && c->file_count > 1) {
		rw_err("one input at a time, not '%s' and '%s' (--replay takes several)",
		       c->files[0], c->files[1]);
		return -EINVAL;
	}
	if (c->mode == MODE_RUN && c->file_count)
		c->file = c->files[0];
	else if (c->mode != MODE_REPLAY && c->file_count) {
		say_extra_file(c->mode, c->files[0]);
		return -EINVAL;
	}
	if (optind < argc) {
		c->command = argv + optind;
		c->command_len = (size_t)(argc - optind);
		if (job_set_command(&c->job, c->command, c->command_len) < 0)
			return -EINVAL;
	}
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

/* The input of a JSON input file, or of an artifact's "input". */
static int json_input(const char *path, struct exec_input *input)
{
	uint8_t *data;
	size_t len;
	char why[160];
	cJSON *root, *in;
	int rc;

	if (file_read_max(path, INPUT_FILE_MAX, "JSON input", &data, &len) < 0)
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

/*
 * Whether the bytes are a JSON object (an input as JSON, or an artifact):
 * any other bytes, "0000" from afl-tmin included, are a binary input.
 */
static bool is_json_object(const uint8_t *data, size_t len)
{
	cJSON *root = cJSON_ParseWithLength((const char *)data, len);
	bool object = cJSON_IsObject(root);

	cJSON_Delete(root);
	return object;
}

/* --to-json FILE: a binary input (decoded as the harness would), a JSON input, or an artifact's. */
static int to_json(const char *path)
{
	struct exec_input input;
	uint8_t *data;
	size_t len;
	char *text;
	cJSON *json;

	if (file_read_max(path, INPUT_FILE_MAX, "input", &data, &len) < 0)
		return STATUS_BAD_FILE;
	if (is_json_object(data, len)) {
		free(data);
		if (json_input(path, &input) < 0)
			return STATUS_BAD_FILE;
	} else {
		say_if_decoded(path, data, len, "this is the input the harness makes of it");
		input_decode(data, len, &input);
		free(data);
	}
	json = input_to_json(&input);
	text = cJSON_Print(json);
	cJSON_Delete(json);
	if (!text)
		return STATUS_BAD_FILE;
	printf("%s\n", text);
	free(text);
	return STATUS_OK;
}

static int from_json(const char *path, const char *out)
{
	struct exec_input input;
	uint8_t buf[INPUT_MAX_SIZE];
	struct file_part part = {buf, 0};

	if (!out) {
		rw_err("--from-json needs -o OUT, the binary input to write");
		return STATUS_BAD_FILE;
	}
	if (json_input(path, &input) < 0)
		return STATUS_BAD_FILE;
	part.len = input_encode(&input, buf);
	return file_write_atomic(out, &part, 1) < 0 ? STATUS_BAD_FILE : STATUS_OK;
}

static int open_harness(struct harness *h, struct cli *c, FILE *output)
{
	struct executor_config cfg = {.run = c->job.run,
				      .wall_ms = c->job.wall_ms,
				      .slice_blocks = c->job.slice_blocks,
				      .block_ns = c->job.block_ns,
				      .skip_status = c->job.skip_status,
				      .output = output,
				      .event_log = c->event_log.at ? &c->event_log : NULL};

	int rc;

	h->job = c->job;
	h->map_size = c->map_size;
	h->artifact_dir = c->artifact_dir;
	h->progress_path = c->progress_path;
	rc = executor_open(&h->ex, &cfg);
	return rc ? rc : reach_check(&h->ex);
}

/* --json: the outcome as one JSON object on stdout. */
static int print_json_outcome(const struct exec_result *res)
{
	cJSON *o = exec_result_to_json(res);
	char *text = o ? cJSON_PrintUnformatted(o) : NULL;

	cJSON_Delete(o);
	if (!text) {
		rw_err("out of memory for the JSON outcome");
		return -ENOMEM;
	}
	printf("%s\n", text);
	free(text);
	return fflush(stdout) == 0 ? 0 : -EIO;
}

/* One input, not under afl-fuzz: its output, its outcome, an artifact if it fails. */
static int run_once(struct harness *h, const char *path, const char *trace_path, bool json)
{
	static uint8_t map[COVERAGE_MAX_SIZE];
	struct harness_exec e;
	uint8_t *data;
	size_t len;
	int rc;

	if (file_read_max(path, INPUT_FILE_MAX, "input", &data, &len) < 0)
		return STATUS_BAD_FILE;
	h->map = map;
	say_if_decoded(path, data, len, "running it decoded");
	rc = harness_exec(h, data, len, &e);
	free(data);
	fflush(stdout);
	if (rc < 0)
		return STATUS_SETUP;
	if (e.res.counter_missing) {
		rw_err("%s", COUNTER_MISSING);
		return STATUS_SETUP;
	}
	if (e.cls == CLASS_REJECTED) {
		rw_err("%s is not a valid input: %s", path, e.why);
		return STATUS_BAD_FILE;
	}
	if (!json)
		exec_result_print(&e.res);
	else if (print_json_outcome(&e.res) < 0)
		return STATUS_SETUP;
	if (trace_path && trace_write(&h->ex.vm.trace, trace_path) < 0)
		return STATUS_SETUP;
	return exec_class_is_failure(e.cls) ? STATUS_NOT_OK : STATUS_OK;
}

/* What the random search's executions came to: outcomes, and events a run. */
struct random_tally {
	uint64_t runs, by_class[CLASS_COUNT], events, events_max;
};

static void random_tally_add(struct random_tally *t, const struct harness_exec *e)
{
	t->runs++;
	if (e->cls < CLASS_COUNT)
		t->by_class[e->cls]++;
	if (e->cls != CLASS_REJECTED) {
		t->events += e->res.blocks;
		if (e->res.blocks > t->events_max)
			t->events_max = e->res.blocks;
	}
}

/* "random: outcomes pass 28, timeout 2; events a run: mean 1234, max 5678" */
static void random_tally_print(const struct random_tally *t)
{
	const char *sep = " ";

	if (!t->runs)
		return;
	printf("random: outcomes");
	for (int c = 0; c < CLASS_COUNT; c++)
		if (t->by_class[c]) {
			printf("%s%s %llu", sep, exec_class_name((enum exec_class)c),
			       (unsigned long long)t->by_class[c]);
			sep = ", ";
		}
	printf("; events a run: mean %llu, max %llu\n", (unsigned long long)(t->events / t->runs),
	       (unsigned long long)t->events_max);
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
	struct random_tally tally = {.runs = 0};
	uint64_t ran = 0, failed = 0;
	bool setup_failed = false;

	if (!m || open_harness(&h, c, NULL) < 0) {
		executor_close(&h.ex);
		afl_custom_deinit(m);
		return STATUS_SETUP;
	}
	h.map = map;
	h.quiet = true;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (ran < c->random_execs && (!failed || c->random_keep_going) &&
	       (!c->random_seconds || host_time_seconds_since(&t0) < (double)c->random_seconds)) {
		struct harness_exec e;
		uint8_t *out;
		size_t len = schedule_random(m, c->random_mode, &out);

		ran++;
		if (harness_exec(&h, out, len, &e) < 0) {
			setup_failed = true;
			break;
		}
		random_tally_add(&tally, &e);
		if (exec_class_is_failure(e.cls) && !failed++)
			printf("random: first failure (%s) after %llu executions, %.3f s\n",
			       exec_class_name(e.cls), (unsigned long long)ran,
			       host_time_seconds_since(&t0));
	}
	if (!setup_failed && !failed)
		printf("random: no failure in %llu executions, %.3f s\n", (unsigned long long)ran,
		       host_time_seconds_since(&t0));
	if (!setup_failed && c->random_keep_going) {
		double secs = host_time_seconds_since(&t0);

		printf("random: %llu executions in %.3f s (%.1f exec/s), %llu failures\n",
		       (unsigned long long)ran, secs, secs > 0 ? (double)ran / secs : 0.0,
		       (unsigned long long)failed);
	}
	random_tally_print(&tally);
	executor_close(&h.ex);
	afl_custom_deinit(m);
	return setup_failed ? STATUS_SETUP : failed ? STATUS_OK : STATUS_NOT_OK;
}

/* --event-log keeps this many events of the run; more are counted, not kept (48 MiB). */
#define EVENT_LOG_CAP (1u << 20)

static int event_log_alloc(struct vm_event_log *log)
{
	log->at = calloc(EVENT_LOG_CAP, sizeof(*log->at));
	if (!log->at) {
		rw_err("cannot allocate the event log (%u events)", EVENT_LOG_CAP);
		return -ENOMEM;
	}
	log->cap = EVENT_LOG_CAP;
	return 0;
}

/* What landed at an event, before its access (which came when its thread ran again). */
static const char *landed_name(uint32_t what)
{
	static const char *const names[] = {"", "preempt", "priority", "preempt+priority"};

	return names[(what & (VM_EVENT_LANDED_PREEMPT | VM_EVENT_LANDED_PRIORITY)) >> 16];
}

/*
 * The run's schedule events as JSON lines, one per event, in the order of
 * their schedule points ("landed": see VM_EVENT_LANDED_PREEMPT). 0 or -errno
 * (reported).
 */
static int event_log_write(const struct vm_event_log *log, const char *path)
{
	FILE *f = fopen(path, "w");
	char what[32];

	if (!f) {
		rw_err_errno(errno, "cannot write the event log %s", path);
		return -errno;
	}
	for (uint32_t i = 0; i < log->count; i++) {
		const struct vm_event *ev = &log->at[i];

		counter_event_name(ev->what, what, sizeof(what));
		fprintf(f,
			"{\"index\":%llu,\"tid\":%u,\"what\":\"%s\",\"landed\":\"%s\","
			"\"pc\":\"0x%llx\",\"addr\":\"0x%llx\",\"value\":\"0x%llx\"",
			(unsigned long long)ev->index, ev->tid, what, landed_name(ev->what),
			(unsigned long long)ev->pc, (unsigned long long)ev->addr,
			(unsigned long long)ev->value);
		if (ev->what & VM_EVENT_AFTER)
			fprintf(f, ",\"after\":\"0x%llx\"", (unsigned long long)ev->after);
		fputs("}\n", f);
	}
	if (log->dropped)
		rw_err("the event log keeps the first %u events; %llu more were not logged",
		       log->cap, (unsigned long long)log->dropped);
	if (fclose(f) != 0) {
		rw_err_errno(errno, "cannot write the event log %s", path);
		return -EIO;
	}
	return 0;
}

static int fuzz_or_run(struct cli *c)
{
	static struct harness h;
	bool afl = forkserver_wanted();
	int rc;

	if (!afl && !c->file) {
		usage(stderr);
		return STATUS_BAD_FILE;
	}
	if (!afl && c->event_log_path && event_log_alloc(&c->event_log) < 0)
		return STATUS_SETUP;
	/* afl-fuzz reads the map; the guest's output would only slow it down */
	if (open_harness(&h, c, afl ? NULL : c->json ? stderr : stdout) < 0) {
		executor_close(&h.ex);
		free(c->event_log.at);
		return STATUS_SETUP;
	}
	rc = afl ? forkserver_serve(&h, c->file) : run_once(&h, c->file, c->trace_path, c->json);
	if (c->event_log.at && (rc == STATUS_OK || rc == STATUS_NOT_OK) &&
	    event_log_write(&c->event_log, c->event_log_path) < 0)
		rc = STATUS_SETUP;
	executor_close(&h.ex);
	free(c->event_log.at);
	return rc;
}

/* How bad a replay's status is: a setup failure, then an unreadable file, then a difference. */
static int replay_severity(int rc)
{
	return rc == REPLAY_SETUP ? 3 : rc == REPLAY_BAD_FILE ? 2 : rc == REPLAY_DIFFERS ? 1 : 0;
}

/* --replay FILE [FILE...]: each in turn; the status is the worst. */
static int replay_files(const struct cli *c, const struct replay_options *ro)
{
	int worst = REPLAY_SAME;

	for (size_t i = 0; i <= c->file_count; i++) {
		const char *path = i ? c->files[i - 1] : c->file;
		int rc;

		if (c->file_count)
			fprintf(stderr, "rewind-harness: replaying %s (%zu of %zu)\n", path, i + 1,
				c->file_count + 1);
		rc = replay_file(path, ro);
		if (replay_severity(rc) > replay_severity(worst))
			worst = rc;
	}
	return worst;
}

static const struct replay_options *replay_options_of(struct cli *c, struct replay_options *ro)
{
	*ro = (struct replay_options){.job = &c->job,
				      .changes = c->changes,
				      .change_count = c->change_count,
				      .command = c->command,
				      .command_len = c->command_len,
				      .trust = c->trust,
				      .expect_fixed = c->expect_fixed,
				      .repeat = (unsigned int)c->repeat};
	return ro;
}

int main(int argc, char **argv)
{
	struct cli c = {.map_size = COVERAGE_DEFAULT_SIZE};
	struct replay_options ro;
	const char *env_dir = getenv("REWIND_ARTIFACTS");
	int rc;

	/* a file size limit: writes fail with "File too large" and are reported */
	signal(SIGXFSZ, SIG_IGN);
	rw_log_init("rewind-harness", false);
	c.artifact_dir = env_dir && *env_dir ? env_dir : "rewind-crashes";
	if (job_init_defaults(&c.job) < 0)
		return STATUS_SETUP;
	rc = parse_cli(&c, argc, argv);
	if (rc == 0 && c.json && c.mode != MODE_RUN) {
		rw_err("--json is for a run of one input, not %s", mode_option(c.mode));
		rc = -EINVAL;
	}
	if (rc != 0 || c.version) {
		if (c.version && rc == 0)
			version_print(stdout, "rewind-harness", c.job.run.kernel_path);
		job_free(&c.job);
		return rc < 0 ? STATUS_BAD_FILE : STATUS_OK;
	}
	switch (c.mode) {
	case MODE_REPLAY:
		rc = replay_files(&c, replay_options_of(&c, &ro));
		break;
	case MODE_BUNDLE:
		if (!c.output) {
			rw_err("--bundle needs -o DIR, the bundle directory to create");
			rc = STATUS_BAD_FILE;
			break;
		}
		rc = replay_bundle(c.file, replay_options_of(&c, &ro), c.output);
		break;
	case MODE_EXPLAIN:
		rc = explain_file(c.file, replay_options_of(&c, &ro), c.output);
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

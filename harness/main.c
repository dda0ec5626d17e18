/* SPDX-License-Identifier: MIT */
/* rewind-harness: the AFL++ target, one-shot runner, replayer and input converter. */
#include "harness/cli.h"
#include "harness/cmd_convert.h"
#include "harness/cmd_random.h"
#include "harness/cmd_replay.h"
#include "harness/cmd_run.h"
#include "harness/coverage.h"
#include "harness/usage.h"
#include "lib/log.h"
#include "lib/number.h"
#include "vmm/version.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
	OPT_WALK,
	OPT_MIX,
	OPT_SECONDS,
	OPT_KEEP_GOING,
	OPT_REPEAT,
	OPT_TRUST,
	OPT_EXPECT_FIXED,
	OPT_EXPLAIN,
	OPT_BUNDLE,
	OPT_EVENT_LOG,
	OPT_JSON,
	OPT_RAW,
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
	{"walk", no_argument, NULL, OPT_WALK},
	{"mix", no_argument, NULL, OPT_MIX},
	{"seconds", required_argument, NULL, OPT_SECONDS},
	{"keep-going", no_argument, NULL, OPT_KEEP_GOING},
	{"repeat", required_argument, NULL, OPT_REPEAT},
	{"trust", no_argument, NULL, OPT_TRUST},
	{"expect-fixed", no_argument, NULL, OPT_EXPECT_FIXED},
	{"explain", required_argument, NULL, OPT_EXPLAIN},
	{"bundle", required_argument, NULL, OPT_BUNDLE},
	{"json", no_argument, NULL, OPT_JSON},
	{"raw", no_argument, NULL, OPT_RAW},
	{"version", no_argument, NULL, OPT_VERSION},
	{"output", required_argument, NULL, 'o'},
	{"out", required_argument, NULL, 'o'}, /* rewind's word for where results go */
	{"verbose", no_argument, NULL, 'v'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

#define MAX_OPTIONS 64

/* getopt's table: an option (and its alias) per job field with a flag, then the others. */
static void build_options(struct option *out)
{
	size_t n = job_getopt_options(out, OPT_JOB_FIELD);

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
	case OPT_WALK:
		c->random_mode = INPUT_MODE_PCT;
		c->random_walk = true;
		return 0;
	case OPT_MIX:
		c->random_mode = INPUT_MODE_PCT;
		c->random_mix = true;
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
	case OPT_RAW:
		c->raw = true;
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

/*
 * getopt's '?' or ':' (opterr is 0: the messages are ours). The option is
 * the word as typed, up to an '=' (--map-size=x names --map-size).
 */
static void say_bad_option(int opt, char **argv)
{
	const char *arg = argv[optind - 1];
	int len = (int)strcspn(arg, "=");

	if (opt == ':')
		rw_err("%.*s needs a value; %s --help lists the options", len, arg, rw_log.program);
	else
		rw_err("unknown option '%.*s'; %s --help lists the options", len, arg,
		       rw_log.program);
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

/*
 * `rewind replay|explain|bundle ...` runs `rewind-harness WORD ...`: the
 * word picks the mode, and the files are the words that are no options.
 */
static bool take_command_word(struct cli *c, int argc, char **argv)
{
	static const struct {
		const char *word;
		enum mode mode;
	} words[] = {{"replay", MODE_REPLAY}, {"explain", MODE_EXPLAIN}, {"bundle", MODE_BUNDLE}};

	for (size_t i = 0; argc >= 2 && i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(argv[1], words[i].word)) {
			c->mode = words[i].mode;
			c->word = words[i].word;
			return true;
		}
	return false;
}

/* A command word's files: the first is the one --replay FILE would name. */
static int word_files(struct cli *c)
{
	if (c->file) { /* --replay FILE after the word: the same thing twice */
		rw_err("rewind %s takes its file as an argument, not as --%s FILE", c->word,
		       c->word);
		return -EINVAL;
	}
	if (!c->file_count) {
		rw_err("rewind %s needs an artifact file; rewind %s --help lists the options",
		       c->word, c->word);
		return -EINVAL;
	}
	c->file = c->files[0];
	memmove(c->files, c->files + 1, (c->file_count - 1) * sizeof(c->files[0]));
	c->file_count--;
	return 0;
}

/* Returns 0, 1 after --help, or -EINVAL. */
static int parse_cli(struct cli *c, int argc, char **argv)
{
	struct option long_options[MAX_OPTIONS];

	build_options(long_options);
	if (take_command_word(c, argc, argv))
		optind = 2;
	/* options in any order: around an INPUT (more --replay files), up to "--",
	 * after which everything is the command */
	for (;;) {
		int opt;

		opterr = 0;
		while ((opt = getopt_long(argc, argv, "+:o:vh", long_options, NULL)) != -1) {
			if (opt == 'h') {
				c->word ? cli_word_usage(c->word, stdout) : cli_usage(stdout);
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
	if (c->word && word_files(c) < 0)
		return -EINVAL;
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

/* Is the file at path of the kind wanted (a folder, or any other: a file)? Says why not. */
static int check_host_path(const char *option, const char *path, bool folder_too)
{
	struct stat st;

	if (stat(path, &st) < 0 && errno == ENOENT && !strcmp(option, "kernel")) {
		/* the words of the boot's own check (vmm/run_inputs.c), as rewind run says it */
		rw_err("no guest kernel at %s (build it with `make`, or pass --kernel)", path);
		return -EINVAL;
	}
	if (stat(path, &st) < 0 && errno == ENOENT && !strcmp(option, "initramfs")) {
		rw_err("no initramfs at %s (build it with `make`, or pass --initramfs)", path);
		return -EINVAL;
	}
	if (stat(path, &st) < 0) {
		rw_err("--%s %s: %s; give the path of an existing %s", option, path,
		       strerror(errno), folder_too ? "file or folder" : "file");
		return -EINVAL;
	}
	if (S_ISREG(st.st_mode) || (folder_too && S_ISDIR(st.st_mode)))
		return 0;
	if (folder_too)
		rw_err("--%s %s is neither a file nor a folder; give the path of one", option,
		       path);
	else
		rw_err("--%s %s is %s, not a file; give the path of a file", option, path,
		       S_ISDIR(st.st_mode) ? "a folder" : "something else");
	return -EINVAL;
}

/*
 * The host files the job options name exist and are of the right kind,
 * before any folder is made or /dev/kvm opened: --kernel and --initramfs a
 * file, --add HOST a file or a folder (--job is read as it is parsed).
 */
static int check_option_files(const struct cli *c)
{
	char host[4096];

	for (size_t i = 0; i < c->change_count; i++) {
		const struct job_change *ch = &c->changes[i];

		if (!strcmp(ch->option, "kernel") || !strcmp(ch->option, "initramfs")) {
			if (check_host_path(ch->option, ch->arg, false) < 0)
				return -EINVAL;
		} else if (!strcmp(ch->option, "add")) {
			snprintf(host, sizeof(host), "%.*s", (int)strcspn(ch->arg, ":"), ch->arg);
			if (check_host_path("add", host, true) < 0)
				return -EINVAL;
		}
	}
	return 0;
}

/* What the modes accept of each other's options: --json, --raw. Says why not. */
static int check_mode_options(const struct cli *c)
{
	char mode[32];

	snprintf(mode, sizeof(mode), "%s%s", c->word ? "rewind " : "",
		 c->word ? c->word : mode_option(c->mode));

	if (c->json && c->mode != MODE_RUN && c->mode != MODE_REPLAY && c->mode != MODE_EXPLAIN) {
		rw_err("--json is for a run of one input, a replay or an explanation, not %s",
		       mode);
		return -EINVAL;
	}
	if (c->raw && c->mode != MODE_REPLAY && c->mode != MODE_EXPLAIN) {
		rw_err("--raw is for a replay or an explanation of afl-fuzz's raw input, not %s",
		       mode);
		return -EINVAL;
	}
	return check_option_files(c);
}

int main(int argc, char **argv)
{
	struct cli c = {.map_size = COVERAGE_DEFAULT_SIZE};
	const char *env_dir = getenv("REWIND_ARTIFACTS");
	int rc;

	/* a file size limit: writes fail with "File too large" and are reported */
	signal(SIGXFSZ, SIG_IGN);
	/* `rewind replay` runs this program as "rewind replay": it speaks as those words */
	rw_log_init(rw_log_name(argv[0], "rewind-harness"), false);
	c.artifact_dir = env_dir && *env_dir ? env_dir : "rewind-crashes";
	if (job_init_defaults(&c.job) < 0)
		return STATUS_SETUP;
	rc = parse_cli(&c, argc, argv);
	if (rc == 0 && !c.version)
		rc = check_mode_options(&c);
	if (rc != 0 || c.version) {
		if (c.version && rc == 0)
			version_print(stdout, "rewind-harness", c.job.run.kernel_path);
		job_free(&c.job);
		return rc < 0 ? STATUS_BAD_FILE : STATUS_OK;
	}
	switch (c.mode) {
	case MODE_REPLAY:
		rc = cmd_replay(&c);
		break;
	case MODE_BUNDLE:
		rc = cmd_bundle(&c);
		break;
	case MODE_EXPLAIN:
		rc = cmd_explain(&c);
		break;
	case MODE_TO_JSON:
		rc = cmd_to_json(c.file);
		break;
	case MODE_FROM_JSON:
		rc = cmd_from_json(c.file, c.output);
		break;
	case MODE_RANDOM:
		rc = cmd_random(&c);
		break;
	case MODE_RUN:
	default:
		rc = cmd_run(&c);
	}
	job_free(&c.job);
	return rc;
}

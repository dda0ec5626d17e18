/* SPDX-License-Identifier: MIT */
/*
 * `rewind fuzz`'s command line: its own options, the job's (harness/job.c's
 * job_fields, as rewind-harness takes them) and --map-size, before the
 * command; every value and every file they name checked here, before the
 * output folder is made or anything started.
 */
#include "harness/fuzz/fuzz.h"

#include "harness/coverage.h"
#include "lib/number.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SECONDS (30u * 24 * 3600)
#define MAX_OPTIONS 64
/* a word for each option and one for its value */
#define MAX_HARNESS_WORDS (2 * (RUN_MAX_ADDS + RUN_MAX_ENVS + 64))

enum {
	OPT_SECONDS = 256,
	OPT_OUT,
	OPT_CORPUS,
	OPT_ALL,
	OPT_NO_MUTATOR,
	OPT_AFL_OPT,
	OPT_MAP_SIZE,
	OPT_SAMPLER,
	OPT_HELP,
	OPT_JOB_FIELD = 0x1000, /* + the index of a field in job_fields */
};

/* rewind fuzz's own options, and the one harness option that is no job field. */
static const struct option own_options[] = {
	{"seconds", required_argument, NULL, OPT_SECONDS},
	{"out", required_argument, NULL, OPT_OUT},
	{"corpus", required_argument, NULL, OPT_CORPUS},
	{"all", no_argument, NULL, OPT_ALL},
	{"no-mutator", no_argument, NULL, OPT_NO_MUTATOR},
	{"afl-opt", required_argument, NULL, OPT_AFL_OPT},
	{"map-size", required_argument, NULL, OPT_MAP_SIZE},
	{"sampler", required_argument, NULL, OPT_SAMPLER},
	{"help", no_argument, NULL, OPT_HELP},
	{NULL, 0, NULL, 0},
};

/* What the options gave rewind-harness: "--FLAG", VALUE pairs, in order. */
static char *harness_words[MAX_HARNESS_WORDS];
/* "--FLAG" of each job field, the word rewind-harness gets (--initrd: --initramfs) */
static char dashed_flags[MAX_OPTIONS][48];

/* getopt's table: an option (and its alias) per job field with a flag, then ours. */
static void build_options(struct option *out)
{
	size_t n = job_getopt_options(out, OPT_JOB_FIELD);

	for (int i = 0; job_fields[i].key || job_fields[i].flag; i++)
		if (job_fields[i].flag)
			snprintf(dashed_flags[i], sizeof(dashed_flags[i]), "--%s",
				 job_fields[i].flag);
	for (size_t i = 0; i < sizeof(own_options) / sizeof(own_options[0]); i++)
		out[n++] = own_options[i];
}

static int pass_to_harness(struct fuzz_options *o, char *option, const char *value)
{
	if (o->harness_opt_count + 2 > MAX_HARNESS_WORDS)
		return fuzz_die("more than %d job options", MAX_HARNESS_WORDS / 2);
	o->harness_opts[o->harness_opt_count++] = option;
	o->harness_opts[o->harness_opt_count++] = (char *)value;
	return 0;
}

/* A job option: applied to o->job (its value and its file checked), and passed on. */
static int take_job_option(struct fuzz_options *o, int field, const char *arg)
{
	const struct job_field *f = &job_fields[field];

	if (job_apply_option(&o->job, f->flag, arg) < 0)
		return FUZZ_SETUP;
	o->job_files_named |= f->kind == JOB_FIELD_FILE || f->kind == JOB_FIELD_PATH;
	return pass_to_harness(o, dashed_flags[field], arg);
}

/* --map-size: a power of two that afl-fuzz's forkserver can announce. */
static int take_map_size(struct fuzz_options *o, const char *arg)
{
	uint64_t v;

	if (number_parse_u64(arg, "--map-size", COVERAGE_MIN_SIZE, COVERAGE_MAX_SIZE, &v) < 0)
		return FUZZ_SETUP;
	if (v & (v - 1))
		return fuzz_die("--map-size must be a power of two, not %s", arg);
	return pass_to_harness(o, "--map-size", arg);
}

static int take_option(struct fuzz_options *o, int opt, const char *arg)
{
	uint64_t v;

	if (opt >= OPT_JOB_FIELD)
		return take_job_option(o, opt - OPT_JOB_FIELD, arg);
	switch (opt) {
	case OPT_SECONDS:
		if (number_parse_u64(arg, "--seconds", 1, MAX_SECONDS, &v) < 0)
			return FUZZ_SETUP;
		o->seconds = (unsigned int)v;
		return 0;
	case OPT_OUT:
		o->out = arg;
		return 0;
	case OPT_CORPUS:
		o->corpus = arg;
		return 0;
	case OPT_ALL:
		o->until_crash = false;
		return 0;
	case OPT_NO_MUTATOR:
		o->mutator = false;
		return 0;
	case OPT_AFL_OPT:
		if (o->afl_opt_count == FUZZ_MAX_AFL_OPTS)
			return fuzz_die("more than %d --afl-opt", FUZZ_MAX_AFL_OPTS);
		o->afl_opts[o->afl_opt_count++] = arg;
		return 0;
	case OPT_SAMPLER:
		if (strcmp(arg, "pct") && strcmp(arg, "stall") && strcmp(arg, "walk") &&
		    strcmp(arg, "mix") && strcmp(arg, "auto"))
			return fuzz_die("--sampler must be pct, stall, walk, mix or auto, not '%s'",
					arg);
		o->sampler = strcmp(arg, "auto") ? arg : NULL;
		return 0;
	case OPT_MAP_SIZE:
	default:
		return take_map_size(o, arg);
	}
}

/* getopt's '?' or ':' (opterr is 0: the messages are ours). */
static int bad_option(int opt, char **argv)
{
	const char *word = argv[optind - 1];

	if (opt == ':')
		return fuzz_die("%s needs a value; %s --help lists the options", word,
				rw_log.program);
	if (optopt >= OPT_SECONDS) /* --all=x */
		return fuzz_die("%.*s takes no value; %s --help lists the options",
				(int)strcspn(word, "="), word, rw_log.program);
	if (optopt)
		return fuzz_die("unknown option '-%c'; %s --help lists the options", optopt,
				rw_log.program);
	return fuzz_die("unknown option '%s'; %s --help lists the options", word, rw_log.program);
}

/*
 * The options among argv[1..argc-1], up to a word that is none (optind: it,
 * or the word after a --). 0, FUZZ_SETUP (said), or -1 after --help.
 */
static int parse_words(int argc, char **argv, struct fuzz_options *o)
{
	struct option options[MAX_OPTIONS];
	int opt;

	build_options(options);
	opterr = 0;
	optind = 0; /* GNU getopt: start afresh (the older form's words are a second pass) */
	/* "+": stop at the first word that is no option, and at -- */
	while ((opt = getopt_long(argc, argv, "+:h", options, NULL)) != -1) {
		int rc;

		if (opt == 'h' || opt == OPT_HELP)
			return -1;
		if (opt == '?' || opt == ':')
			return bad_option(opt, argv);
		rc = take_option(o, opt, optarg);
		if (rc)
			return rc;
	}
	return 0;
}

static int take_command(struct fuzz_options *o, char **words, int count)
{
	if (count <= 0)
		return 0; /* a -- and nothing after it: the default job */
	o->command = words;
	o->command_len = (size_t)count;
	return job_set_command(&o->job, words, (size_t)count) < 0 ? FUZZ_SETUP : 0;
}

/*
 * After the options and a --: the command, or (the older form, when the
 * word after the -- is an option or another --) the job's options up to a
 * second --, then the command.
 */
static int parse_rest(int argc, char **argv, struct fuzz_options *o)
{
	int start = optind, end = optind, rc;

	if (start >= argc)
		return 0;
	if (strcmp(argv[start - 1], "--"))
		return fuzz_die("unexpected '%s': the command comes after -- (%s --help)",
				argv[start], rw_log.program);
	if (argv[start][0] != '-')
		return take_command(o, argv + start, argc - start);
	while (end < argc && strcmp(argv[end], "--"))
		end++;
	/* argv[start - 1], the first --, stands where a program's name would */
	rc = parse_words(end - start + 1, argv + start - 1, o);
	if (rc)
		return rc;
	if (start - 1 + optind < end)
		return fuzz_die("unexpected '%s' among the job's options: the command comes after "
				"a second -- (%s --help)",
				argv[start - 1 + optind], rw_log.program);
	return take_command(o, argv + end + 1, argc - end - 1);
}

/* A file the job is made from (what: "guest kernel", "initramfs"): there, and a file. */
static int check_file(const char *what, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0 && errno == ENOENT)
		return fuzz_die("no %s at %s", what, path);
	if (access(path, R_OK) < 0 || stat(path, &st) < 0) {
		rw_err_errno(errno, "cannot read the %s %s", what, path);
		return FUZZ_SETUP;
	}
	if (!S_ISREG(st.st_mode))
		return fuzz_die("the %s %s is not a file", what, path);
	return 0;
}

/* A file or folder to add (HOST[:GUEST[:MODE]]): its host path is there. */
static int check_add(const char *add)
{
	char host[PATH_MAX];
	size_t len = strcspn(add, ":");
	struct stat st;

	if (len == 0 || len >= sizeof(host))
		return fuzz_die("--add %s: expected HOST[:GUEST[:MODE]]", add);
	memcpy(host, add, len);
	host[len] = 0;
	if (stat(host, &st) < 0) {
		rw_err_errno(errno, "--add %s: cannot add %s", add, host);
		return FUZZ_SETUP;
	}
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return fuzz_die("--add %s: %s is neither a file nor a folder", add, host);
	return 0;
}

/*
 * The files the job is made from, as the options (and a job file) left
 * them; the default kernel and image are the harness's to find.
 */
static int check_job_files(const struct fuzz_options *o)
{
	const struct harness_job *job = &o->job;
	int rc = 0;

	if (o->job_files_named) {
		rc = check_file("guest kernel", job->run.kernel_path);
		if (!rc)
			rc = check_file("initramfs", job->run.initrd_path);
	}
	for (size_t i = 0; !rc && i < job->run.add_count; i++)
		rc = check_add(job->run.adds[i]);
	return rc;
}

int fuzz_parse_options(int argc, char **argv, struct fuzz_options *o)
{
	int rc;

	*o = (struct fuzz_options){.seconds = 300, .until_crash = true, .mutator = true};
	o->harness_opts = harness_words;
	if (job_init_defaults(&o->job) < 0)
		return FUZZ_SETUP;
	rc = parse_words(argc, argv, o);
	if (!rc)
		rc = parse_rest(argc, argv, o);
	return rc ? rc : check_job_files(o);
}

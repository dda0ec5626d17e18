/* SPDX-License-Identifier: MIT */
/* rewind: the deterministic VMM's command line. */
#include "cli/run.h"
#include "cli/trace_dump.h"
#include "lib/install_paths.h"
#include "lib/log.h"
#include "lib/number.h"
#include "lib/size.h"
#include "vmm/keyframe_file.h"
#include "vmm/version.h"

#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * `rewind run`'s defaults are larger than rewind-harness's (128M, 100,000
 * steps, 2,000 ms: harness/job.h): a run is a whole program, a real
 * suite's test among them, run once, where the harness runs one short
 * execution of thousands and wants a hang caught early.
 */
#define DEFAULT_EPOCH_S	    1767225600ull /* 2026-01-01T00:00:00Z */
#define DEFAULT_MEM	    (256ull << 20)
#define MIN_MEM		    (64ull << 20)
#define MAX_MEM		    (3ull << 30) /* below the local APIC and the TSS pages */
#define DEFAULT_STEP_BUDGET 1000000ull
#define DEFAULT_STUCK_MS    10000ull

static void usage(FILE *to)
{
	fprintf(to,
		"usage: rewind run [OPTIONS] -- CMD [ARGS...]\n"
		"\n"
		"Runs CMD inside the deterministic Linux guest: the same inputs give the same "
		"run,\n"
		"step for step. Prints CMD's output as it happens, then one summary line on "
		"stderr:\n"
		"  rewind: run ID OUTCOME [status N | signal NAME | (DETAIL)] steps N virtual Ss\n"
		"  wall Ss trace HASH\n"
		"(status N: the job's own exit status; OUTCOME exited, panic, deadlock, stuck,\n"
		"step-budget, guest-fault, power-off, trace-budget, host-error).\n"
		"\n"
		"Options:\n"
		"  --seed N            guest randomness (kernel RNG, ASLR) (default 0)\n"
		"  --epoch T           guest wall clock at power-on, UNIX seconds (default %llu)\n"
		"  --mem SIZE          guest RAM: 256M, 1G, ... (K, M or G; a bare number is\n"
		"                      MiB; 64M..3G, default 256M)\n"
		"  --kernel FILE       guest bzImage (default: build/guest/bzImage)\n"
		"  --initramfs FILE    base initramfs, newc cpio (default:\n"
		"                      build/guest/initramfs.cpio); --initrd FILE: the same\n"
		"  --add HOST[:GUEST]  put a host file into the guest (default GUEST: /bin/NAME),\n"
		"                      or a directory and all in it (default GUEST: its own\n"
		"                      path); a dynamically linked program brings its loader\n"
		"                      and shared libraries\n"
		"  --user USER         run the job as USER: a name of the guest's /etc/passwd\n"
		"                      (rewind, nobody) or UID[:GID] (default root); the files\n"
		"                      it adds are its own\n"
		"  --cwd DIR           the job's working directory, made if missing (default /)\n"
		"  --env NAME=VALUE    set in the job's environment (repeatable; the default\n"
		"                      is PATH=/bin:/usr/bin HOME=/ TERM=dumb)\n"
		"  --out DIR           run directory, made if missing (default:\n"
		"                      rewind-runs/RUN_ID)\n"
		"  --step-budget N     end the run after N steps (default %llu, 0 = none)\n"
		"  --stuck-ms MS       end the run as stuck when the guest makes no exit for MS\n"
		"                      ms of its vCPU thread's CPU time (or ten times that of\n"
		"                      wall time) (default %llu)\n"
		"  --slice-blocks N    a job built with guest/rewind-cc is preempted every N of\n"
		"                      its schedule events on average (each slice N/2 to 3N/2,\n"
		"                      drawn from the seed), as a scheduler's time slice\n"
		"                      (default %llu, 0 = never)\n"
		"  --block-ns NS       the virtual time one of its events costs (default %llu)\n"
		"  --keyframe FILE     restore the booted guest from FILE; if FILE does not "
		"exist,\n"
		"                      boot, write the keyframe there at READY, then go on\n"
		"  --repeat N          after the run, run N more times from the keyframe in this\n"
		"                      process (without --keyframe: the booted guest's, kept\n"
		"                      in memory) and check every trace is identical\n"
		"  --json              at the end, the result as one JSON object on stdout\n"
		"                      (\"format\": \"rewind-run\": outcome, job_status, signal,\n"
		"                      steps, trace, run_dir, the settings used); CMD's output\n"
		"                      goes to stderr then\n"
		"  -v, --verbose       also print the settings used and the guest kernel's\n"
		"                      console on stderr, and where in the source each error\n"
		"                      comes from\n"
		"\n"
		"The defaults are larger than rewind-harness's (128M, 100000 steps, 2000 ms):\n"
		"a run is a whole program run once (a real suite's test), not one short\n"
		"execution of thousands.\n"
		"\n"
		"Exit status (docs/exit-status.md): 0 the job exited 0; 1 the job failed (a\n"
		"non-zero exit, a signal, a kernel panic, a deadlock, stuck, the step budget, a\n"
		"guest fault, powered off without a job status, a flood of output: 64 MiB of\n"
		"trace); 2 nothing ran: a bad option or file, no /dev/kvm, or one that emulates\n"
		"the guest (run through the KVM box, tests/box/run; REWIND_ALLOW_SLOW_KVM=1 runs\n"
		"anyway); 3 a --repeat trace differs; 4 a host error, or the run directory\n"
		"could not be written (nothing half-written is left). The job's own status is\n"
		"in the summary line and in --json, never the exit status.\n"
		"The run directory holds manifest.json (\"format\": \"rewind-manifest\":\n"
		"inputs, run id, outcome, trace hash) and trace.bin (every event with its\n"
		"step).\n",
		DEFAULT_EPOCH_S, DEFAULT_STEP_BUDGET, DEFAULT_STUCK_MS, RUN_DEFAULT_SLICE_BLOCKS,
		RUN_DEFAULT_BLOCK_NS);
}

/*
 * --mem: a size from 64M to 3G, page-aligned; a bare number is MiB, as in
 * rewind-harness (one past 3072 is taken as bytes, as older scripts wrote it).
 */
static int parse_mem(const char *text, uint64_t *out)
{
	bool bare;
	int rc = size_parse(text, 1ull << 20, out, &bare);

	if (rc == 0 && bare && *out > MAX_MEM)
		rc = size_parse(text, 1, out, NULL);
	if (rc < 0 || *out < MIN_MEM || *out > MAX_MEM || *out % 4096) {
		rw_err("--mem must be a page-aligned size from 64M to 3G (e.g. 256M, 1G; a bare "
		       "number is MiB), not '%s'",
		       text);
		return -EINVAL;
	}
	return 0;
}

/* Default guest images: BUILD/bin/../guest/NAME, or PREFIX/lib/rewind/guest/NAME. */
static const char *default_image(const char *name)
{
	static char paths[2][PATH_MAX + 64];
	static unsigned int next;
	struct install_paths where;
	char *path = paths[next++ % 2];

	if (install_paths_get(&where) < 0)
		return name;
	snprintf(path, sizeof(paths[0]), "%s/%s", where.guest, name);
	return path;
}

static int parse_option(struct run_options *opt, int c, const char *arg)
{
	switch (c) {
	case 's':
		return number_parse_u64(arg, "--seed", 0, UINT64_MAX, &opt->seed);
	case 'e':
		return number_parse_u64(arg, "--epoch", 0, UINT64_MAX, &opt->epoch_s);
	case 'm':
		return parse_mem(arg, &opt->mem_bytes);
	case 'k':
		opt->kernel_path = arg;
		return 0;
	case 'i':
		opt->initrd_path = arg;
		return 0;
	case 'o':
		opt->out_dir = arg;
		return 0;
	case 'b':
		return number_parse_u64(arg, "--step-budget", 0, UINT64_MAX, &opt->step_budget);
	case 't':
		return number_parse_u64(arg, "--stuck-ms", 0, UINT64_MAX, &opt->stuck_ms);
	case 'S':
		return number_parse_u64(arg, "--slice-blocks", 0, 1u << 30, &opt->slice_blocks);
	case 'N':
		return number_parse_u64(arg, "--block-ns", 0, 1000, &opt->block_ns);
	case 'v':
		opt->verbose = true;
		rw_log.where = true;
		return 0;
	case 'K':
		opt->keyframe_path = arg;
		return 0;
	case 'r':
		return number_parse_u64(arg, "--repeat", 0, UINT64_MAX, &opt->repeat);
	case 'j':
		opt->json = true;
		return 0;
	case 'a':
		if (opt->add_count == RUN_MAX_ADDS) {
			rw_err("at most %d --add options", RUN_MAX_ADDS);
			return -EINVAL;
		}
		opt->adds[opt->add_count++] = arg;
		return 0;
	case 'u':
		opt->user = arg;
		return 0;
	case 'c':
		opt->cwd = arg;
		return 0;
	case 'E':
		if (opt->env_count == RUN_MAX_ENVS) {
			rw_err("at most %d --env options", RUN_MAX_ENVS);
			return -EINVAL;
		}
		opt->envs[opt->env_count++] = arg;
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * getopt's '?' or ':' (opterr is 0: the messages are ours, in every
 * subcommand's words): the option, and where the right ones are listed.
 */
static void say_bad_option(int c, char **argv, const char *command)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		rw_err("%s needs a value; rewind %s --help lists the options", arg, command);
	else
		rw_err("unknown option '%s'; rewind %s --help lists the options", arg, command);
}

/* Whether the folder path would be made in (or a file written in) is there. */
static bool parent_is_folder(const char *path, char *parent, size_t len)
{
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (!slash)
		snprintf(parent, len, ".");
	else if (slash == path)
		snprintf(parent, len, "/");
	else
		snprintf(parent, len, "%.*s", (int)(slash - path), path);
	return stat(parent, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * The kernel and the initramfs are there (run_inputs_prepare reads and
 * checks them, and the --add files, before /dev/kvm is opened); --keyframe
 * (read if it is there, else written) and --out, which only the end of a
 * run would find wrong, can be used.
 */
static int check_run_paths(const struct run_options *opt)
{
	char parent[PATH_MAX];
	struct stat st;

	if (stat(opt->kernel_path, &st) < 0) {
		rw_err("no guest kernel at %s (build it with `make`, or pass --kernel)",
		       opt->kernel_path);
		return -EINVAL;
	}
	if (stat(opt->initrd_path, &st) < 0) {
		rw_err("no initramfs at %s (build it with `make`, or pass --initramfs)",
		       opt->initrd_path);
		return -EINVAL;
	}

	if (opt->keyframe_path && stat(opt->keyframe_path, &st) == 0 && !S_ISREG(st.st_mode)) {
		rw_err("--keyframe %s is not a file; give a keyframe file, or a new name to write "
		       "one to",
		       opt->keyframe_path);
		return -EINVAL;
	}
	if (opt->keyframe_path && stat(opt->keyframe_path, &st) < 0 &&
	    !parent_is_folder(opt->keyframe_path, parent, sizeof(parent))) {
		rw_err("--keyframe %s: there is no folder %s to write it in", opt->keyframe_path,
		       parent);
		return -EINVAL;
	}
	if (opt->out_dir && stat(opt->out_dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
		rw_err("--out %s is a file, not a folder; give a folder for the run directory",
		       opt->out_dir);
		return -EINVAL;
	}
	if (opt->out_dir && stat(opt->out_dir, &st) < 0 &&
	    !parent_is_folder(opt->out_dir, parent, sizeof(parent))) {
		rw_err("--out %s: there is no folder %s to make it in", opt->out_dir, parent);
		return -EINVAL;
	}
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	static const struct option options[] = {
		{"seed", required_argument, NULL, 's'},
		{"epoch", required_argument, NULL, 'e'},
		{"mem", required_argument, NULL, 'm'},
		{"kernel", required_argument, NULL, 'k'},
		{"initramfs", required_argument, NULL, 'i'},
		{"initrd", required_argument, NULL, 'i'}, /* its older name */
		{"add", required_argument, NULL, 'a'},
		{"user", required_argument, NULL, 'u'},
		{"cwd", required_argument, NULL, 'c'},
		{"env", required_argument, NULL, 'E'},
		{"out", required_argument, NULL, 'o'},
		{"step-budget", required_argument, NULL, 'b'},
		{"stuck-ms", required_argument, NULL, 't'},
		{"slice-blocks", required_argument, NULL, 'S'},
		{"block-ns", required_argument, NULL, 'N'},
		{"verbose", no_argument, NULL, 'v'},
		{"keyframe", required_argument, NULL, 'K'},
		{"repeat", required_argument, NULL, 'r'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct run_options opt = {.epoch_s = DEFAULT_EPOCH_S,
				  .mem_bytes = DEFAULT_MEM,
				  .step_budget = DEFAULT_STEP_BUDGET,
				  .stuck_ms = DEFAULT_STUCK_MS,
				  .slice_blocks = RUN_DEFAULT_SLICE_BLOCKS,
				  .block_ns = RUN_DEFAULT_BLOCK_NS};
	int c;

	opt.kernel_path = default_image("bzImage");
	opt.initrd_path = default_image("initramfs.cpio");
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:v", options, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return REWIND_EXIT_OK;
		}
		if (c == '?' || c == ':') {
			say_bad_option(c, argv, "run");
			return REWIND_EXIT_USAGE;
		}
		if (parse_option(&opt, c, optarg) < 0)
			return REWIND_EXIT_USAGE; /* it said why, in one line */
	}
	if (optind >= argc) {
		rw_err("no command given: rewind run [OPTIONS] -- CMD [ARGS...]");
		return REWIND_EXIT_USAGE;
	}
	if (check_run_paths(&opt) < 0)
		return REWIND_EXIT_USAGE;
	opt.argv = argv + optind;
	opt.argc = (size_t)(argc - optind);
	return run_job(&opt);
}

static void trace_usage(FILE *to)
{
	fputs("usage: rewind trace [--text] [--all] FILE\n"
	      "\n"
	      "Prints an event trace (a run directory's trace.bin, rewind-harness --trace):\n"
	      "JSON lines from READY (step 0) on.\n"
	      "  --text   a table instead of JSON lines\n"
	      "  --all    the boot too (negative steps)\n"
	      "Exit status: 0; 2 for a bad option, or a FILE that is unreadable, corrupt or\n"
	      "cut short (the records before the damage are printed).\n",
	      to);
}

static int cmd_trace(int argc, char **argv)
{
	static const struct option options[] = {
		{"text", no_argument, NULL, 'x'},
		{"all", no_argument, NULL, 'A'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct trace_dump_options opt = {0};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", options, NULL)) != -1) {
		if (c == 'h') {
			trace_usage(stdout);
			return REWIND_EXIT_OK;
		}
		if (c == 'x') {
			opt.text = true;
		} else if (c == 'A') {
			opt.all = true;
		} else {
			say_bad_option(c, argv, "trace");
			return REWIND_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		rw_err("give one trace file: rewind trace [--text] [--all] FILE");
		return REWIND_EXIT_USAGE;
	}
	/* unreadable, not a trace, or cut short: a bad file */
	return trace_dump_file(argv[optind], &opt, stdout) < 0 ? REWIND_EXIT_USAGE : REWIND_EXIT_OK;
}

/*
 * `rewind explore` and `rewind report` are programs of their own next to
 * this one (they link SQLite; the VMM does not): run them, as git does.
 */
static int exec_sibling(const char *name, const char *subcommand, char **argv)
{
	char path[PATH_MAX + 32], typed[64];
	struct install_paths where;
	int rc = install_paths_get(&where);

	if (rc < 0 || install_paths_program(&where, name, path, sizeof(path)) < 0) {
		rw_err_errno(rc < 0 ? -rc : ENAMETOOLONG, "cannot find my own program");
		return REWIND_EXIT_USAGE;
	}
	/* argv[0] is the words the user typed ("rewind fuzz"): the sibling speaks as them */
	snprintf(typed, sizeof(typed), "rewind %s", subcommand);
	argv[0] = typed;
	execv(path, argv);
	rw_err("cannot run %s: %s; build it with make, or reinstall", path, strerror(errno));
	return REWIND_EXIT_USAGE;
}

static int cmd_keyframe(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: rewind keyframe FILE\n"
		     "\n"
		     "Prints a keyframe file's metadata (rewind run --keyframe FILE writes one):\n"
		     "its version, the kernel and initramfs hashes, CPU model, memory size,\n"
		     "the step and virtual time it was taken at, its pages.\n"
		     "Exit status: 0; 2 if FILE is unreadable or no keyframe.");
		return REWIND_EXIT_OK;
	}
	if (argc == 2 && argv[1][0] == '-' && argv[1][1]) {
		rw_err("unknown option '%s'; rewind keyframe --help lists the options", argv[1]);
		return REWIND_EXIT_USAGE;
	}
	if (argc != 2) {
		rw_err("give one keyframe file: rewind keyframe FILE");
		return REWIND_EXIT_USAGE;
	}
	return keyframe_file_describe(argv[1], stdout) < 0 ? REWIND_EXIT_USAGE : REWIND_EXIT_OK;
}

/* rewind help: every subcommand, one line each. */
static void list_commands(FILE *to)
{
	fputs("usage: rewind COMMAND [OPTIONS] [ARGS]   (rewind COMMAND --help: its options)\n"
	      "\n"
	      "  run       run a command once in the deterministic guest (--repeat N: and\n"
	      "            check N more runs give the same trace)\n"
	      "  fuzz      search a job's schedules with afl-fuzz until it fails, then\n"
	      "            replay the failure\n"
	      "  replay    replay a failure's artifact (or a bundle) bit for bit; with a\n"
	      "            changed job, check a fix\n"
	      "  explain   why an artifact fails: the injections it needs, where they land\n"
	      "            (thread, file:line), the window, the racing pair\n"
	      "  bundle    a folder that replays an artifact on any machine\n"
	      "  trace     print an event trace (trace.bin)\n"
	      "  explore   a night of exploration over a suite: buckets, history, report\n"
	      "  report    a night's report again\n"
	      "  keyframe  print a keyframe file's metadata\n"
	      "  box       run a command with a working /dev/kvm (the KVM box: QEMU where\n"
	      "            the host has none)\n"
	      "  help      this list\n"
	      "\n"
	      "  rewind --version   the version, guest ABI, CPU model and default kernel\n"
	      "\n"
	      "afl-fuzz's target is rewind-harness (afl-fuzz -i CORPUS -o OUT --\n"
	      "rewind-harness @@; rewind-harness --help). Docs: README.md, docs/.\n",
	      to);
}

/*
 * rewind box SUBCOMMAND ARGS: this rewind's SUBCOMMAND in the KVM box
 * (rewind box fuzz --seconds 60), so nobody types a path; rewind box
 * COMMAND ARGS: any command.
 */
static int run_box(int argc, char **argv)
{
	static const char *const subcommands[] = {"run",   "fuzz",    "replay", "explain", "bundle",
						  "trace", "explore", "report", "keyframe"};
	char self[PATH_MAX + 16];
	char *args[argc + 2];
	struct install_paths where;

	for (size_t i = 0; argc >= 3 && i < sizeof(subcommands) / sizeof(subcommands[0]); i++) {
		if (strcmp(argv[2], subcommands[i]))
			continue;
		if (install_paths_get(&where) < 0)
			break;
		snprintf(self, sizeof(self), "%.*s/rewind", PATH_MAX - 1, where.bin);
		args[0] = argv[1];
		args[1] = self;
		for (int a = 2; a <= argc; a++) /* the words after box, and the NULL */
			args[a] = argv[a];
		return exec_sibling("box", "box", args);
	}
	return exec_sibling("box", "box", argv + 1);
}

/* Subcommands that other programs beside this one serve, as git does. */
static int run_sibling_command(int argc, char **argv)
{
	static const char *const harness_commands[] = {"replay", "explain", "bundle"};

	if (!strcmp(argv[1], "fuzz"))
		return exec_sibling("rewind-fuzz", "fuzz", argv + 1);
	if (!strcmp(argv[1], "explore"))
		return exec_sibling("rewind-explore", "explore", argv + 1);
	if (!strcmp(argv[1], "report"))
		return exec_sibling("rewind-report", "report", argv + 1);
	if (!strcmp(argv[1], "box")) /* the KVM box: the checkout's tests/box/run, or installed */
		return run_box(argc, argv);
	/* rewind-harness replay ARTIFACT ...: the harness knows these words */
	for (size_t i = 0; i < sizeof(harness_commands) / sizeof(harness_commands[0]); i++)
		if (!strcmp(argv[1], harness_commands[i]))
			return exec_sibling("rewind-harness", argv[1], argv);
	(void)argc;
	return -1;
}

int main(int argc, char **argv)
{
	int rc;

	/* a file size limit: writes fail with "File too large" and are reported,
	 * temporary files removed, instead of the signal killing us half-way */
	signal(SIGXFSZ, SIG_IGN);
	rw_log_init("rewind", false);
	/* each subcommand speaks as the words the user typed */
	if (argc >= 2 && !strcmp(argv[1], "run")) {
		rw_log_init("rewind run", false);
		return cmd_run(argc - 1, argv + 1);
	}
	if (argc >= 2 && !strcmp(argv[1], "trace")) {
		rw_log_init("rewind trace", false);
		return cmd_trace(argc - 1, argv + 1);
	}
	if (argc >= 2 && (rc = run_sibling_command(argc, argv)) >= 0)
		return rc;
	if (argc >= 2 && !strcmp(argv[1], "keyframe")) {
		rw_log_init("rewind keyframe", false);
		return cmd_keyframe(argc - 1, argv + 1);
	}
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		version_print(stdout, "rewind", default_image("bzImage"));
		return 0;
	}
	if (argc >= 2 &&
	    (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		list_commands(stdout);
		return 0;
	}
	if (argc >= 2) {
		rw_err("unknown command '%s'; rewind help lists the commands", argv[1]);
		return REWIND_EXIT_USAGE;
	}
	list_commands(stderr); /* no command at all: the list is the answer */
	return REWIND_EXIT_USAGE;
}

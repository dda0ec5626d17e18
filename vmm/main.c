/* rewind: the deterministic VMM's command line. */
#include "vmm/keyframe_file.h"
#include "vmm/log.h"
#include "vmm/number.h"
#include "vmm/run.h"
#include "vmm/size.h"
#include "vmm/trace_dump.h"
#include "vmm/version.h"

#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_EPOCH_S	    1767225600ull /* 2026-01-01T00:00:00Z */
#define DEFAULT_MEM	    (256ull << 20)
#define MIN_MEM		    (64ull << 20)
#define MAX_MEM		    (3ull << 30) /* below the local APIC and the TSS pages */
#define DEFAULT_STEP_BUDGET 1000000ull
#define DEFAULT_STUCK_MS    10000ull
#define TRACE_STATUS_BAD    2 /* rewind trace: unreadable, not a trace, or truncated */

static void usage(FILE *to)
{
	fprintf(to,
		"usage: rewind run [OPTIONS] -- CMD [ARGS...]\n"
		"\n"
		"Runs CMD inside the deterministic Linux guest: the same inputs give the same "
		"run,\n"
		"step for step. Prints CMD's output as it happens, then one summary line on "
		"stderr:\n"
		"  rewind: run ID OUTCOME [status N] steps N virtual Ss wall Ss trace HASH\n"
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
		"  --out DIR           run directory (default: rewind-runs/RUN_ID)\n"
		"  --step-budget N     end the run after N steps (default %llu, 0 = none)\n"
		"  --stuck-ms MS       end the run if the guest makes no exit for MS wall ms\n"
		"                      (default %llu)\n"
		"  --slice-blocks N    a job built with guest/rewind-cc is preempted every N of\n"
		"                      its schedule events, as a scheduler's time slice\n"
		"                      (default %llu, 0 = never)\n"
		"  --block-ns NS       the virtual time one of its events costs (default %llu)\n"
		"  --keyframe FILE     restore the booted guest from FILE; if FILE does not "
		"exist,\n"
		"                      boot, write the keyframe there at READY, then go on\n"
		"  --repeat N          after the run, run N more times from the keyframe in this\n"
		"                      process (without --keyframe: the booted guest's, kept\n"
		"                      in memory) and check every trace is identical\n"
		"  -v, --verbose       also print the guest kernel's console on stderr, and\n"
		"                      where in the source each error comes from\n"
		"\n"
		"Exit status: the job's exit code (128+N if killed by signal N); otherwise\n"
		"  64 bad inputs, no KVM, or a /dev/kvm that emulates the guest (run through\n"
		"  tests/box/run; REWIND_ALLOW_SLOW_KVM=1 runs anyway), 65 powered off without\n"
		"  a job status, 66 kernel panic, 67 deadlock (idle, no timer), 68 stuck (no\n"
		"  exits), 69 step budget exceeded, 70 guest fault (invalid call to the VMM),\n"
		"  71 host error, 72 trace budget exceeded (the guest flooded output or events:\n"
		"  64 MiB of trace), 73 the run directory could not be written (nothing\n"
		"  half-written is left).\n"
		"The run directory holds manifest.json (inputs, run id, outcome, trace hash) and\n"
		"trace.bin (every event with its step).\n",
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

/* Default guest images live beside the binary: BIN/../guest/NAME. */
static const char *default_image(const char *name)
{
	static char paths[2][PATH_MAX + 64];
	static unsigned int next;
	char exe[PATH_MAX], *path = paths[next++ % 2];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return name;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(path, sizeof(paths[0]), "%s/../guest/%s", exe, name);
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
 * getopt's '?' or ':' (opterr is 0: the messages are ours, in
 * rewind-harness's words): the option, and where the right ones are listed.
 */
static void say_bad_option(int c, char **argv, const char *command)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		rw_err("%s needs a value (rewind %s --help)", arg, command);
	else
		rw_err("unknown option '%s' (rewind %s --help lists them; the guest's command "
		       "goes after --)",
		       arg, command);
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
			return 0;
		}
		if (c == '?' || c == ':') {
			say_bad_option(c, argv, "run");
			return RUN_STATUS_USAGE;
		}
		if (parse_option(&opt, c, optarg) < 0) {
			usage(stderr);
			return RUN_STATUS_USAGE;
		}
	}
	if (optind >= argc) {
		rw_err("no command given: rewind run [OPTIONS] -- CMD [ARGS...]");
		return RUN_STATUS_USAGE;
	}
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
	      "Exit status: 0, 2 if FILE is unreadable, corrupt or cut short.\n",
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

	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (c == 'h') {
			trace_usage(stdout);
			return 0;
		}
		if (c == 'x') {
			opt.text = true;
		} else if (c == 'A') {
			opt.all = true;
		} else {
			trace_usage(stderr);
			return RUN_STATUS_USAGE;
		}
	}
	if (optind != argc - 1) {
		rw_err("give one trace file: rewind trace [--text] [--all] FILE");
		return RUN_STATUS_USAGE;
	}
	return trace_dump_file(argv[optind], &opt, stdout) < 0 ? TRACE_STATUS_BAD : 0;
}

/*
 * `rewind explore` and `rewind report` are programs of their own next to
 * this one (they link SQLite; the VMM does not): run them, as git does.
 */
static int exec_sibling(const char *name, char **argv)
{
	char exe[4096], path[4096 + 32], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0) {
		fprintf(stderr, "rewind: cannot find my own program: %s\n", strerror(errno));
		return RUN_STATUS_SETUP;
	}
	exe[n] = 0;
	slash = strrchr(exe, '/');
	*slash = 0;
	snprintf(path, sizeof(path), "%s/%s", exe, name);
	argv[0] = path;
	execv(path, argv);
	fprintf(stderr, "rewind: cannot run %s: %s (build it with make)\n", path, strerror(errno));
	return RUN_STATUS_SETUP;
}

static int cmd_keyframe(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: rewind keyframe FILE\n"
		     "\n"
		     "Prints a keyframe file's metadata (rewind run --keyframe FILE writes one):\n"
		     "its version, the kernel and initramfs hashes, CPU model, memory size,\n"
		     "the step and virtual time it was taken at, its pages.\n"
		     "Exit status: 0, 64 if FILE is unreadable or no keyframe.");
		return 0;
	}
	if (argc != 2) {
		rw_err("give one keyframe file: rewind keyframe FILE");
		return RUN_STATUS_USAGE;
	}
	return keyframe_file_describe(argv[1], stdout) < 0 ? RUN_STATUS_SETUP : 0;
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
	      "  help      this list\n"
	      "\n"
	      "  rewind --version   the version, guest ABI, CPU model and default kernel\n"
	      "\n"
	      "afl-fuzz's target is rewind-harness (afl-fuzz -i CORPUS -o OUT --\n"
	      "rewind-harness @@; rewind-harness --help). Docs: README.md, docs/.\n",
	      to);
}

/* Subcommands that other programs beside this one serve, as git does. */
static int run_sibling_command(int argc, char **argv)
{
	static const char *const harness_commands[] = {"replay", "explain", "bundle"};

	if (!strcmp(argv[1], "fuzz"))
		return exec_sibling("rewind-fuzz", argv + 1);
	if (!strcmp(argv[1], "explore"))
		return exec_sibling("rewind-explore", argv + 1);
	if (!strcmp(argv[1], "report"))
		return exec_sibling("rewind-report", argv + 1);
	/* rewind-harness replay ARTIFACT ...: the harness knows these words */
	for (size_t i = 0; i < sizeof(harness_commands) / sizeof(harness_commands[0]); i++)
		if (!strcmp(argv[1], harness_commands[i]))
			return exec_sibling("rewind-harness", argv);
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
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "trace"))
		return cmd_trace(argc - 1, argv + 1);
	if (argc >= 2 && (rc = run_sibling_command(argc, argv)) >= 0)
		return rc;
	if (argc >= 2 && !strcmp(argv[1], "keyframe"))
		return cmd_keyframe(argc - 1, argv + 1);
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		version_print(stdout, "rewind", default_image("bzImage"));
		return 0;
	}
	if (argc >= 2 &&
	    (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		list_commands(stdout);
		return 0;
	}
	if (argc >= 2)
		rw_err("unknown command '%s'", argv[1]);
	list_commands(stderr);
	return RUN_STATUS_USAGE;
}

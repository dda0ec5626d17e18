/* SPDX-License-Identifier: MIT */
/* `rewind fuzz` before afl-fuzz: the tools, the output folder, the probe run. */
#include "harness/fuzz/fuzz.h"
#include "harness/said.h"

#include "lib/file.h"
#include "lib/install_paths.h"
#include "lib/spawn.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Where this program's tools lie (install_paths.h): the build tree, or an installed PREFIX. */
static int own_folder(struct install_paths *where)
{
	int rc = install_paths_get(where);

	if (rc < 0)
		return fuzz_die("cannot find my own program (/proc/self/exe): %s", strerror(-rc));
	return 0;
}

static bool on_path(const char *name)
{
	const char *path = getenv("PATH");
	char dir[PATH_MAX + 64];

	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		snprintf(dir, sizeof(dir), "%.*s/%s", (int)(n < PATH_MAX ? n : PATH_MAX), p, name);
		if (!access(dir, X_OK))
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

static int find_tools(const struct fuzz_options *o, struct fuzz_paths *p)
{
	struct install_paths where;
	const char *harness = getenv("REWIND_HARNESS"), *mutator = getenv("REWIND_MUTATOR");

	if (own_folder(&where))
		return FUZZ_SETUP;
	/* p->root holds corpus/: the checkout, or PREFIX/share/rewind */
	if (!realpath(where.share, p->root))
		return fuzz_die("cannot find the tree I was built in (%s): %s", where.share,
				strerror(errno));
	if (harness)
		snprintf(p->harness, sizeof(p->harness), "%s", harness);
	else if (install_paths_program(&where, "rewind-harness", p->harness, sizeof(p->harness)))
		return fuzz_die("%s/rewind-harness: the path is too long", where.bin);
	if (mutator)
		snprintf(p->mutator, sizeof(p->mutator), "%s", mutator);
	else
		snprintf(p->mutator, sizeof(p->mutator), "%.*s/rewind-mutator.so", PATH_MAX - 20,
			 where.lib);
	if (!on_path("afl-fuzz"))
		return fuzz_die("afl-fuzz not found: install afl++ (make deps)");
	if (access(p->harness, X_OK))
		return fuzz_die("%s not found: build it with make", p->harness);
	if (o->mutator && access(p->mutator, R_OK))
		return fuzz_die("%s not found: build it with make (or --no-mutator)", p->mutator);
	return 0;
}

/* Is dir missing or empty? */
static bool holds_nothing(const char *dir)
{
	DIR *d = opendir(dir);
	const struct dirent *e;
	bool empty = true;

	if (!d)
		return errno == ENOENT;
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	return empty;
}

/* Results are never deleted: OUT must be new or an empty folder. */
static int check_out(const struct fuzz_options *o, struct fuzz_paths *p)
{
	struct stat st;

	if (o->out && strlen(o->out) > PATH_MAX - 64)
		return fuzz_die("--out %.40s...: the path is too long", o->out);
	if (o->out) {
		snprintf(p->out, sizeof(p->out), "%s", o->out);
	} else {
		char stamp[32];
		time_t now = time(NULL);

		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
		snprintf(p->out, sizeof(p->out), "rewind-fuzz-out/run-%s", stamp);
	}
	if (stat(p->out, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return fuzz_die("--out %s is a file, not a folder; give a folder for the "
					"results",
					p->out);
	} else if (errno != ENOENT) { /* a file on its path */
		rw_err_errno(errno, "--out %s", p->out);
		return FUZZ_SETUP;
	}
	if (!holds_nothing(p->out))
		return fuzz_die("%s already holds an earlier run's results (its crash artifacts "
				"too); nothing was deleted: pick another --out, or move it away "
				"yourself",
				p->out);
	snprintf(p->progress, sizeof(p->progress), "%s/progress.json", p->out);
	snprintf(p->artifacts, sizeof(p->artifacts), "%s/artifacts", p->out);
	snprintf(p->afl_log, sizeof(p->afl_log), "%s/afl.log", p->out);
	snprintf(p->probe_log, sizeof(p->probe_log), "%s/probe.log", p->out);
	return 0;
}

/* --corpus: a folder of inputs. */
static int check_corpus(const struct fuzz_options *o, struct fuzz_paths *p)
{
	struct stat st;

	if (!o->corpus)
		return 0;
	if (stat(o->corpus, &st) < 0) {
		rw_err_errno(errno, "--corpus %s", o->corpus);
		return FUZZ_SETUP;
	}
	if (!S_ISDIR(st.st_mode))
		return fuzz_die("--corpus %s is a file, not a folder of inputs", o->corpus);
	if (strlen(o->corpus) >= sizeof(p->corpus))
		return fuzz_die("--corpus %.40s...: the path is too long", o->corpus);
	snprintf(p->corpus, sizeof(p->corpus), "%s", o->corpus);
	return 0;
}

int fuzz_setup(const struct fuzz_options *o, struct fuzz_paths *p)
{
	int rc = check_corpus(o, p);

	if (!rc)
		rc = check_out(o, p);
	if (!rc)
		rc = find_tools(o, p);
	if (rc)
		return rc;
	if (access("/dev/kvm", F_OK))
		return fuzz_die("no /dev/kvm here: run it through tests/box/run");
	return file_make_dir(p->out) ? FUZZ_SETUP : 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path) && errno != ENOENT ? -1 : 0;
}

/* Does the probe's log say what? */
static bool log_says(const char *log, const char *what)
{
	uint8_t *data;
	size_t len;
	bool found;

	if (file_read_max(log, 64u << 20, "probe log", &data, &len))
		return false;
	found = memmem(data, len, what, strlen(what)) != NULL;
	free(data);
	return found;
}

/* Without --corpus: corpus/NAME, said with why. */
static void default_corpus(struct fuzz_paths *p, const char *name, const char *why)
{
	fuzz_say("the job is %s (corpus/%s)\n", why, name);
	snprintf(p->corpus, sizeof(p->corpus), "%.*s/corpus/%s", PATH_MAX - 32, p->root, name);
}

/* Is the job the bundled example (no command given, none in a --job file)? */
static bool is_bundled_example(const struct fuzz_options *o)
{
	return !o->command && o->job.run.argc == 1 && o->job.run.argv &&
	       !strcmp(o->job.run.argv[0], JOB_DEFAULT_COMMAND);
}

/* Picks the corpus from the probe's exit status (0 or 1: the job ran in pct mode). */
static int pick_corpus(const struct fuzz_options *o, struct fuzz_paths *p, int status)
{
	bool ran = status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) <= 1;

	if (fuzz_stop_signal)
		return 0;
	if (ran) {
		/* the bundled ledger's race spans a write(): the stall samples of
		 * corpus/ledger reach it in a few executions, priorities seldom */
		if (!o->corpus && is_bundled_example(o))
			default_corpus(p, "ledger",
				       "the bundled example, a race across a system call: stall "
				       "samples at its exits");
		else if (!o->corpus)
			default_corpus(p, "pct",
				       log_says(p->probe_log, SAID_KERNEL_EVENTS)
					       ? "not instrumented: priority schedules over its "
						 "threads' accesses off their own stacks"
					       : "instrumented: priority schedules");
		return 0;
	}
	if (log_says(p->probe_log, SAID_NOT_INSTRUMENTED)) {
		if (!o->corpus)
			default_corpus(p, "ledger", "not instrumented: injections at exits");
		return 0;
	}
	fuzz_tail(p->probe_log, 20);
	return fuzz_die("the job does not run (see above; log: %s)", p->probe_log);
}

int fuzz_probe(const struct fuzz_options *o, struct fuzz_paths *p)
{
	char probe_dir[PATH_MAX + 16], empty[PATH_MAX + 32];
	char *argv[o->harness_opt_count + o->command_len + 8];
	size_t a = 0;
	pid_t pid;
	int status;

	snprintf(probe_dir, sizeof(probe_dir), "%s/probe", p->out);
	snprintf(empty, sizeof(empty), "%.*s/corpus/pct/empty", PATH_MAX - 16, p->root);
	argv[a++] = p->harness;
	argv[a++] = "--artifacts";
	argv[a++] = probe_dir;
	for (size_t i = 0; i < o->harness_opt_count; i++)
		argv[a++] = o->harness_opts[i];
	argv[a++] = empty;
	if (o->command)
		argv[a++] = "--";
	for (size_t i = 0; o->command && i < o->command_len; i++)
		argv[a++] = o->command[i];
	argv[a] = NULL;
	pid = spawn_start(argv, NULL, p->probe_log);
	if (pid < 0)
		return FUZZ_HOST;
	status = fuzz_wait_child(pid, "the probe run (one run of the job, to see it runs)");
	nftw(probe_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return pick_corpus(o, p, status);
}

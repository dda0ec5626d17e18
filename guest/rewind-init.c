/* SPDX-License-Identifier: MIT */
/*
 * rewind-init: PID 1 of the Rewind guest (/init in the image).
 *
 * Mounts the kernel filesystems, makes /dev/console its stdin/stdout/stderr,
 * brings the loopback interface up, reads the job (/rewind/job: argv;
 * optional /rewind/env: environment; optional /rewind/setup: user, working
 * directory, environment entries, the user's added files) from the archive
 * the VMM appends, gives the user's files to the job's user, checks the
 * job's command, tells the VMM it is ready (REWIND_PORT_READY: the keyframe
 * point, right before fork; it names the buffer the VMM writes the
 * execution seed into), runs the job in its own session as its user, reaps
 * every child (orphans too) until the job exits, reports the job's raw wait
 * status (REWIND_PORT_JOB_STATUS) and powers off. A job that cannot be
 * prepared is reported as exit code 127 without READY. It waits for the
 * guest's first second of uptime before READY; it reads no time and no
 * randomness: its behaviour is a pure function of the image and the job.
 */
#include "guest/init_system.h"
#include "guest/job_file.h"
#include "guest/util.h"
#include "rewind/abi.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/random.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/ioctl.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define JOB_FILE       "/rewind/job"
#define ENV_FILE       "/rewind/env"
#define SETUP_FILE     "/rewind/setup"
#define PASSWD_FILE    "/etc/passwd"
#define ENV_EXTRA      (JOB_SETUP_MAX_ENV + 8) /* room for the setup's and the user's entries */
#define JOB_FILE_MAX   (1u << 20)	       /* plenty for any argv or environment */
#define DEFAULT_PATH   "/bin:/usr/bin"
#define STATUS_MISSING (127 << 8) /* wait status of "exit(127)": command not found */
/* Every byte port an OUTL touches must be permitted: the ABI's span covers them. */
#define IOPERM_COUNT REWIND_PORT_SPAN
/* A job that is not root may still take SCHED_FIFO priorities up to this
 * (the runtime's priority schedules, and tests that use real-time threads). */
#define JOB_RTPRIO 99

static char *default_env[] = {"PATH=" DEFAULT_PATH, "HOME=/", "TERM=dumb", NULL};

struct job {
	char *argv_buf, *env_buf, *setup_buf;
	char **argv, **envp;
	struct job_setup setup;
	struct job_user user; /* root unless the setup names another */
	char path[4096];      /* the file to execute */
};

/* Messages go to stderr, which is the console once it is open. */
#define say_err(...) gu_try_say_fd(2, "rewind-init: " __VA_ARGS__)

/* PID 1 must not exit (the kernel would panic); a fatal error ends the run instead. */
static noreturn void fatal_errno(const char *what)
{
	int err = errno;

	say_err("fatal: %s: %s", what, strerror(err));
	say_err("fatal: cannot continue; exiting, so the kernel panics");
	exit(1);
}

/*
 * Reads a whole file into a new buffer. Returns 0, -ENOENT if it does not
 * exist, -EFBIG if it holds JOB_FILE_MAX bytes or more, or another -errno.
 */
static int read_file(const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, used = 0;
	char *data = malloc(cap);
	int err = 0;

	if (fd < 0 || !data) {
		err = fd < 0 ? errno : ENOMEM;
		free(data);
		if (fd >= 0)
			close(fd);
		return -err;
	}
	for (;;) {
		ssize_t n;

		if (used == cap) {
			char *bigger = cap >= JOB_FILE_MAX ? NULL : realloc(data, cap * 2);

			if (!bigger) {
				err = cap >= JOB_FILE_MAX ? EFBIG : ENOMEM;
				break;
			}
			data = bigger;
			cap *= 2;
		}
		n = read(fd, data + used, cap - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : 0;
			break;
		}
		used += (size_t)n;
	}
	if (close(fd) < 0 && !err)
		err = errno;
	if (err) {
		free(data);
		return -err;
	}
	*buf = data;
	*len = used;
	return 0;
}

/* Reads a file of NUL-terminated strings into a new NULL-terminated vector. */
static int read_strings(const char *path, char **buf, char ***vec,
			long (*parse)(char *, size_t, char **, size_t))
{
	size_t len = 0, cap;
	long n;
	int rc = read_file(path, buf, &len);

	if (rc == -ENOENT)
		return rc;
	if (rc < 0) {
		say_err("%s: cannot read: %s", path, strerror(-rc));
		return rc;
	}
	cap = job_count_strings(*buf, len) + 1;
	*vec = calloc(cap, sizeof(**vec));
	if (!*vec) {
		say_err("%s: out of memory", path);
		return -ENOMEM;
	}
	n = parse(*buf, len, *vec, cap);
	if (n < 0) {
		say_err("%s: %s", path, job_error_text((int)n));
		return -EINVAL;
	}
	return 0;
}

static bool is_executable_file(const char *path, void *ctx)
{
	struct stat st;

	(void)ctx;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Reads the optional setup file into job->setup (all empty without one). */
static bool read_setup(struct job *job)
{
	size_t len = 0;
	int rc = read_file(SETUP_FILE, &job->setup_buf, &len);

	if (rc == -ENOENT)
		return true;
	if (rc < 0) {
		say_err("%s: cannot read: %s", SETUP_FILE, strerror(-rc));
		return false;
	}
	rc = job_parse_setup(job->setup_buf, len, &job->setup);
	if (rc < 0)
		say_err("%s: %s", SETUP_FILE, job_error_text(rc));
	return rc == 0;
}

/* The job's user: root, or the setup's user found in the image's /etc/passwd. */
static bool find_user(struct job *job)
{
	char *passwd = NULL;
	size_t len = 0;
	int rc;

	job->user = (struct job_user){.uid = 0, .gid = 0, .name = "root", .home = "/"};
	if (!job->setup.user)
		return true;
	rc = read_file(PASSWD_FILE, &passwd, &len);
	if (rc < 0 && rc != -ENOENT) {
		say_err("%s: cannot read: %s", PASSWD_FILE, strerror(-rc));
		return false;
	}
	rc = job_find_user(passwd, len, job->setup.user, &job->user);
	free(passwd);
	if (rc < 0)
		say_err("user %s: %s", job->setup.user, job_error_text(rc));
	return rc == 0;
}

/*
 * The environment: /rewind/env if there is one, else the defaults (and,
 * for a user who is not root, HOME, USER and LOGNAME as a login gives
 * them); then the setup's entries over it.
 */
static bool make_env(struct job *job)
{
	char **base = default_env;
	size_t n = 0;
	int rc = read_strings(ENV_FILE, &job->env_buf, &base, job_parse_env);

	if (rc < 0 && rc != -ENOENT)
		return false;
	while (base[n])
		n++;
	job->envp = calloc(n + ENV_EXTRA, sizeof(*job->envp));
	if (!job->envp) {
		say_err("out of memory for the environment");
		return false;
	}
	memcpy(job->envp, base, n * sizeof(*base));
	if (rc == -ENOENT && job->user.uid != 0) {
		static char user_vars[3][320];

		snprintf(user_vars[0], sizeof(user_vars[0]), "HOME=%s", job->user.home);
		snprintf(user_vars[1], sizeof(user_vars[1]), "USER=%s", job->user.name);
		snprintf(user_vars[2], sizeof(user_vars[2]), "LOGNAME=%s", job->user.name);
		for (int i = 0; i < (job->user.name[0] ? 3 : 1); i++)
			job_env_set(job->envp, n + ENV_EXTRA, user_vars[i]);
	}
	for (size_t i = 0; i < job->setup.env_count; i++) {
		rc = job_env_set(job->envp, n + ENV_EXTRA, job->setup.env[i]);
		if (rc < 0) {
			say_err("%s: env=%s: %s", SETUP_FILE, job->setup.env[i],
				job_error_text(rc));
			return false;
		}
	}
	return true;
}

/* Gives a tree to uid:gid, depth first; symbolic links themselves, never followed. */
static void give_tree(const char *path, uid_t uid, gid_t gid, int depth)
{
	char child[4096];
	struct dirent *de;
	struct stat st;
	DIR *dir;

	if (lchown(path, uid, gid) < 0) {
		gu_warn_errno("cannot give %s to the job's user", path);
		return;
	}
	if (depth > 64 || lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) || !(dir = opendir(path)))
		return;
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(child, sizeof(child), "%s/%s", path, de->d_name) < (int)sizeof(child))
			give_tree(child, uid, gid, depth + 1);
	}
	closedir(dir);
}

/* mkdir -p path; the directories it creates belong to uid:gid. 0 or -errno. */
static int make_dirs(const char *path, uid_t uid, gid_t gid)
{
	char buf[4096];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (size_t i = 1; i <= len; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0755) == 0) {
			if (lchown(buf, uid, gid) < 0)
				return -errno;
		} else if (errno != EEXIST) {
			return -errno;
		}
		buf[i] = i < len ? '/' : '\0';
	}
	return 0;
}

/*
 * The working directory and the home directory belong to the job's user,
 * made if missing or made as parents of what the user added, as a
 * checkout and a home do: but not the root or a sticky directory (/tmp).
 */
static void give_dir(const char *path, const struct job_user *u)
{
	struct stat st;

	if (strcmp(path, "/") && lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
	    !(st.st_mode & S_ISVTX) && lchown(path, u->uid, u->gid) < 0)
		gu_warn_errno("cannot give %s to the job's user", path);
}

/*
 * The files the user added belong to the job's user, and so do its home
 * and working directories; then the working directory is entered.
 */
static bool prepare_files(struct job *job)
{
	const struct job_user *u = &job->user;
	const char *cwd = job->setup.cwd ? job->setup.cwd : "/";
	int rc;

	if (u->uid != 0) {
		for (size_t i = 0; i < job->setup.own_count; i++)
			give_tree(job->setup.own[i], u->uid, u->gid, 0);
		if (u->home[0] == '/' && make_dirs(u->home, u->uid, u->gid) < 0)
			gu_warn_errno("cannot make the home directory %s", u->home);
		give_dir(u->home, u);
	}
	rc = make_dirs(cwd, u->uid, u->gid);
	if (rc < 0 || chdir(cwd) < 0) {
		say_err("working directory %s: %s", cwd, strerror(rc < 0 ? -rc : errno));
		return false;
	}
	if (u->uid != 0)
		give_dir(cwd, u);
	return true;
}

/* Reads and checks the job; false (message printed) if it cannot run. */
static bool prepare_job(struct job *job)
{
	const char *path;
	int rc = read_strings(JOB_FILE, &job->argv_buf, &job->argv, job_parse_argv);

	if (rc == -ENOENT)
		say_err("%s: no job: the file is missing (the VMM appends it to the image)",
			JOB_FILE);
	if (rc < 0 || !read_setup(job) || !find_user(job) || !make_env(job) || !prepare_files(job))
		return false;
	path = job_getenv(job->envp, "PATH");
	rc = job_resolve_command(job->argv[0], path ? path : DEFAULT_PATH, is_executable_file, NULL,
				 job->path, sizeof(job->path));
	if (rc < 0) {
		say_err("%s: command not found in the guest", job->argv[0]);
		return false;
	}
	return true;
}

/*
 * The job's user, with raw system calls: the child shares init's memory
 * (vfork), and libc's set*id would synchronise with init's threads.
 */
static bool become_user(const struct job_user *u)
{
	struct rlimit rtprio = {JOB_RTPRIO, JOB_RTPRIO};
	gid_t gid = u->gid;

	if (setrlimit(RLIMIT_RTPRIO, &rtprio) < 0 || syscall(SYS_setgroups, 1, &gid) < 0 ||
	    syscall(SYS_setresgid, gid, gid, gid) < 0 ||
	    syscall(SYS_setresuid, u->uid, u->uid, u->uid) < 0) {
		say_err("cannot run the job as uid %u gid %u: %s", u->uid, u->gid, strerror(errno));
		return false;
	}
	return true;
}

/*
 * The job's side of start_job: of the Rewind ports only the runtime's
 * (ioperm is inherited across fork and execve; an instrumented job that is
 * not root cannot take them itself), its own session, its user, then the
 * command.
 */
static noreturn void exec_job(const struct job *job)
{
	int err;

	if (ioperm(REWIND_PORT_BASE, IOPERM_COUNT, 0) < 0 ||
	    ioperm(REWIND_RUNTIME_PORTS, REWIND_RUNTIME_PORTS_SPAN, 1) < 0) {
		say_err("setting the job's port access: %s", strerror(errno));
		_exit(127);
	}
	if (setsid() < 0) {
		say_err("setsid for the job: %s", strerror(errno));
		_exit(127);
	}
	if (job->user.uid != 0 && !become_user(&job->user))
		_exit(127);
	execve(job->path, job->argv, job->envp);
	err = errno;
	say_err("%s: cannot execute: %s", job->path, strerror(err));
	_exit(err == ENOENT ? 127 : 126);
}

static int job_child(void *job)
{
	exec_job(job);
}

/*
 * Starts the job as vfork() does: the child shares init's memory until its
 * execve, so neither copies init's page tables nor takes copy-on-write
 * faults (both were guest work in every execution, and half the pages an
 * execution dirtied). Init is suspended until the child's execve or exit,
 * so the child's errno and messages cannot race with it.
 */
static pid_t start_job(struct job *job)
{
	static char stack[16384] __attribute__((aligned(16)));

	return clone(job_child, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, job);
}

/* Reaps every child, orphans included, until the job itself exits; its wait status. */
static int reap_until(pid_t job_pid)
{
	for (;;) {
		int status;
		pid_t pid = waitpid(-1, &status, 0);

		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			fatal_errno("waitpid");
		if (pid == job_pid)
			return status;
	}
}

/* Reports the job's wait status: the VMM ends the run there. Elsewhere, powers off. */
static noreturn void finish(int status)
{
	outl((unsigned int)status, REWIND_PORT_JOB_STATUS);
	sync();
	reboot(RB_POWER_OFF);
	fatal_errno("reboot(RB_POWER_OFF)");
}

/*
 * The job starts a second after boot, as on any machine: a test that checks
 * the uptime (/proc/uptime, sysinfo) is not given 0. One idle exit, at
 * boot: the keyframe comes after it, so no execution pays for it.
 */
static void wait_for_uptime(void)
{
	struct timespec second = {.tv_sec = 1, .tv_nsec = 0};

	while (nanosleep(&second, &second) < 0 && errno == EINTR)
		;
}

/*
 * The execution seed: the VMM writes it here at READY and at every restore
 * of the keyframe (READY names this buffer), so it enters after the
 * keyframe point without an exit of its own. The kernel RNG is reseeded
 * from it before the job exists, so the job's randomness (and ASLR) is the
 * same whether the guest booted or was restored.
 */
static struct {
	struct rand_pool_info info;
	uint32_t words[REWIND_SEED_WORDS];
} seed __attribute__((aligned(64))) = {
	.info = {.entropy_count = REWIND_SEED_WORDS * 32, .buf_size = sizeof(seed.words)}};

static void reseed_rng(void)
{
	int fd = open("/dev/urandom", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		fatal_errno("open /dev/urandom");
	if (ioctl(fd, RNDADDENTROPY, &seed) < 0)
		fatal_errno("RNDADDENTROPY");
	if (ioctl(fd, RNDRESEEDCRNG) < 0)
		fatal_errno("RNDRESEEDCRNG");
	close(fd);
}

int main(void)
{
	static struct job job;
	pid_t pid;

	program_invocation_short_name = "rewind-init";
	if (getpid() != 1) {
		say_err("must run as PID 1 of the Rewind guest (it writes to the VMM's ports)");
		return 2;
	}
	init_mount_all();
	if (!init_open_console())
		fatal_errno("dup2 of /dev/console");
	init_network_up();
	if (chdir("/") < 0)
		fatal_errno("chdir /");
	if (!gu_under_rewind())
		say_err("warning: not under the Rewind VMM (no CPUID signature): port writes go "
			"nowhere");
	if (ioperm(REWIND_PORT_BASE, IOPERM_COUNT, 1) < 0)
		fatal_errno("ioperm of the Rewind ports (kernel needs CONFIG_X86_IOPL_IOPERM)");
	if (!prepare_job(&job))
		finish(STATUS_MISSING);
	wait_for_uptime();
	/* written once so that its page is present and private when the VMM
	 * looks it up; a static binary below 4 GiB: the address fits 32 bits */
	memset(seed.words, 0, sizeof(seed.words));
	outl((unsigned int)(uintptr_t)seed.words, REWIND_PORT_READY);
	reseed_rng();
	pid = start_job(&job);
	if (pid < 0)
		fatal_errno("start of the job");
	finish(reap_until(pid));
}

/* SPDX-License-Identifier: MIT */
/* A host command with a timeout and bounded output (host_command.h). */
#include "explore/host_command.h"

#include "lib/parent_death.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * In the child: its own process group (killed as one), stdin from /dev/null,
 * SIGTERM when the parent (pid parent) ends.
 */
static void exec_host(char *const argv[], const char *cwd, char *const env[], int out_fd,
		      int err_fd, pid_t parent)
{
	int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC), rc;

	setpgid(0, 0);
	if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
	    dup2(err_fd, STDERR_FILENO) < 0)
		_exit(127);
	rc = parent_death_signal(parent);
	if (rc == -ESRCH)
		_exit(127); /* nobody waits for its output */
	if (rc < 0) {
		dprintf(STDERR_FILENO, "cannot set a parent-death signal (prctl): %s\n",
			strerror(-rc));
		_exit(127);
	}
	if (chdir(cwd)) {
		dprintf(STDERR_FILENO, "cannot enter %s: %s\n", cwd, strerror(errno));
		_exit(127);
	}
	for (size_t i = 0; env && env[i]; i++)
		if (putenv(env[i]))
			_exit(127);
	execvp(argv[0], argv);
	dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static void keep_err_tail(struct host_output *o, const char *buf, size_t n)
{
	if (n >= HOST_ERR_TAIL) {
		memcpy(o->err, buf + n - HOST_ERR_TAIL, HOST_ERR_TAIL);
		o->err_len = HOST_ERR_TAIL;
	} else {
		size_t keep = o->err_len < HOST_ERR_TAIL - n ? o->err_len : HOST_ERR_TAIL - n;

		memmove(o->err, o->err + o->err_len - keep, keep);
		memcpy(o->err + keep, buf, n);
		o->err_len = keep + n;
	}
	o->err[o->err_len] = 0;
}

static int keep_out(struct host_output *o, const char *buf, size_t n, size_t max)
{
	if (o->len + n > max)
		return -EFBIG;
	if (o->len + n + 1 > o->cap) {
		size_t cap = (o->len + n + 1) * 2;
		char *grown = realloc(o->out, cap);

		if (!grown)
			return -ENOMEM;
		o->out = grown;
		o->cap = cap;
	}
	memcpy(o->out + o->len, buf, n);
	o->len += n;
	o->out[o->len] = 0;
	return 0;
}

/* Reads both pipes until they close, the output grows over max, or the deadline. */
static int drain(int out_fd, int err_fd, double deadline, size_t max, struct host_output *o)
{
	struct pollfd p[2] = {{.fd = out_fd, .events = POLLIN}, {.fd = err_fd, .events = POLLIN}};
	char buf[16384];
	int open_fds = 2;

	while (open_fds) {
		double left = deadline - now_s();
		int ready;

		if (left <= 0)
			return -ETIMEDOUT;
		ready = poll(p, 2, (int)(left * 1000) + 1);
		if (ready < 0 && errno != EINTR)
			return -errno;
		for (int i = 0; i < 2 && ready > 0; i++) {
			ssize_t got;
			int rc;

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			got = read(p[i].fd, buf, sizeof(buf));
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				p[i].fd = -1;
				open_fds--;
			} else if (i == 1) {
				keep_err_tail(o, buf, (size_t)got);
			} else if ((rc = keep_out(o, buf, (size_t)got, max)) < 0) {
				return rc;
			}
		}
	}
	return 0;
}

/* Waits for the command until the deadline; its wait status, or -ETIMEDOUT. */
static int reap(pid_t pid, double deadline)
{
	int status;

	for (;;) {
		pid_t got = waitpid(pid, &status, WNOHANG);

		if (got == pid)
			return status;
		if (got < 0 && errno != EINTR)
			return -errno;
		if (now_s() >= deadline)
			return -ETIMEDOUT;
		usleep(10 * 1000);
	}
}

void host_command_text(char *const argv[], char *out, size_t len)
{
	size_t used = 0;

	out[0] = 0;
	for (size_t i = 0; argv[i] && used + 1 < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", i ? " " : "", argv[i]);
}

const char *host_output_err_line(struct host_output *o)
{
	char *end = o->err + o->err_len, *start;

	while (end > o->err && (end[-1] == '\n' || end[-1] == '\r'))
		*--end = 0;
	start = memrchr(o->err, '\n', (size_t)(end - o->err));
	return start ? start + 1 : o->err;
}

/* The pipes for the command's stdout and stderr; false (errno set) when there are none. */
static bool make_pipes(int out[2], int err[2])
{
	int saved;

	if (pipe2(out, O_CLOEXEC))
		return false;
	if (!pipe2(err, O_CLOEXEC))
		return true;
	saved = errno;
	close(out[0]);
	close(out[1]);
	errno = saved;
	return false;
}

int host_command_run(char *const argv[], const char *cwd, char *const env[], unsigned int timeout_s,
		     size_t max, struct host_output *o)
{
	int out[2], err[2], status;
	double deadline = now_s() + timeout_s;
	pid_t pid, parent = getpid();

	memset(o, 0, sizeof(*o));
	if (!make_pipes(out, err)) {
		o->failed = "make a pipe";
		return -errno;
	}
	pid = fork();
	if (pid == 0)
		exec_host(argv, cwd, env, out[1], err[1], parent);
	status = pid < 0 ? -errno : 0;
	close(out[1]);
	close(err[1]);
	if (pid > 0) {
		status = drain(out[0], err[0], deadline, max, o);
		if (!status)
			status = reap(pid, deadline);
		if (status < 0) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
	}
	close(out[0]);
	close(err[0]);
	if (status >= 0 && keep_out(o, "", 0, max) < 0) /* o->out is "" when it printed nothing */
		status = -ENOMEM;
	if (status < 0) {
		free(o->out);
		o->out = NULL;
	}
	return status;
}

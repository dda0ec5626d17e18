/* SPDX-License-Identifier: MIT */
/* fork/exec of Slurm's tools with stdout and stderr captured through pipes (slurm_tool.h). */
#include "explore/slurm_tool.h"

#include "lib/log.h"
#include "lib/parent_death.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Child side: stdin /dev/null, stdout and stderr into the pipes, SIGTERM when
 * the parent (pid parent) ends, then exec; never returns. Only the tool is
 * tied to rewind explore: the jobs it submits are the cluster's.
 */
static void exec_child(char *const argv[], int out_fd, int err_fd, int errno_fd, pid_t parent)
{
	int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int e;

	if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
	    dup2(err_fd, STDERR_FILENO) < 0) {
		e = errno;
		(void)!write(errno_fd, &e, sizeof(e));
		_exit(127);
	}
	e = -parent_death_signal(parent);
	if (e == ESRCH)
		_exit(127); /* nobody reads what it would print */
	if (e) {
		(void)!write(errno_fd, &e, sizeof(e));
		_exit(127);
	}
	signal(SIGPIPE, SIG_DFL);
	execvp(argv[0], argv);
	e = errno;
	(void)!write(errno_fd, &e, sizeof(e));
	_exit(127);
}

/* Appends what is readable on fd to buf; 1 at end of file, 0 for more, -1 on an error. */
static int drain(int fd, char *buf, size_t *len)
{
	char chunk[1024];
	ssize_t n = read(fd, chunk, sizeof(chunk));
	size_t room = CAPTURE_MAX - 1 - *len;

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -1;
	if (n == 0)
		return 1;
	/* a tool that prints more than we keep loses the tail, not the run */
	if ((size_t)n < room)
		room = (size_t)n;
	memcpy(buf + *len, chunk, room);
	*len += room;
	buf[*len] = 0;
	return 0;
}

/* Reads the child's stdout and stderr until both end, calling on_line at the first line. */
static int read_outputs(struct capture *c, int out_fd, int err_fd)
{
	struct pollfd p[2] = {{.fd = out_fd, .events = POLLIN}, {.fd = err_fd, .events = POLLIN}};

	while (p[0].fd >= 0 || p[1].fd >= 0) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (int i = 0; i < 2; i++) {
			int r;

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			r = i ? drain(p[i].fd, c->err, &c->err_len)
			      : drain(p[i].fd, c->out, &c->out_len);
			if (r < 0)
				return -1;
			if (r)
				p[i].fd = -1;
		}
		if (c->on_line && !c->line_seen && strchr(c->out, '\n')) {
			c->line_seen = true;
			c->on_line(c, c->ctx);
		}
	}
	return 0;
}

static int wait_child(pid_t pid, int *status)
{
	int ws;

	while (waitpid(pid, &ws, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	return 0;
}

static void close_pair(int fds[2])
{
	close(fds[0]);
	close(fds[1]);
}

/* After fork: collects the exec error (if any), the outputs and the exit status. */
static int collect(const char *tool, pid_t pid, int out_fd, int err_fd, int errno_fd,
		   struct capture *c)
{
	int exec_errno = 0, read_rc;
	ssize_t n;

	do
		n = read(errno_fd, &exec_errno, sizeof(exec_errno));
	while (n < 0 && errno == EINTR);
	read_rc = n > 0 ? 0 : read_outputs(c, out_fd, err_fd);
	if (wait_child(pid, &c->status) < 0) {
		rw_err_errno(errno, "cannot wait for %s", tool);
		return -1;
	}
	if (n > 0) {
		rw_err("cannot run %s: %s%s", tool, strerror(exec_errno),
		       exec_errno == ENOENT ? " (is Slurm installed? Debian: apt-get install "
					      "slurm-client; the test cluster: slurm-wlm)"
					    : "");
		return -1;
	}
	if (read_rc < 0) {
		rw_err_errno(errno, "cannot read what %s printed", tool);
		return -1;
	}
	return 0;
}

int run_capture(char *const argv[], struct capture *c)
{
	int out[2], err[2], exec_err[2], rc;
	pid_t pid, parent = getpid();

	c->out_len = c->err_len = 0;
	c->out[0] = c->err[0] = 0;
	c->line_seen = false;
	if (pipe2(out, O_CLOEXEC) < 0)
		goto no_pipe;
	if (pipe2(err, O_CLOEXEC) < 0) {
		close_pair(out);
		goto no_pipe;
	}
	if (pipe2(exec_err, O_CLOEXEC) < 0) {
		close_pair(out);
		close_pair(err);
		goto no_pipe;
	}
	pid = fork();
	if (pid == 0)
		exec_child(argv, out[1], err[1], exec_err[1], parent);
	close(out[1]);
	close(err[1]);
	close(exec_err[1]);
	if (pid < 0) {
		rw_err_errno(errno, "cannot start %s", argv[0]);
		rc = -1;
	} else {
		rc = collect(argv[0], pid, out[0], err[0], exec_err[0], c);
	}
	close(out[0]);
	close(err[0]);
	close(exec_err[0]);
	return rc;
no_pipe:
	rw_err_errno(errno, "cannot create a pipe for %s", argv[0]);
	return -1;
}

const char *stderr_text(struct capture *c)
{
	while (c->err_len > 0 && (c->err[c->err_len - 1] == '\n' || c->err[c->err_len - 1] == ' '))
		c->err[--c->err_len] = 0;
	for (char *p = c->err; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return c->err_len ? c->err : "(it printed no error)";
}

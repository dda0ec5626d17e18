/* SPDX-License-Identifier: MIT */
/* fork/exec with an added environment and a log file; wait statuses. */
#include "lib/spawn.h"

#include "lib/log.h"
#include "lib/parent_death.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * In the child: only async-signal-safe work before exec, then _exit. The
 * tool gets SIGTERM when its parent ends (afl-fuzz then stops and ends its
 * forkserver, the harness).
 */
static void exec_child(char *const argv[], const char *const env[], int log_fd, int null_fd,
		       pid_t parent)
{
	int rc;

	if (dup2(null_fd, STDIN_FILENO) < 0 ||
	    (log_fd >= 0 && (dup2(log_fd, STDOUT_FILENO) < 0 || dup2(log_fd, STDERR_FILENO) < 0)))
		_exit(127);
	rc = parent_death_signal(parent);
	if (rc == -ESRCH)
		_exit(127); /* the night is gone: nobody waits for this tool */
	if (rc < 0) {
		dprintf(STDERR_FILENO,
			"%s: error: cannot tie %s to its parent (prctl PR_SET_PDEATHSIG): %s\n",
			rw_log.program, argv[0], strerror(-rc));
		_exit(127);
	}
	for (size_t i = 0; env && env[i]; i++)
		if (putenv((char *)env[i]))
			_exit(127);
	execvp(argv[0], argv);
	dprintf(STDERR_FILENO, "%s: error: cannot run %s: %s\n", rw_log.program, argv[0],
		strerror(errno));
	_exit(127);
}

pid_t spawn_start(char *const argv[], const char *const env[], const char *log)
{
	int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	int log_fd = log ? open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
	pid_t pid = -1, parent = getpid();

	if (null_fd < 0 || (log && log_fd < 0)) {
		rw_err_errno(errno, "cannot open %s", log ? log : "/dev/null");
	} else {
		pid = fork();
		if (pid == 0)
			exec_child(argv, env, log_fd, null_fd, parent);
		if (pid < 0)
			rw_err_errno(errno, "cannot start %s", argv[0]);
	}
	if (log_fd >= 0)
		close(log_fd);
	if (null_fd >= 0)
		close(null_fd);
	return pid;
}

int spawn_wait(pid_t pid, volatile const int *stop)
{
	int status;

	for (;;) {
		if (waitpid(pid, &status, 0) == pid)
			return status;
		if (errno != EINTR || (stop && *stop))
			return -1;
	}
}

int spawn_run(char *const argv[], const char *log)
{
	pid_t pid = spawn_start(argv, NULL, log);
	int status = pid < 0 ? -1 : spawn_wait(pid, NULL);

	if (status < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

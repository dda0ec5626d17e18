/* SPDX-License-Identifier: MIT */
/*
 * Starting the tools a night or `rewind fuzz` runs (afl-fuzz, rewind-harness)
 * and waiting for them. A tool never outlives the process that started it:
 * it gets SIGTERM when its parent dies (lib/parent_death.h).
 */
#ifndef REWIND_SPAWN_H
#define REWIND_SPAWN_H

#include <sys/types.h>

/*
 * Starts argv[0] (looked up in PATH) with env ("NAME=VALUE" strings, NULL
 * ended, may be NULL) added to this environment, stdin from /dev/null and
 * stdout and stderr appended to log (NULL: this process's own). Returns the pid or -1 (reported).
 */
pid_t spawn_start(char *const argv[], const char *const env[], const char *log);

/* Waits for pid; its wait status, or -1. EINTR is retried unless *stop is set. */
int spawn_wait(pid_t pid, volatile const int *stop);

/* spawn_start + spawn_wait: the exit status (0-255), 128 + signal, or -1. */
int spawn_run(char *const argv[], const char *log);

#endif

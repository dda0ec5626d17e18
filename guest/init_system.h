/* SPDX-License-Identifier: MIT */
/*
 * The system rewind-init (PID 1) sets up before a job: what a Linux
 * program expects to find, the same every boot.
 */
#ifndef REWIND_GUEST_INIT_SYSTEM_H
#define REWIND_GUEST_INIT_SYSTEM_H

#include <stdbool.h>

/* Mounts /proc, /sys, /dev, /dev/shm, /dev/pts; the /dev links; /, /tmp and /run's modes. */
void init_mount_all(void);

/*
 * Makes /dev/console fds 0, 1 and 2; without a console keeps whatever the
 * kernel opened (true). False (errno set) if dup2 or close failed.
 */
bool init_open_console(void);

/* The loopback interface up (the kernel gives it 127.0.0.1 and ::1), and a host name. */
void init_network_up(void);

#endif

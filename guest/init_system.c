/* SPDX-License-Identifier: MIT */
/* rewind-init's system: kernel filesystems, /dev links, the console, loopback
 * (guest/init_system.h). */
#include "guest/init_system.h"

#include "guest/util.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define HOSTNAME "rewind" /* /etc/hosts names it */

struct mount_spec {
	const char *source, *target, *type;
	unsigned long flags;
	const char *data;
};

static const struct mount_spec mounts[] = {
	{"proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL},
	{"sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL},
	{"devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755"},
	{"tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777"},
	{"devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "mode=0620,gid=5,ptmxmode=0666"},
};

/*
 * Directories of the image with the modes a job expects: the root is a
 * tmpfs, made world-writable by default, and no tmpfs is mounted over /tmp
 * or /run: that would hide the files a job adds there.
 */
static const struct {
	const char *path;
	mode_t mode;
} dir_modes[] = {
	{"/", 0755},
	{"/tmp", 01777},
	{"/run", 0755},
};

/* The usual /dev links devtmpfs does not make. */
static const char *const dev_links[][2] = {
	{"/proc/self/fd", "/dev/fd"},
	{"/proc/self/fd/0", "/dev/stdin"},
	{"/proc/self/fd/1", "/dev/stdout"},
	{"/proc/self/fd/2", "/dev/stderr"},
};

void init_mount_all(void)
{
	for (size_t i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++) {
		const struct mount_spec *m = &mounts[i];

		if (mkdir(m->target, 0755) < 0 && errno != EEXIST)
			gu_warn_errno("cannot create %s", m->target);
		else if (mount(m->source, m->target, m->type, m->flags, m->data) < 0)
			gu_warn_errno("cannot mount %s on %s", m->type, m->target);
	}
	for (size_t i = 0; i < sizeof(dev_links) / sizeof(dev_links[0]); i++)
		if (symlink(dev_links[i][0], dev_links[i][1]) < 0 && errno != EEXIST)
			gu_warn_errno("cannot create the link %s", dev_links[i][1]);
	for (size_t i = 0; i < sizeof(dir_modes) / sizeof(dir_modes[0]); i++)
		if ((mkdir(dir_modes[i].path, dir_modes[i].mode) < 0 && errno != EEXIST) ||
		    chmod(dir_modes[i].path, dir_modes[i].mode) < 0)
			gu_warn_errno("cannot make %s", dir_modes[i].path);
}

/* The loopback interface up (the kernel gives it 127.0.0.1 and ::1), and a host name. */
void init_network_up(void)
{
	struct ifreq ifr = {.ifr_name = "lo"};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		gu_warn_errno("no network: socket");
		return;
	}
	ifr.ifr_flags = IFF_UP | IFF_RUNNING;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		gu_warn_errno("cannot bring the loopback interface up");
	close(fd);
	if (sethostname(HOSTNAME, strlen(HOSTNAME)) < 0)
		gu_warn_errno("cannot set the host name");
}

bool init_open_console(void)
{
	int fd = open("/dev/console", O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		gu_warn_errno("cannot open /dev/console");
		return true;
	}
	for (int target = 0; target <= 2; target++)
		if (dup2(fd, target) < 0)
			return false;
	return fd <= 2 || close(fd) == 0;
}

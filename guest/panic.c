/* SPDX-License-Identifier: MIT */
/*
 * panic: crashes the guest kernel by writing 'c' to /proc/sysrq-trigger
 * (needs CONFIG_MAGIC_SYSRQ), so the VMM's panic report can be tested. It
 * refuses to run outside Rewind unless given --force: on a real machine, as
 * root, it would crash the machine.
 */
#include "guest/util.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	bool force = argc > 1 && strcmp(argv[1], "--force") == 0;
	int fd;

	if (!force && !gu_under_rewind())
		gu_die("not under the Rewind VMM (no CPUID signature): refusing to crash this "
		       "kernel (--force to do it anyway)");
	gu_say("panic: writing 'c' to /proc/sysrq-trigger\n");
	fd = open("/proc/sysrq-trigger", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		gu_die_errno("open /proc/sysrq-trigger");
	if (write(fd, "c", 1) != 1)
		gu_die_errno("write 'c' to /proc/sysrq-trigger");
	gu_die("the kernel did not panic after sysrq 'c'");
}

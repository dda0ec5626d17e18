/* SPDX-License-Identifier: MIT */
/*
 * spin: busy-loops in user space forever with no system call after its one
 * message, so the guest never exits to the VMM by itself: the VMM must end
 * the run as "stuck in user space" and report the RIP.
 */
#include "guest/util.h"

int main(void)
{
	gu_say("spin: spinning in user space forever, no system calls\n");
	for (;;)
		__asm__ volatile("" ::: "memory");
}

/* SPDX-License-Identifier: MIT */
/*
 * kvm_probe: does this host's /dev/kvm run guest code at hardware speed?
 * Times the loop of vmm/kvm_speed.c (the programs' own check, the best of
 * a few tries): hardware
 * virtualization takes well under a millisecond, KVM inside the QEMU box a
 * few; some nested clouds expose a /dev/kvm that emulates each guest
 * instruction (~1 µs each), which makes a Linux guest crawl: the box then
 * prefers QEMU.
 * Exit status: 0 fast, 3 works but slow, 1 unusable. Prints the time in ms.
 */
#include "vmm/kvm_speed.h"

#include <stdio.h>

int main(void)
{
	double ms;

	if (kvm_speed_measure_best(&ms) < 0) {
		printf("unusable\n");
		return 1;
	}
	printf("%.2f\n", ms);
	return ms > kvm_speed_slow_ms() ? 3 : 0;
}

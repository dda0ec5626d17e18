/* SPDX-License-Identifier: MIT */
/*
 * kvm_exit_loop: the floor for any VMM's exit rate on this host. A real-mode
 * guest executes N port writes in a loop; the host does nothing but KVM_RUN.
 * usage: kvm_exit_loop N       prints "exits_per_second E"
 */
#include "vmm/kvm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#define CODE_GPA 0x1000

int main(int argc, char **argv)
{
	/* mov ecx, N; l: out 0x10, al; dec ecx; jnz l; hlt */
	uint8_t code[] = {0x66, 0xb9, 0, 0, 0, 0, 0xe6, 0x10, 0x66, 0x49, 0x75, 0xfa, 0xf4};
	uint32_t n = argc == 2 ? (uint32_t)strtoul(argv[1], NULL, 0) : 0;
	struct kvm_machine m;
	struct kvm_sregs sregs;
	struct kvm_regs regs = {.rip = CODE_GPA, .rflags = 0x2};
	struct timespec a, b;
	uint64_t exits = 0;
	int reason;

	if (n == 0) {
		fprintf(stderr, "usage: kvm_exit_loop N\n");
		return 2;
	}
	memcpy(code + 2, &n, sizeof(n));
	if (kvm_machine_open(&m) < 0 || kvm_machine_add_ram(&m, 0x10000) < 0 ||
	    kvm_machine_create_vcpu(&m) < 0 || ioctl(m.vcpu_fd, KVM_GET_SREGS, &sregs) < 0)
		return 1;
	memcpy(m.ram + CODE_GPA, code, sizeof(code));
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(m.vcpu_fd, KVM_SET_SREGS, &sregs) < 0 ||
	    ioctl(m.vcpu_fd, KVM_SET_REGS, &regs) < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	while ((reason = kvm_machine_run(&m)) == KVM_EXIT_IO)
		exits++;
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (reason != KVM_EXIT_HLT || exits != n) {
		fprintf(stderr, "kvm_exit_loop: exit %d after %llu exits\n", reason,
			(unsigned long long)exits);
		return 1;
	}
	printf("exits_per_second %.0f\n", (double)exits / ((double)(b.tv_sec - a.tv_sec) +
							   (double)(b.tv_nsec - a.tv_nsec) / 1e9));
	kvm_machine_close(&m);
	return 0;
}

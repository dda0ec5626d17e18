/*
 * kvm_probe: does this host's /dev/kvm run guest code at hardware speed?
 * Runs 100,000 iterations of a two-instruction real-mode loop in a fresh VM
 * and times it. Hardware virtualization takes well under a millisecond, KVM
 * inside the QEMU box a few; some nested clouds expose a /dev/kvm that
 * emulates each guest instruction (~1 µs each), which makes a Linux guest
 * crawl: the box then prefers QEMU.
 * Exit status: 0 fast, 3 works but slow, 1 unusable. Prints the time in ms.
 */
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#define SLOW_MS 25.0

/* mov ecx, 100000; l: dec ecx; jnz l; out 0x10, al */
static const uint8_t loop[] = {0x66, 0xb9, 0xa0, 0x86, 0x01, 0x00,
			       0x66, 0x49, 0x75, 0xfc, 0xe6, 0x10};

static int run_loop(double *ms)
{
	int kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC), vm, vcpu, size;
	uint8_t *mem;
	struct kvm_run *run;
	struct kvm_sregs sregs;
	struct kvm_regs regs = {.rip = 0x1000, .rflags = 0x2};
	struct timespec a, b;

	if (kvm < 0 || (vm = ioctl(kvm, KVM_CREATE_VM, 0)) < 0)
		return -1;
	mem = mmap(NULL, 0x10000, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return -1;
	memcpy(mem + 0x1000, loop, sizeof(loop));
	struct kvm_userspace_memory_region region = {.memory_size = 0x10000,
						     .userspace_addr = (uint64_t)(uintptr_t)mem};
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region) < 0 ||
	    (vcpu = ioctl(vm, KVM_CREATE_VCPU, 0)) < 0 ||
	    (size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0)) <= 0)
		return -1;
	run = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED || ioctl(vcpu, KVM_GET_SREGS, &sregs) < 0)
		return -1;
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs) < 0 || ioctl(vcpu, KVM_SET_REGS, &regs) < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (ioctl(vcpu, KVM_RUN, 0) < 0 || run->exit_reason != KVM_EXIT_IO)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	*ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
	return 0;
}

int main(void)
{
	double ms;

	if (run_loop(&ms) < 0) {
		printf("unusable\n");
		return 1;
	}
	printf("%.2f\n", ms);
	return ms > SLOW_MS ? 3 : 0;
}

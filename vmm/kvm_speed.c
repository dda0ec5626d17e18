/* SPDX-License-Identifier: MIT */
#include "vmm/kvm_speed.h"

#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PROBE_MEM  0x10000u
#define PROBE_CODE 0x1000u

/* mov ecx, 100000; l: dec ecx; jnz l; out 0x10, al (real mode) */
static const uint8_t loop[] = {0x66, 0xb9, 0xa0, 0x86, 0x01, 0x00,
			       0x66, 0x49, 0x75, 0xfc, 0xe6, 0x10};

struct probe {
	int kvm, vm, vcpu;
	uint8_t *mem;
	struct kvm_run *run;
	size_t run_size;
};

static double ms_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/* A VM with the loop at PROBE_CODE and one vCPU in real mode about to run it. */
static int probe_open(struct probe *p)
{
	struct kvm_userspace_memory_region region = {.memory_size = PROBE_MEM};
	struct kvm_regs regs = {.rip = PROBE_CODE, .rflags = 0x2};
	struct kvm_sregs sregs;
	int size;

	p->kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (p->kvm < 0 || (p->vm = ioctl(p->kvm, KVM_CREATE_VM, 0)) < 0)
		return -errno;
	p->mem = mmap(NULL, PROBE_MEM, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p->mem == MAP_FAILED) {
		p->mem = NULL;
		return -errno;
	}
	memcpy(p->mem + PROBE_CODE, loop, sizeof(loop));
	region.userspace_addr = (uint64_t)(uintptr_t)p->mem;
	if (ioctl(p->vm, KVM_SET_USER_MEMORY_REGION, &region) < 0 ||
	    (p->vcpu = ioctl(p->vm, KVM_CREATE_VCPU, 0)) < 0 ||
	    (size = ioctl(p->kvm, KVM_GET_VCPU_MMAP_SIZE, 0)) <= 0)
		return -EIO;
	p->run = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, p->vcpu, 0);
	if (p->run == MAP_FAILED) {
		p->run = NULL;
		return -errno;
	}
	p->run_size = (size_t)size;
	if (ioctl(p->vcpu, KVM_GET_SREGS, &sregs) < 0)
		return -errno;
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(p->vcpu, KVM_SET_SREGS, &sregs) < 0 || ioctl(p->vcpu, KVM_SET_REGS, &regs) < 0)
		return -errno;
	return 0;
}

static void probe_close(struct probe *p)
{
	if (p->run)
		munmap(p->run, p->run_size);
	if (p->mem)
		munmap(p->mem, PROBE_MEM);
	if (p->vcpu >= 0)
		close(p->vcpu);
	if (p->vm >= 0)
		close(p->vm);
	if (p->kvm >= 0)
		close(p->kvm);
}

int kvm_speed_measure(double *ms)
{
	struct probe p = {.kvm = -1, .vm = -1, .vcpu = -1};
	struct timespec a, b;
	int rc = probe_open(&p);

	if (rc == 0) {
		/* The thread's CPU time, which includes its time in the guest: a host
		 * busy with other work makes the wall time longer, not this. */
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
		/* p.run is mapped when probe_open succeeds; the analyzer cannot tell */
		if (ioctl(p.vcpu, KVM_RUN, 0) < 0 || !p.run || p.run->exit_reason != KVM_EXIT_IO)
			rc = -EIO;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
		*ms = ms_between(&a, &b);
	}
	probe_close(&p);
	return rc;
}

int kvm_speed_measure_best(double *ms)
{
	double best = 0, t;
	int rc = 0;

	for (int i = 0; i < KVM_SPEED_TRIES && rc == 0; i++) {
		rc = kvm_speed_measure(&t);
		if (rc == 0 && (i == 0 || t < best))
			best = t;
		if (rc == 0 && best <= kvm_speed_slow_ms())
			break;
	}
	*ms = best;
	return rc;
}

double kvm_speed_slow_ms(void)
{
	const char *text = getenv("REWIND_SLOW_KVM_MS");
	char *end;
	double v;

	if (!text || !*text)
		return KVM_SPEED_SLOW_MS;
	v = strtod(text, &end);
	return *end || !(v > 0) ? KVM_SPEED_SLOW_MS : v;
}

void kvm_speed_describe(double ms, char *out, size_t len)
{
	snprintf(out, len,
		 "this /dev/kvm runs guest code %.0f times slower than hardware (%.1f ms for a "
		 "%u-iteration loop that takes %.2f ms with hardware virtualization): it emulates "
		 "the guest, so boots would take minutes and runs would end stuck. Run through the "
		 "KVM box instead: rewind box %s ... (REWIND_ALLOW_SLOW_KVM=1 runs "
		 "here anyway)",
		 ms / KVM_SPEED_HARDWARE_MS, ms, KVM_SPEED_ITERATIONS, KVM_SPEED_HARDWARE_MS,
		 rw_log.program);
}

int kvm_speed_check(void)
{
	const char *allow = getenv("REWIND_ALLOW_SLOW_KVM");
	char text[512];
	double ms;

	if (allow && strcmp(allow, "1") == 0)
		return 0;
	if (kvm_speed_measure_best(&ms) < 0 || ms <= kvm_speed_slow_ms())
		return 0;
	kvm_speed_describe(ms, text, sizeof(text));
	rw_err("%s", text);
	return -ENOTSUP;
}

/* SPDX-License-Identifier: MIT */
#include "vmm/kvm.h"

#include "lib/log.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

static void kvm_machine_reset_fds(struct kvm_machine *m)
{
	*m = (struct kvm_machine){.sys_fd = -1, .vm_fd = -1, .vcpu_fd = -1};
}

int kvm_machine_open(struct kvm_machine *m)
{
	int version;

	kvm_machine_reset_fds(m);
	m->sys_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (m->sys_fd < 0) {
		int err = errno;
		rw_err_errno(err, "cannot open /dev/kvm (no KVM here? run through the KVM box: "
				  "rewind box ...)");
		return -err;
	}
	version = ioctl(m->sys_fd, KVM_GET_API_VERSION, 0);
	if (version != REWIND_KVM_API_VERSION) {
		rw_err("/dev/kvm reports API version %d, Rewind needs %d", version,
		       REWIND_KVM_API_VERSION);
		kvm_machine_close(m);
		return -ENOTSUP;
	}
	m->vm_fd = ioctl(m->sys_fd, KVM_CREATE_VM, 0);
	if (m->vm_fd < 0) {
		int err = errno;
		rw_err_errno(err, "KVM_CREATE_VM");
		kvm_machine_close(m);
		return -err;
	}
	return 0;
}

int kvm_machine_has_cap(const struct kvm_machine *m, long cap)
{
	return ioctl(m->sys_fd, KVM_CHECK_EXTENSION, cap) > 0;
}

int kvm_machine_add_ram(struct kvm_machine *m, uint64_t ram_size)
{
	struct kvm_userspace_memory_region region;
	void *ram;

	if (ram_size == 0 || ram_size % (uint64_t)sysconf(_SC_PAGESIZE) != 0) {
		rw_err("guest RAM size %llu is not a positive multiple of the page size",
		       (unsigned long long)ram_size);
		return -EINVAL;
	}
	ram = mmap(NULL, ram_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (ram == MAP_FAILED) {
		int err = errno;
		rw_err_errno(err, "mmap of %llu bytes of guest RAM", (unsigned long long)ram_size);
		return -err;
	}
	region = (struct kvm_userspace_memory_region){
		.slot = 0,
		.guest_phys_addr = 0,
		.memory_size = ram_size,
		.userspace_addr = (uint64_t)(uintptr_t)ram,
	};
	if (ioctl(m->vm_fd, KVM_SET_USER_MEMORY_REGION, &region) < 0) {
		int err = errno;
		rw_err_errno(err, "KVM_SET_USER_MEMORY_REGION (%llu bytes)",
			     (unsigned long long)ram_size);
		munmap(ram, ram_size);
		return -err;
	}
	m->ram = ram;
	m->ram_size = ram_size;
	return 0;
}

int kvm_machine_create_vcpu(struct kvm_machine *m)
{
	int size;
	void *run;

	size = ioctl(m->sys_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (size < (int)sizeof(struct kvm_run)) {
		int err = size < 0 ? errno : EINVAL;
		rw_err_errno(err, "KVM_GET_VCPU_MMAP_SIZE returned %d", size);
		return -err;
	}
	m->vcpu_fd = ioctl(m->vm_fd, KVM_CREATE_VCPU, 0);
	if (m->vcpu_fd < 0) {
		int err = errno;
		rw_err_errno(err, "KVM_CREATE_VCPU");
		return -err;
	}
	run = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, m->vcpu_fd, 0);
	if (run == MAP_FAILED) {
		int err = errno;
		rw_err_errno(err, "mmap of the kvm_run page");
		return -err;
	}
	m->run = run;
	m->run_size = (size_t)size;
	return 0;
}

int kvm_machine_run(struct kvm_machine *m)
{
	uint64_t start = vm_stats_clock(&m->stats);
	int rc = ioctl(m->vcpu_fd, KVM_RUN, 0), err = errno;
	uint32_t reason;
	uint64_t before = m->stats.run_ns;

	vm_stats_add_since(&m->stats, start, &m->stats.run_ns);
	m->stats.last_run_ns = m->stats.run_ns - before;
	m->stats.runs++;
	if (rc < 0) {
		if (err != EINTR)
			rw_err_errno(err, "KVM_RUN");
		else
			m->stats.interrupted++;
		return -err;
	}
	reason = m->run->exit_reason;
	m->stats.exits[reason < VM_STATS_REASONS ? reason : VM_STATS_REASONS - 1]++;
	return (int)reason;
}

void kvm_machine_close(struct kvm_machine *m)
{
	if (m->run)
		munmap(m->run, m->run_size);
	if (m->vcpu_fd >= 0)
		close(m->vcpu_fd);
	if (m->ram)
		munmap(m->ram, m->ram_size);
	if (m->vm_fd >= 0)
		close(m->vm_fd);
	if (m->sys_fd >= 0)
		close(m->sys_fd);
	kvm_machine_reset_fds(m);
}

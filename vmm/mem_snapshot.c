#include "vmm/mem_snapshot.h"

#include "vmm/log.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

int mem_tracking_enable(struct kvm_machine *m)
{
	struct kvm_userspace_memory_region region = {
		.slot = 0,
		.flags = KVM_MEM_LOG_DIRTY_PAGES,
		.guest_phys_addr = 0,
		.memory_size = m->ram_size,
		.userspace_addr = (uint64_t)(uintptr_t)m->ram,
	};

	if (ioctl(m->vm_fd, KVM_SET_USER_MEMORY_REGION, &region) < 0) {
		rw_err_errno(errno, "enabling the dirty log on guest RAM");
		return -EIO;
	}
	return 0;
}

/* Fetches and clears KVM's dirty bitmap (KVM write-protects the pages again). */
static int fetch_dirty_log(struct kvm_machine *m, struct mem_snapshot *s)
{
	struct kvm_dirty_log log = {.slot = 0, .dirty_bitmap = s->bitmap};

	if (ioctl(m->vm_fd, KVM_GET_DIRTY_LOG, &log) < 0) {
		rw_err_errno(errno, "KVM_GET_DIRTY_LOG");
		return -EIO;
	}
	return 0;
}

int mem_snapshot_take(struct kvm_machine *m, struct mem_snapshot *s)
{
	uint64_t pages = m->ram_size / MEM_PAGE_SIZE;

	*s = (struct mem_snapshot){.size = m->ram_size};
	s->copy =
		mmap(NULL, m->ram_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	s->bitmap = calloc((pages + 63) / 64, sizeof(uint64_t));
	if (s->copy == MAP_FAILED || !s->bitmap) {
		rw_err("out of memory for a %llu-byte RAM snapshot",
		       (unsigned long long)m->ram_size);
		if (s->copy == MAP_FAILED)
			s->copy = NULL;
		mem_snapshot_free(s);
		return -ENOMEM;
	}
	memcpy(s->copy, m->ram, m->ram_size);
	return fetch_dirty_log(m, s);
}

static void restore_page(struct kvm_machine *m, const struct mem_snapshot *s, uint64_t gpa)
{
	gpa &= ~(uint64_t)(MEM_PAGE_SIZE - 1);
	if (gpa < s->size)
		memcpy(m->ram + gpa, s->copy + gpa, MEM_PAGE_SIZE);
}

int mem_snapshot_restore(struct kvm_machine *m, struct mem_snapshot *s, const uint64_t *vmm_gpas,
			 size_t n)
{
	uint64_t words = (s->size / MEM_PAGE_SIZE + 63) / 64, restored = 0;

	if (fetch_dirty_log(m, s) < 0)
		return -EIO;
	for (uint64_t w = 0; w < words; w++) {
		for (uint64_t bits = s->bitmap[w]; bits; bits &= bits - 1) {
			restore_page(m, s,
				     (w * 64 + (uint64_t)__builtin_ctzll(bits)) * MEM_PAGE_SIZE);
			restored++;
		}
	}
	for (size_t i = 0; i < n; i++)
		restore_page(m, s, vmm_gpas[i]);
	s->last_restored = restored;
	return 0;
}

void mem_snapshot_free(struct mem_snapshot *s)
{
	if (s->copy)
		munmap(s->copy, s->size);
	free(s->bitmap);
	*s = (struct mem_snapshot){0};
}

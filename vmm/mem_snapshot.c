/* SPDX-License-Identifier: MIT */
#include "vmm/mem_snapshot.h"

#include "lib/log.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

/*
 * With KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2, KVM_GET_DIRTY_LOG only reads the
 * log and the VMM chooses which pages KVM_CLEAR_DIRTY_LOG write-protects
 * again: a restore leaves the pages the execution changed writable (it
 * copies them back at every restore), so the next execution, which almost
 * always writes the same pages, takes no write-protection fault on them.
 */
static int enable_manual_protect(struct kvm_machine *m)
{
	struct kvm_enable_cap cap = {.cap = KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2,
				     .args = {KVM_DIRTY_LOG_MANUAL_PROTECT_ENABLE}};
	int flags = ioctl(m->vm_fd, KVM_CHECK_EXTENSION, KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2);

	if (flags <= 0 || !(flags & KVM_DIRTY_LOG_MANUAL_PROTECT_ENABLE))
		return 0; /* an older KVM: every restore re-protects what was dirtied */
	if (ioctl(m->vm_fd, KVM_ENABLE_CAP, &cap) < 0) {
		rw_err_errno(errno, "enabling KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2");
		return -EIO;
	}
	m->dirty_log_manual = true;
	return 0;
}

int mem_tracking_enable(struct kvm_machine *m)
{
	struct kvm_userspace_memory_region region = {
		.slot = 0,
		.flags = KVM_MEM_LOG_DIRTY_PAGES,
		.guest_phys_addr = 0,
		.memory_size = m->ram_size,
		.userspace_addr = (uint64_t)(uintptr_t)m->ram,
	};

	if (enable_manual_protect(m) < 0)
		return -EIO;
	if (ioctl(m->vm_fd, KVM_SET_USER_MEMORY_REGION, &region) < 0) {
		rw_err_errno(errno, "enabling the dirty log on guest RAM");
		return -EIO;
	}
	return 0;
}

/*
 * Fetches KVM's dirty bitmap. Without manual protection KVM also clears it
 * and write-protects the pages again; with it, nothing changes in KVM.
 */
static int fetch_dirty_log(struct kvm_machine *m, struct mem_snapshot *s)
{
	struct kvm_dirty_log log = {.slot = 0, .dirty_bitmap = s->bitmap};

	if (ioctl(m->vm_fd, KVM_GET_DIRTY_LOG, &log) < 0) {
		rw_err_errno(errno, "KVM_GET_DIRTY_LOG");
		return -EIO;
	}
	return 0;
}

/* Manual protection: clears the log of the pages in s->clear, words [lo, hi), and write-protects
 * them again. */
static int clear_dirty_log(struct kvm_machine *m, struct mem_snapshot *s, uint64_t lo, uint64_t hi)
{
	uint64_t pages = s->size / MEM_PAGE_SIZE;
	struct kvm_clear_dirty_log log = {
		.slot = 0,
		.first_page = lo * 64,
		.num_pages = (uint32_t)(hi * 64 < pages ? hi * 64 - lo * 64 : pages - lo * 64),
		.dirty_bitmap = s->clear + lo};

	if (lo >= hi)
		return 0;
	if (ioctl(m->vm_fd, KVM_CLEAR_DIRTY_LOG, &log) < 0) {
		rw_err_errno(errno, "KVM_CLEAR_DIRTY_LOG of pages %llu..%llu",
			     (unsigned long long)log.first_page,
			     (unsigned long long)(log.first_page + log.num_pages - 1));
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
	s->clear = calloc((pages + 63) / 64, sizeof(uint64_t));
	s->unchanged = calloc(pages, 1);
	if (s->copy == MAP_FAILED || !s->bitmap || !s->clear || !s->unchanged) {
		rw_err("out of memory for a %llu-byte RAM snapshot",
		       (unsigned long long)m->ram_size);
		if (s->copy == MAP_FAILED)
			s->copy = NULL;
		mem_snapshot_free(s);
		return -ENOMEM;
	}
	memcpy(s->copy, m->ram, m->ram_size);
	if (fetch_dirty_log(m, s) < 0)
		return -EIO;
	if (!m->dirty_log_manual)
		return 0;
	/* the log starts afresh here: every page write-protected again */
	memcpy(s->clear, s->bitmap, (pages + 63) / 64 * sizeof(uint64_t));
	return clear_dirty_log(m, s, 0, (pages + 63) / 64);
}

static void restore_page(struct kvm_machine *m, const struct mem_snapshot *s, uint64_t gpa)
{
	gpa &= ~(uint64_t)(MEM_PAGE_SIZE - 1);
	if (gpa < s->size)
		memcpy(m->ram + gpa, s->copy + gpa, MEM_PAGE_SIZE);
}

/*
 * Manual protection: of the pages the log names (written since their last
 * clear, or left writable by an earlier restore), copies back those that
 * differ from the keyframe and leaves them writable. One found unchanged
 * (not written this time, or written back to the same bytes, as a lock or
 * a reference count is) stays writable until MEM_KEEP_UNCHANGED restores
 * in a row found it so, then is write-protected again. A page the log does
 * not name is write-protected and unchanged.
 */
static uint64_t restore_manual(struct kvm_machine *m, struct mem_snapshot *s, uint64_t words,
			       uint64_t *lo, uint64_t *hi)
{
	uint64_t restored = 0;

	*lo = words;
	*hi = 0;
	for (uint64_t w = 0; w < words; w++) {
		uint64_t clear = 0;

		for (uint64_t bits = s->bitmap[w]; bits; bits &= bits - 1) {
			uint64_t bit = bits & -bits;
			uint64_t gpa = (w * 64 + (uint64_t)__builtin_ctzll(bits)) * MEM_PAGE_SIZE;
			uint8_t *unchanged = &s->unchanged[gpa / MEM_PAGE_SIZE];

			if (memcmp(m->ram + gpa, s->copy + gpa, MEM_PAGE_SIZE) != 0) {
				memcpy(m->ram + gpa, s->copy + gpa, MEM_PAGE_SIZE);
				*unchanged = 0;
				restored++;
				continue;
			}
			m->stats.restore_unchanged++;
			if (++*unchanged >= MEM_KEEP_UNCHANGED) {
				*unchanged = 0;
				clear |= bit;
				m->stats.restore_reprotected++;
			}
		}
		s->clear[w] = clear;
		if (clear) {
			*lo = *lo < w ? *lo : w;
			*hi = w + 1;
		}
	}
	return restored;
}

int mem_snapshot_restore(struct kvm_machine *m, struct mem_snapshot *s, const uint64_t *vmm_gpas,
			 size_t n)
{
	uint64_t words = (s->size / MEM_PAGE_SIZE + 63) / 64, restored = 0, lo = 0, hi = 0;
	uint64_t clock = vm_stats_clock(&m->stats);

	if (fetch_dirty_log(m, s) < 0)
		return -EIO;
	clock = vm_stats_add_since(&m->stats, clock, &m->stats.dirty_log_ns);
	if (m->dirty_log_manual) {
		restored = restore_manual(m, s, words, &lo, &hi);
	} else {
		for (uint64_t w = 0; w < words; w++) {
			for (uint64_t bits = s->bitmap[w]; bits; bits &= bits - 1) {
				restore_page(m, s,
					     (w * 64 + (uint64_t)__builtin_ctzll(bits)) *
						     MEM_PAGE_SIZE);
				restored++;
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		restore_page(m, s, vmm_gpas[i]);
	clock = vm_stats_add_since(&m->stats, clock, &m->stats.copy_ns);
	if (m->dirty_log_manual) {
		if (clear_dirty_log(m, s, lo, hi) < 0)
			return -EIO;
		vm_stats_add_since(&m->stats, clock, &m->stats.dirty_log_ns);
	}
	m->stats.restore_pages += restored;
	m->stats.restore_vmm_pages += n;
	s->last_restored = restored;
	return 0;
}

void mem_snapshot_free(struct mem_snapshot *s)
{
	if (s->copy)
		munmap(s->copy, s->size);
	free(s->bitmap);
	free(s->clear);
	free(s->unchanged);
	*s = (struct mem_snapshot){0};
}

/* SPDX-License-Identifier: MIT */
#include "harness/explain/guest_maps.h"

#include "vmm/guest_mem.h"
#include "vmm/vm.h"

#include <elf.h>
#include <string.h>
#include <sys/ioctl.h>

#define PTE_PRESENT  (1ull << 0)
#define PTE_USER     (1ull << 2)
#define PTE_LARGE    (1ull << 7) /* a 2 MiB page in a PD entry (1 GiB in a PDPT entry) */
#define PTE_ADDR     0x000ffffffffff000ull
#define CR4_LA57     (1ull << 12)
#define USER_ENTRIES 256 /* the lower half of the PML4: user space */
#define PAGE	     4096ull
#define PAGES_PER_2M 512u

struct walk {
	struct vm *vm;
	struct guest_map *out;
	unsigned int max, count;
};

/* The 512 entries of the table at gpa, or NULL outside guest RAM. */
static const uint64_t *table_at(const struct walk *w, uint64_t gpa)
{
	return guest_mem_ptr(&w->vm->km, gpa & PTE_ADDR, PAGE);
}

/* An x86-64 ELF header (an executable or a shared object) at the start of a page. */
static bool is_elf_header(const uint8_t *p)
{
	Elf64_Ehdr eh;

	memcpy(&eh, p, sizeof(eh));
	return !memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	       eh.e_machine == EM_X86_64 && (eh.e_type == ET_EXEC || eh.e_type == ET_DYN);
}

static void check_page(struct walk *w, uint64_t va, uint64_t gpa)
{
	const uint8_t *p = guest_mem_ptr(&w->vm->km, gpa, GUEST_MAP_HEAD_LEN);

	if (!p || w->count >= w->max || !is_elf_header(p))
		return;
	w->out[w->count].base = va;
	memcpy(w->out[w->count].head, p, GUEST_MAP_HEAD_LEN);
	w->count++;
}

static void walk_pt(struct walk *w, uint64_t va, uint64_t gpa)
{
	const uint64_t *pt = table_at(w, gpa);

	for (unsigned int i = 0; pt && i < 512; i++)
		if ((pt[i] & (PTE_PRESENT | PTE_USER)) == (PTE_PRESENT | PTE_USER))
			check_page(w, va + i * PAGE, pt[i] & PTE_ADDR);
}

static void walk_pd(struct walk *w, uint64_t va, uint64_t gpa)
{
	const uint64_t *pd = table_at(w, gpa);

	for (unsigned int i = 0; pd && i < 512; i++) {
		uint64_t at = va + (uint64_t)i * PAGES_PER_2M * PAGE;

		if ((pd[i] & (PTE_PRESENT | PTE_USER)) != (PTE_PRESENT | PTE_USER))
			continue;
		if (!(pd[i] & PTE_LARGE)) {
			walk_pt(w, at, pd[i]);
			continue;
		}
		for (unsigned int j = 0; j < PAGES_PER_2M; j++) /* a 2 MiB page */
			check_page(w, at + j * PAGE, (pd[i] & PTE_ADDR & ~0x1fffffull) + j * PAGE);
	}
}

unsigned int guest_maps_read(struct vm *vm, struct guest_map *out, unsigned int max)
{
	struct walk w = {.vm = vm, .out = out, .max = max};
	struct kvm_sregs sregs;
	const uint64_t *pml4;

	if (ioctl(vm->km.vcpu_fd, KVM_GET_SREGS, &sregs) < 0 || (sregs.cr4 & CR4_LA57))
		return 0;
	pml4 = table_at(&w, sregs.cr3);
	for (unsigned int i = 0; pml4 && i < USER_ENTRIES; i++) {
		const uint64_t *pdpt;

		if ((pml4[i] & (PTE_PRESENT | PTE_USER)) != (PTE_PRESENT | PTE_USER) ||
		    !(pdpt = table_at(&w, pml4[i])))
			continue;
		for (unsigned int j = 0; j < 512; j++) /* 1 GiB pages: never a mapped file */
			if ((pdpt[j] & (PTE_PRESENT | PTE_USER | PTE_LARGE)) ==
			    (PTE_PRESENT | PTE_USER))
				walk_pd(&w, ((uint64_t)i << 39) | ((uint64_t)j << 30), pdpt[j]);
	}
	return w.count;
}

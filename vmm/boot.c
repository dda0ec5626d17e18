/* SPDX-License-Identifier: MIT */
#include "vmm/boot.h"

#include "lib/log.h"
#include "vmm/guest_mem.h"

#include <asm/bootparam.h>
#include <asm/e820.h>
#include <string.h>
#include <sys/ioctl.h>

/* Guest-physical layout of what the VMM writes before the kernel runs. */
#define GDT_GPA		0x0500
#define BOOT_PARAMS_GPA 0x7000
#define RNG_SEED_GPA	0x8000
#define PML4_GPA	0x9000
#define PDPT_GPA	0xa000
#define PD_GPA		0xb000 /* four page directories: 4 GiB of 2 MiB pages */
#define CMDLINE_GPA	0x20000
#define CMDLINE_MAX	4096
#define KERNEL_GPA	0x100000
#define LOW_RAM_END	0x9f000

#define HDRS_MAGIC	   0x53726448 /* "HdrS" */
#define MIN_BOOT_PROTOCOL  0x020c     /* 64-bit entry (xloadflags) */
#define BOOT_CS		   0x10
#define BOOT_DS		   0x18
#define SETUP_HEADER_START 0x1f1

#define PTE_PRESENT 0x1ull
#define PTE_WRITE   0x2ull
#define PTE_HUGE    0x80ull

int boot_check_bzimage(const uint8_t *kernel, size_t len)
{
	const struct setup_header *hdr = (const void *)(kernel + SETUP_HEADER_START);
	size_t setup_len;

	if (len < 0x1000 || hdr->header != HDRS_MAGIC) {
		rw_err("not a bzImage: no 'HdrS' boot header");
		return -EINVAL;
	}
	if (hdr->version < MIN_BOOT_PROTOCOL || !(hdr->xloadflags & XLF_KERNEL_64)) {
		rw_err("bzImage boot protocol %#x has no 64-bit entry point (need >= 2.12)",
		       hdr->version);
		return -EINVAL;
	}
	setup_len = ((size_t)(hdr->setup_sects ? hdr->setup_sects : 4) + 1) * 512;
	if (setup_len >= len) {
		rw_err("bzImage is truncated (%zu bytes, setup alone takes %zu)", len, setup_len);
		return -EINVAL;
	}
	return 0;
}

static void write_gdt(struct kvm_machine *m)
{
	uint64_t *gdt = guest_mem_ptr(m, GDT_GPA, 4 * sizeof(uint64_t));

	gdt[0] = 0;
	gdt[1] = 0;
	gdt[BOOT_CS / 8] = 0x00af9a000000ffffull; /* 64-bit code */
	gdt[BOOT_DS / 8] = 0x00cf92000000ffffull; /* data */
}

/* Identity map of the first 4 GiB with 2 MiB pages. */
static void write_page_tables(struct kvm_machine *m)
{
	uint64_t *pml4 = guest_mem_ptr(m, PML4_GPA, 4096);
	uint64_t *pdpt = guest_mem_ptr(m, PDPT_GPA, 4096);
	uint64_t *pd = guest_mem_ptr(m, PD_GPA, 4 * 4096);

	memset(pml4, 0, 4096);
	memset(pdpt, 0, 4096);
	pml4[0] = PDPT_GPA | PTE_PRESENT | PTE_WRITE;
	for (uint64_t i = 0; i < 4; i++)
		pdpt[i] = (PD_GPA + i * 4096) | PTE_PRESENT | PTE_WRITE;
	for (uint64_t i = 0; i < 4 * 512; i++)
		pd[i] = (i << 21) | PTE_PRESENT | PTE_WRITE | PTE_HUGE;
}

static void add_e820(struct boot_params *bp, uint64_t addr, uint64_t size, uint32_t type)
{
	struct boot_e820_entry *e = &bp->e820_table[bp->e820_entries++];

	e->addr = addr;
	e->size = size;
	e->type = type;
}

/*
 * The kernel unpacks the image into rootfs, a tmpfs of at most half the
 * RAM it has free while the packed copy is still reserved: an image larger
 * than that cannot be unpacked whole, and the guest would start without
 * the job (measured: 220 MiB unpacks in 704 MiB, not in 576 MiB).
 */
static bool initrd_cannot_unpack(const struct kvm_machine *m, const struct boot_image *img,
				 uint64_t kernel_end)
{
	const uint64_t mib = 1 << 20;
	uint64_t need = kernel_end + 3 * (uint64_t)img->initrd_len;

	if (need <= m->ram_size)
		return false;
	rw_err("the guest image with the files added to it is %llu MiB, and unpacking it needs "
	       "about %llu MiB of guest RAM; the guest has %llu MiB: give it more (--mem %lluM)",
	       (unsigned long long)((img->initrd_len + mib - 1) / mib),
	       (unsigned long long)((need + mib - 1) / mib),
	       (unsigned long long)(m->ram_size / mib),
	       (unsigned long long)((need + 64 * mib + 64 * mib - 1) / (64 * mib) * 64));
	return true;
}

static int place_initrd(struct kvm_machine *m, struct boot_params *bp, const struct boot_image *img,
			uint64_t kernel_end)
{
	uint64_t top = m->ram_size, gpa;

	if (bp->hdr.initrd_addr_max && top > (uint64_t)bp->hdr.initrd_addr_max + 1)
		top = (uint64_t)bp->hdr.initrd_addr_max + 1;
	gpa = (top - img->initrd_len) & ~0xfffull;
	if (img->initrd_len > top || gpa < kernel_end) {
		rw_err("the initramfs (%zu bytes) does not fit in guest RAM above the kernel; "
		       "give the guest more memory (--mem)",
		       img->initrd_len);
		return -EINVAL;
	}
	if (initrd_cannot_unpack(m, img, kernel_end))
		return -EINVAL;
	memcpy(m->ram + gpa, img->initrd, img->initrd_len);
	bp->hdr.ramdisk_image = (uint32_t)gpa;
	bp->hdr.ramdisk_size = (uint32_t)img->initrd_len;
	return 0;
}

static void write_rng_seed(struct kvm_machine *m, struct boot_params *bp,
			   const struct boot_image *img)
{
	struct setup_data *sd = guest_mem_ptr(m, RNG_SEED_GPA, sizeof(*sd) + sizeof(img->rng_seed));

	sd->next = 0;
	sd->type = SETUP_RNG_SEED;
	sd->len = sizeof(img->rng_seed);
	memcpy(sd->data, img->rng_seed, sizeof(img->rng_seed));
	bp->hdr.setup_data = RNG_SEED_GPA;
}

static int write_boot_params(struct kvm_machine *m, const struct boot_image *img)
{
	const struct setup_header *src = (const void *)(img->kernel + SETUP_HEADER_START);
	struct boot_params *bp = guest_mem_ptr(m, BOOT_PARAMS_GPA, sizeof(*bp));
	size_t setup_len = ((size_t)(src->setup_sects ? src->setup_sects : 4) + 1) * 512;
	size_t kernel_len = img->kernel_len - setup_len;
	size_t cmdline_len = strlen(img->cmdline) + 1;
	uint64_t kernel_end =
		KERNEL_GPA + (src->init_size > kernel_len ? src->init_size : kernel_len);
	/* the header's own length: 0x202 plus the byte at 0x201 (jump offset) */
	size_t hdr_len = 0x202 + img->kernel[0x201] - SETUP_HEADER_START;

	if (kernel_end > m->ram_size || cmdline_len > CMDLINE_MAX ||
	    hdr_len > sizeof(struct setup_header)) {
		rw_err("kernel (%llu bytes in place) or command line (%zu) does not fit; --mem?",
		       (unsigned long long)(kernel_end - KERNEL_GPA), cmdline_len);
		return -EINVAL;
	}
	memset(bp, 0, sizeof(*bp));
	memcpy(&bp->hdr, src, hdr_len);
	bp->hdr.type_of_loader = 0xff;
	bp->hdr.loadflags |= LOADED_HIGH | KEEP_SEGMENTS;
	bp->hdr.cmd_line_ptr = CMDLINE_GPA;
	memcpy(m->ram + CMDLINE_GPA, img->cmdline, cmdline_len);
	memcpy(m->ram + KERNEL_GPA, img->kernel + setup_len, kernel_len);
	add_e820(bp, 0, LOW_RAM_END, E820_RAM);
	add_e820(bp, KERNEL_GPA, m->ram_size - KERNEL_GPA, E820_RAM);
	write_rng_seed(m, bp, img);
	return place_initrd(m, bp, img, kernel_end);
}

static void set_segment(struct kvm_segment *s, uint16_t selector, uint8_t type, uint8_t l)
{
	*s = (struct kvm_segment){.base = 0,
				  .limit = 0xffffffff,
				  .selector = selector,
				  .type = type,
				  .present = 1,
				  .dpl = 0,
				  .db = !l,
				  .s = 1,
				  .l = l,
				  .g = 1};
}

static int enter_long_mode(struct kvm_machine *m)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs = {.rip = KERNEL_GPA + 0x200, .rsi = BOOT_PARAMS_GPA, .rflags = 0x2};

	if (ioctl(m->vcpu_fd, KVM_GET_SREGS, &sregs) < 0) {
		rw_err_errno(errno, "KVM_GET_SREGS");
		return -EIO;
	}
	set_segment(&sregs.cs, BOOT_CS, 0xb, 1);
	set_segment(&sregs.ds, BOOT_DS, 0x3, 0);
	sregs.es = sregs.fs = sregs.gs = sregs.ss = sregs.ds;
	sregs.gdt.base = GDT_GPA;
	sregs.gdt.limit = 4 * 8 - 1;
	sregs.cr3 = PML4_GPA;
	sregs.cr4 = 0x20;		      /* PAE */
	sregs.cr0 = 0x80000001 | 0x10 | 0x20; /* PG | PE | ET | NE */
	sregs.efer = 0x500;		      /* LME | LMA */
	if (ioctl(m->vcpu_fd, KVM_SET_SREGS, &sregs) < 0 ||
	    ioctl(m->vcpu_fd, KVM_SET_REGS, &regs) < 0) {
		rw_err_errno(errno, "setting vCPU registers for the 64-bit entry");
		return -EIO;
	}
	return 0;
}

int boot_linux(struct kvm_machine *m, const struct boot_image *img)
{
	int rc = boot_check_bzimage(img->kernel, img->kernel_len);

	if (rc)
		return rc;
	if (m->ram_size < 64ull << 20) {
		rw_err("guest RAM must be at least 64 MiB");
		return -EINVAL;
	}
	write_gdt(m);
	write_page_tables(m);
	rc = write_boot_params(m, img);
	return rc ? rc : enter_long_mode(m);
}

/* SPDX-License-Identifier: MIT */
/*
 * An untrusted ELF file (elf_file.h), read as the kernel (fs/binfmt_elf.c)
 * and the loaders (glibc's elf/dl-load.c, musl's ldso/dynlink.c) read it.
 */
#include "image/elf_file.h"

#include "lib/log.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PHNUM (65536 / sizeof(Elf64_Phdr)) /* the most the kernel loads */

enum elf_fit {
	ELF_FITS,    /* x86-64, little-endian, its program headers inside the file */
	ELF_NOT_ELF, /* no ELF magic */
	ELF_OTHER,   /* another class, byte order or machine */
	ELF_CORRUPT, /* truncated, or its program headers past the end */
};

/* What a dynamic section says, as offsets into its string table. */
struct dyn_refs {
	uint64_t strtab, strsz, soname, rpath, runpath, flags_1;
	bool has_strtab, has_strsz, has_soname, has_rpath, has_runpath;
	size_t needed;	/* DT_NEEDED entries */
	size_t entries; /* entries before DT_NULL */
};

struct strtab {
	const char *base;
	uint64_t size;
};

__attribute__((format(printf, 2, 3))) static int corrupt(const struct elf_file *f, const char *fmt,
							 ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	rw_err("%s is a corrupt ELF file: %s", f->shown, why);
	return -ENOEXEC;
}

static enum elf_fit elf_check_phdrs(const struct elf_file *f, char *why, size_t len)
{
	const Elf64_Ehdr *eh = &f->eh;

	if (eh->e_phnum == 0)
		return ELF_FITS;
	if (eh->e_phentsize != sizeof(Elf64_Phdr))
		snprintf(why, len, "its program headers are %u bytes each, not %zu",
			 eh->e_phentsize, sizeof(Elf64_Phdr));
	else if (eh->e_phnum > MAX_PHNUM)
		snprintf(why, len, "it has %u program headers, more than the kernel loads (%zu)",
			 eh->e_phnum, MAX_PHNUM);
	else if (eh->e_phoff > f->size ||
		 (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > f->size - eh->e_phoff)
		snprintf(why, len, "its program headers lie past the end of the file");
	else
		return ELF_FITS;
	return ELF_CORRUPT;
}

/* How f fits (f->eh read when it is ELF); why says what it is otherwise. */
static enum elf_fit elf_identify(struct elf_file *f, char *why, size_t len)
{
	const uint8_t *id = f->data;

	if (f->size < SELFMAG || memcmp(id, ELFMAG, SELFMAG) != 0) {
		snprintf(why, len, "not an ELF file");
		return ELF_NOT_ELF;
	}
	if (f->size < sizeof(f->eh)) {
		snprintf(why, len, "its ELF header is truncated (%zu bytes)", f->size);
		return ELF_CORRUPT;
	}
	memcpy(&f->eh, id, sizeof(f->eh));
	if (id[EI_CLASS] != ELFCLASS64)
		snprintf(why, len, "%s",
			 id[EI_CLASS] == ELFCLASS32 ? "a 32-bit ELF file"
						    : "an ELF file of unknown class");
	else if (id[EI_DATA] != ELFDATA2LSB)
		snprintf(why, len, "a big-endian ELF file");
	else if (f->eh.e_machine != EM_X86_64)
		snprintf(why, len, "an ELF file for machine %u, not x86-64", f->eh.e_machine);
	else
		return elf_check_phdrs(f, why, len);
	return ELF_OTHER;
}

/* Program header i; elf_check_phdrs has checked they all lie inside the file. */
static Elf64_Phdr elf_phdr(const struct elf_file *f, size_t i)
{
	Elf64_Phdr ph;

	memcpy(&ph, f->data + f->eh.e_phoff + i * sizeof(ph), sizeof(ph));
	return ph;
}

static bool segment_inside(const struct elf_file *f, const Elf64_Phdr *ph)
{
	return ph->p_offset <= f->size && ph->p_filesz <= f->size - ph->p_offset;
}

void elf_segments(const struct elf_file *f, struct elf_segments *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < f->eh.e_phnum; i++) {
		Elf64_Phdr ph = elf_phdr(f, i);

		if (ph.p_type == PT_INTERP && !s->has_interp) {
			s->interp = ph;
			s->has_interp = true;
		} else if (ph.p_type == PT_DYNAMIC && !s->has_dynamic) {
			s->dynamic = ph;
			s->has_dynamic = true;
		}
	}
}

void elf_loads(const struct elf_file *f, struct elf_loads *l)
{
	*l = (struct elf_loads){.lo = UINT64_MAX};
	for (size_t i = 0; i < f->eh.e_phnum; i++) {
		Elf64_Phdr ph = elf_phdr(f, i);

		if (ph.p_type != PT_LOAD || ph.p_vaddr > UINT64_MAX - ph.p_memsz)
			continue;
		if (ph.p_vaddr < l->lo)
			l->lo = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > l->hi)
			l->hi = ph.p_vaddr + ph.p_memsz;
		if (!l->has_text && (ph.p_flags & PF_X) && segment_inside(f, &ph)) {
			l->text = ph;
			l->has_text = true;
		}
	}
}

/* The file offset of vaddr, and how many bytes of its PT_LOAD segment follow it in the file. */
static bool vaddr_offset(const struct elf_file *f, uint64_t vaddr, uint64_t *off, uint64_t *avail)
{
	for (size_t i = 0; i < f->eh.e_phnum; i++) {
		Elf64_Phdr ph = elf_phdr(f, i);

		if (ph.p_type != PT_LOAD || vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= ph.p_filesz)
			continue;
		if (!segment_inside(f, &ph))
			return false;
		*off = ph.p_offset + (vaddr - ph.p_vaddr);
		*avail = ph.p_filesz - (vaddr - ph.p_vaddr);
		return true;
	}
	return false;
}

int elf_interp(const struct elf_file *f, const Elf64_Phdr *ph, char *out, size_t len)
{
	const char *s;
	size_t n;

	if (!segment_inside(f, ph))
		return corrupt(f, "its PT_INTERP segment lies past the end of the file");
	s = (const char *)f->data + ph->p_offset;
	n = strnlen(s, ph->p_filesz);
	if (n == ph->p_filesz)
		return corrupt(f, "its interpreter's path (PT_INTERP) has no terminating NUL");
	if (n == 0)
		return corrupt(f, "its interpreter's path (PT_INTERP) is empty");
	if (n >= len) {
		rw_err("%s names an interpreter path of %zu bytes, more than %zu", f->shown, n,
		       len - 1);
		return -ENAMETOOLONG;
	}
	if (s[0] != '/') {
		rw_err("%s names the interpreter %s, a relative path: the kernel would look for it "
		       "in the guest's working directory",
		       f->shown, s);
		return -ENOEXEC;
	}
	memcpy(out, s, n + 1);
	return 0;
}

static Elf64_Dyn dyn_entry(const struct elf_file *f, const Elf64_Phdr *ph, size_t i)
{
	Elf64_Dyn d;

	memcpy(&d, f->data + ph->p_offset + i * sizeof(d), sizeof(d));
	return d;
}

/* Records one entry's tag in r. */
static void dyn_note(struct dyn_refs *r, const Elf64_Dyn *d)
{
	switch (d->d_tag) {
	case DT_NEEDED:
		r->needed++;
		break;
	case DT_STRTAB:
		r->strtab = d->d_un.d_ptr;
		r->has_strtab = true;
		break;
	case DT_STRSZ:
		r->strsz = d->d_un.d_val;
		r->has_strsz = true;
		break;
	case DT_SONAME:
		r->soname = d->d_un.d_val;
		r->has_soname = true;
		break;
	case DT_RPATH:
		r->rpath = d->d_un.d_val;
		r->has_rpath = true;
		break;
	case DT_RUNPATH:
		r->runpath = d->d_un.d_val;
		r->has_runpath = true;
		break;
	case DT_FLAGS_1:
		r->flags_1 = d->d_un.d_val;
		break;
	default:
		break;
	}
}

/* The entries up to DT_NULL or the segment's end; segment_inside(ph) holds. */
static void dyn_scan(const struct elf_file *f, const Elf64_Phdr *ph, struct dyn_refs *r)
{
	size_t max = ph->p_filesz / sizeof(Elf64_Dyn);

	memset(r, 0, sizeof(*r));
	for (; r->entries < max; r->entries++) {
		Elf64_Dyn d = dyn_entry(f, ph, r->entries);

		if (d.d_tag == DT_NULL)
			break;
		dyn_note(r, &d);
	}
}

static int dyn_strtab(const struct elf_file *f, const struct dyn_refs *r, struct strtab *st)
{
	uint64_t off, avail;

	if (!r->has_strtab)
		return corrupt(f, "its dynamic section has names but no string table (DT_STRTAB)");
	if (!vaddr_offset(f, r->strtab, &off, &avail))
		return corrupt(f, "its string table (DT_STRTAB) lies outside its loaded segments");
	if (r->has_strsz && r->strsz > avail)
		return corrupt(f, "its string table (DT_STRSZ) runs past the end of its segment");
	st->base = (const char *)f->data + off;
	st->size = r->has_strsz ? r->strsz : avail;
	return 0;
}

/* The string at offset at of the string table, malloc'd into *out. */
static int dyn_string(const struct elf_file *f, const struct strtab *st, uint64_t at,
		      const char *tag, char **out)
{
	size_t n;

	if (at >= st->size)
		return corrupt(f, "its %s string lies outside its string table", tag);
	n = strnlen(st->base + at, st->size - at);
	if (n == st->size - at)
		return corrupt(f, "its %s string has no terminating NUL", tag);
	if (n == 0)
		return corrupt(f, "its %s string is empty", tag);
	*out = check_alloc(strndup(st->base + at, n));
	return 0;
}

static int dyn_needed(const struct elf_file *f, const Elf64_Phdr *ph, const struct dyn_refs *r,
		      const struct strtab *st, struct elf_dynamic *d)
{
	int rc = 0;

	d->needed = check_alloc(calloc(r->needed ? r->needed : 1, sizeof(*d->needed)));
	for (size_t i = 0; i < r->entries && !rc; i++) {
		Elf64_Dyn e = dyn_entry(f, ph, i);

		if (e.d_tag == DT_NEEDED)
			rc = dyn_string(f, st, e.d_un.d_val, "DT_NEEDED",
					&d->needed[d->needed_count++]);
	}
	return rc;
}

int elf_dynamic_read(const struct elf_file *f, const Elf64_Phdr *ph, struct elf_dynamic *d)
{
	struct dyn_refs r;
	struct strtab st = {0};
	int rc = 0;

	if (!segment_inside(f, ph))
		return corrupt(f, "its dynamic section (PT_DYNAMIC) lies past the end of the file");
	dyn_scan(f, ph, &r);
	if (r.needed > ELF_MAX_NEEDED)
		return corrupt(f, "it has %zu DT_NEEDED entries, more than %d", r.needed,
			       ELF_MAX_NEEDED);
	if (r.needed || r.has_soname || r.has_rpath || r.has_runpath)
		rc = dyn_strtab(f, &r, &st);
	if (!rc && r.has_soname)
		rc = dyn_string(f, &st, r.soname, "DT_SONAME", &d->soname);
	/* Both loaders ignore DT_RPATH when there is a DT_RUNPATH. */
	if (!rc && r.has_runpath)
		rc = dyn_string(f, &st, r.runpath, "DT_RUNPATH", &d->runpath);
	else if (!rc && r.has_rpath)
		rc = dyn_string(f, &st, r.rpath, "DT_RPATH", &d->rpath);
	if (!rc)
		rc = dyn_needed(f, ph, &r, &st, d);
	d->nodeflib = (r.flags_1 & DF_1_NODEFLIB) != 0;
	return rc;
}

/* Why f, which does not fit, is refused (reported): -ENOEXEC. */
static int refused(const struct elf_file *f, enum elf_fit fit, const char *why)
{
	if (fit == ELF_CORRUPT)
		return corrupt(f, "%s", why);
	rw_err("%s is %s: the guest runs x86-64 programs only", f->shown, why);
	return -ENOEXEC;
}

int elf_object(struct elf_file *f)
{
	char why[128];
	enum elf_fit fit = elf_identify(f, why, sizeof(why));

	return fit == ELF_FITS ? 0 : refused(f, fit, why);
}

int elf_program(struct elf_file *f, struct elf_segments *seg)
{
	char why[128];
	enum elf_fit fit = elf_identify(f, why, sizeof(why));

	if (fit == ELF_NOT_ELF)
		return 0;
	if (fit != ELF_FITS)
		return refused(f, fit, why);
	if (f->eh.e_type != ET_EXEC && f->eh.e_type != ET_DYN)
		return 0; /* an object file, a core dump: not run */
	elf_segments(f, seg);
	return seg->has_interp;
}

int elf_library(struct elf_file *f, struct elf_dynamic *d)
{
	struct elf_segments seg;
	char why[128];
	enum elf_fit fit = elf_identify(f, why, sizeof(why));
	int rc = 0;

	if (fit == ELF_CORRUPT) {
		rc = corrupt(f, "%s", why);
	} else if (fit == ELF_FITS && f->eh.e_type == ET_DYN) {
		elf_segments(f, &seg);
		rc = seg.has_dynamic ? elf_dynamic_read(f, &seg.dynamic, d) : 0;
		rc = rc ? rc : 1;
	}
	return rc;
}

void elf_dynamic_free(struct elf_dynamic *d)
{
	free(d->soname);
	free(d->rpath);
	free(d->runpath);
	for (size_t i = 0; i < d->needed_count; i++)
		free(d->needed[i]);
	free(d->needed);
	memset(d, 0, sizeof(*d));
}

/* SPDX-License-Identifier: MIT */
/*
 * AFL++ target for reading an untrusted ELF file (image/elf_file.c), as
 * elf_deps_find (image/elf_deps.c) reads a program `--add` puts into the
 * guest and every library it needs.
 *
 *   fuzz_elf FILE             checks FILE (stdin without FILE)
 *   fuzz_elf --write-seeds DIR writes a few small ELF files into DIR
 *
 * The bytes are read as a program (elf_program, then elf_interp and
 * elf_dynamic_read, as elf_deps_find does), as a library (elf_library) and
 * as an object whose code rewind explain names (elf_object, elf_loads):
 * refused (-ENOEXEC, or -ENAMETOOLONG for too long an interpreter path;
 * the message on stderr) or accepted, never crashed on, read out of
 * bounds or leaked (run-parser-fuzz reruns what afl-fuzz kept with
 * LeakSanitizer on). What is accepted must be what the file holds: an
 * x86-64 ELF file of the right type, the interpreter an absolute path that
 * is PT_INTERP's bytes, each name (DT_NEEDED, DT_SONAME, DT_RPATH,
 * DT_RUNPATH) non-empty and NUL-terminated inside the file, at most
 * ELF_MAX_NEEDED needs, no DT_RPATH beside a DT_RUNPATH. run-parser-fuzz
 * adds real programs (glibc's dynamic, musl's static) to the seeds this
 * writes. Persistent mode as in tests/fuzz/fuzz.h. Planted bug
 * (-DFUZZ_PLANTED_BUG): an accepted DT_NEEDED name with a byte of 0x80 or
 * more (no seed's has one).
 */
#define FUZZ_NAME "fuzz_elf"

#include "image/elf_deps.h"
#include "image/elf_file.h"
#include "tests/fuzz/fuzz.h"

#include <stdbool.h>
#include <stddef.h>

#define INTERP_LEN sizeof(((struct elf_deps *)NULL)->interp) /* as elf_deps_find reads it */

/* The file is an x86-64, little-endian, 64-bit ELF file of that type. */
static bool x86_64_elf(const uint8_t *data, size_t len, bool exec_too)
{
	Elf64_Ehdr eh;

	if (len < sizeof(eh))
		return false;
	memcpy(&eh, data, sizeof(eh));
	return !memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	       eh.e_ident[EI_DATA] == ELFDATA2LSB && eh.e_machine == EM_X86_64 &&
	       (eh.e_type == ET_DYN || (exec_too && eh.e_type == ET_EXEC));
}

/* name and its NUL lie in the file (it was read from there). */
static void check_name(const uint8_t *data, size_t len, const char *name, const char *what)
{
	size_t n = strlen(name);

	if (!n)
		fuzz_die(what, "accepted an empty name");
	if (!memmem(data, len, name, n + 1))
		fuzz_die(what, "gave a name the file does not hold");
}

/* What an accepted dynamic section gave. */
static void check_dynamic(const uint8_t *data, size_t len, const struct elf_dynamic *d)
{
	if (d->needed_count > ELF_MAX_NEEDED)
		fuzz_die("elf_dynamic_read", "accepted more than ELF_MAX_NEEDED needs");
	if (d->rpath && d->runpath)
		fuzz_die("elf_dynamic_read", "kept a DT_RPATH beside a DT_RUNPATH");
	if (d->soname)
		check_name(data, len, d->soname, "DT_SONAME");
	if (d->rpath)
		check_name(data, len, d->rpath, "DT_RPATH");
	if (d->runpath)
		check_name(data, len, d->runpath, "DT_RUNPATH");
	for (size_t i = 0; i < d->needed_count; i++) {
		check_name(data, len, d->needed[i], "DT_NEEDED");
		FUZZ_PLANTED(fuzz_not_ascii(d->needed[i]),
			     "a DT_NEEDED name with a byte of 0x80 or more");
	}
}

/* The interpreter: absolute, shorter than out, PT_INTERP's own bytes. */
static void check_interp(const uint8_t *data, size_t len, const Elf64_Phdr *ph, const char *interp)
{
	size_t n = strnlen(interp, INTERP_LEN);

	if (n == INTERP_LEN || interp[0] != '/')
		fuzz_die("elf_interp", "accepted a path that is not absolute or too long");
	if (ph->p_offset > len || n + 1 > len - ph->p_offset ||
	    memcmp(data + ph->p_offset, interp, n + 1) != 0)
		fuzz_die("elf_interp", "gave a path that is not PT_INTERP's");
}

/* The bytes as elf_deps_find reads a program. */
static void as_program(const uint8_t *data, size_t len)
{
	struct elf_file f = {.data = data, .size = len, .shown = "fuzzed program"};
	struct elf_segments seg = {0};
	struct elf_dynamic d = {0};
	char interp[INTERP_LEN] = "";
	int rc = elf_program(&f, &seg);

	if (rc != 0 && rc != 1 && rc != -ENOEXEC)
		fuzz_die("elf_program", "returned neither 0, 1 nor -ENOEXEC");
	if (rc == 1 && (!x86_64_elf(data, len, true) || !seg.has_interp))
		fuzz_die("elf_program", "accepted a file with no interpreter or not x86-64");
	if (rc != 1)
		return;
	rc = elf_interp(&f, &seg.interp, interp, sizeof(interp));
	if (rc != 0 && rc != -ENOEXEC && rc != -ENAMETOOLONG)
		fuzz_die("elf_interp", "returned neither 0, -ENOEXEC nor -ENAMETOOLONG");
	if (rc == 0)
		check_interp(data, len, &seg.interp, interp);
	if (rc == 0 && seg.has_dynamic) {
		rc = elf_dynamic_read(&f, &seg.dynamic, &d);
		if (rc != 0 && rc != -ENOEXEC)
			fuzz_die("elf_dynamic_read", "returned neither 0 nor -ENOEXEC");
		if (rc == 0)
			check_dynamic(data, len, &d);
	}
	elf_dynamic_free(&d);
}

/* The bytes as elf_deps_find reads a candidate library. */
static void as_library(const uint8_t *data, size_t len)
{
	struct elf_file f = {.data = data, .size = len, .shown = "fuzzed library"};
	struct elf_dynamic d = {0};
	int rc = elf_library(&f, &d);

	if (rc != 0 && rc != 1 && rc != -ENOEXEC)
		fuzz_die("elf_library", "returned neither 0, 1 nor -ENOEXEC");
	if (rc == 1 && !x86_64_elf(data, len, false))
		fuzz_die("elf_library", "accepted a file that is not an x86-64 shared object");
	if (rc == 1)
		check_dynamic(data, len, &d);
	elf_dynamic_free(&d);
}

/* The bytes as rewind explain reads an object for code locations (harness/explain/symbols.c). */
static void as_object(const uint8_t *data, size_t len)
{
	struct elf_file f = {.data = data, .size = len, .shown = "fuzzed object"};
	struct elf_loads l;
	int rc = elf_object(&f);

	if (rc != 0 && rc != -ENOEXEC)
		fuzz_die("elf_object", "returned neither 0 nor -ENOEXEC");
	if (rc != 0)
		return;
	if (len < sizeof(Elf64_Ehdr) || memcmp(data, ELFMAG, SELFMAG) ||
	    data[EI_CLASS] != ELFCLASS64 || f.eh.e_machine != EM_X86_64)
		fuzz_die("elf_object", "accepted a file that is not x86-64 ELF");
	elf_loads(&f, &l);
	if (l.has_text &&
	    (l.text.p_type != PT_LOAD || !(l.text.p_flags & PF_X) || l.text.p_offset > len ||
	     l.text.p_filesz > len - l.text.p_offset || l.lo > l.text.p_vaddr || l.lo > l.hi))
		fuzz_die("elf_loads", "gave an executable segment outside the file or its extent");
}

static void check(const uint8_t *bytes, size_t len, const char *path)
{
	/* an exact-size copy, so ASan catches a read past the end */
	uint8_t *data = fuzz_copy(bytes, len);

	(void)path;
	as_program(data, len);
	as_library(data, len);
	as_object(data, len);
	free(data);
}

/* --- seeds: small ELF files built here --------------------------------------------- */

#define SEED_MAX   1024
#define SEED_PHOFF sizeof(Elf64_Ehdr)

/* A seed being built: the file's bytes, its program headers and dynamic entries. */
struct seed {
	uint8_t bytes[SEED_MAX];
	size_t len;
	Elf64_Ehdr eh;
	Elf64_Phdr ph[3];
	Elf64_Dyn dyn[12];
	size_t dyn_count;
	char strtab[256];
	size_t strtab_len;
};

/* Appends n bytes at the next multiple of align; their offset. */
static size_t put(struct seed *s, const void *data, size_t n, size_t align)
{
	size_t at = (s->len + align - 1) / align * align;

	if (at + n > sizeof(s->bytes))
		fuzz_die("seed", "too big");
	memcpy(s->bytes + at, data, n);
	s->len = at + n;
	return at;
}

/* A name in the string table; its offset there. */
static uint64_t strtab_name(struct seed *s, const char *text)
{
	size_t at = s->strtab_len, n = strlen(text) + 1;

	if (at + n > sizeof(s->strtab))
		fuzz_die("seed", "string table too big");
	memcpy(s->strtab + at, text, n);
	s->strtab_len += n;
	return at;
}

static void add_dyn(struct seed *s, int64_t tag, uint64_t value)
{
	if (s->dyn_count == sizeof(s->dyn) / sizeof(s->dyn[0]))
		fuzz_die("seed", "too many dynamic entries");
	s->dyn[s->dyn_count++] = (Elf64_Dyn){.d_tag = tag, .d_un.d_val = value};
}

static void seed_init(struct seed *s, uint16_t type)
{
	memset(s, 0, sizeof(*s));
	memcpy(s->eh.e_ident, ELFMAG, SELFMAG);
	s->eh.e_ident[EI_CLASS] = ELFCLASS64;
	s->eh.e_ident[EI_DATA] = ELFDATA2LSB;
	s->eh.e_ident[EI_VERSION] = EV_CURRENT;
	s->eh.e_type = type;
	s->eh.e_machine = EM_X86_64;
	s->eh.e_version = EV_CURRENT;
	s->eh.e_phoff = SEED_PHOFF;
	s->eh.e_ehsize = sizeof(Elf64_Ehdr);
	s->eh.e_phentsize = sizeof(Elf64_Phdr);
	s->strtab_len = 1; /* offset 0: the empty name */
}

/*
 * Writes the seed as DIR/NAME: headers, the interpreter (if any), the
 * string table and dynamic section (if any entries), one PT_LOAD over all,
 * loaded at vaddr 0.
 */
static int seed_write(struct seed *s, const char *dir, const char *file, const char *interp)
{
	size_t n = 0, at;

	s->len = SEED_PHOFF + 3 * sizeof(Elf64_Phdr);
	if (interp) {
		at = put(s, interp, strlen(interp) + 1, 1);
		s->ph[n++] = (Elf64_Phdr){.p_type = PT_INTERP,
					  .p_offset = at,
					  .p_filesz = strlen(interp) + 1,
					  .p_align = 1};
	}
	if (s->dyn_count) {
		add_dyn(s, DT_STRSZ, s->strtab_len);
		add_dyn(s, DT_STRTAB, put(s, s->strtab, s->strtab_len, 1));
		add_dyn(s, DT_NULL, 0);
		at = put(s, s->dyn, s->dyn_count * sizeof(Elf64_Dyn), 8);
		s->ph[n++] = (Elf64_Phdr){.p_type = PT_DYNAMIC,
					  .p_offset = at,
					  .p_filesz = s->dyn_count * sizeof(Elf64_Dyn),
					  .p_align = 8};
	}
	s->ph[n++] = (Elf64_Phdr){.p_type = PT_LOAD,
				  .p_flags = PF_R | PF_X,
				  .p_filesz = s->len,
				  .p_memsz = s->len,
				  .p_align = 0x1000};
	s->eh.e_phnum = (uint16_t)n;
	memcpy(s->bytes, &s->eh, sizeof(s->eh));
	memcpy(s->bytes + SEED_PHOFF, s->ph, n * sizeof(Elf64_Phdr));
	return fuzz_write_seed(dir, file, s->bytes, s->len);
}

static int write_seeds(const char *dir)
{
	static struct seed s;
	int rc;

	/* a glibc PIE: two needs, a RUNPATH with $ORIGIN, DF_1_NODEFLIB */
	seed_init(&s, ET_DYN);
	add_dyn(&s, DT_NEEDED, strtab_name(&s, "libm.so.6"));
	add_dyn(&s, DT_NEEDED, strtab_name(&s, "libc.so.6"));
	add_dyn(&s, DT_RUNPATH, strtab_name(&s, "$ORIGIN/../lib:/opt/x/$LIB"));
	add_dyn(&s, DT_FLAGS_1, DF_1_NODEFLIB | DF_1_PIE);
	rc = seed_write(&s, dir, "glibc-pie", "/lib64/ld-linux-x86-64.so.2");
	/* a musl executable with an RPATH */
	seed_init(&s, ET_EXEC);
	add_dyn(&s, DT_NEEDED, strtab_name(&s, "libc.so"));
	add_dyn(&s, DT_RPATH, strtab_name(&s, "/usr/local/musl/lib"));
	rc |= seed_write(&s, dir, "musl-exec", "/lib/ld-musl-x86_64.so.1");
	/* a library: a SONAME, a need by path */
	seed_init(&s, ET_DYN);
	add_dyn(&s, DT_SONAME, strtab_name(&s, "libseed.so.1"));
	add_dyn(&s, DT_NEEDED, strtab_name(&s, "/opt/seed/lib/libdep.so.2"));
	add_dyn(&s, DT_RPATH, strtab_name(&s, "$ORIGIN"));
	rc |= seed_write(&s, dir, "library", NULL);
	/* a static program: nothing for a loader */
	seed_init(&s, ET_EXEC);
	rc |= seed_write(&s, dir, "static", NULL);
	return rc ? -1 : 0;
}

int main(int argc, char **argv)
{
	return fuzz_main(argc, argv, check, write_seeds, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of finding the shared objects an ELF program needs
 * (image/elf_deps.c). The group's setup compiles real programs and libraries
 * with cc and musl-gcc into a fake tree in a temporary directory (its root,
 * written "T" in the expected outputs): fake libc, ld.so and libgcc_s,
 * RUNPATH against RPATH, ld.so.conf with includes, skipped candidates, a
 * cycle, a missing library, musl's search. Corrupt programs are patched
 * copies of a real one. Two tests read the real host: /bin/ls against what
 * ldd prints, and a musl-gcc program.
 */
#include "image/elf_deps.h"
#include "tests/unit/stderr_capture.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#define GLIBC_DIR "/usr/lib/x86_64-linux-gnu"
#define LD_SO	  "T" GLIBC_DIR "/ld-linux-x86-64.so.2"
#define LD_ITEM	  "/lib64/ld-linux-x86-64.so.2 <- " LD_SO "\n"
#define LIBC_ITEM "/lib/x86_64-linux-gnu/libc.so.6 <- T" GLIBC_DIR "/libc.so.6\n"
#define GCC_ITEM  "/lib/x86_64-linux-gnu/libgcc_s.so.1 <- T" GLIBC_DIR "/libgcc_s.so.1\n"
#define RUNPATH_ITEMS                                                                              \
	LD_ITEM "/srv/lib/liba.so.1 <- T/app/lib/liba.so.1\n" LIBC_ITEM                            \
		"/lib/x86_64-linux-gnu/libb.so.1 <- T" GLIBC_DIR "/libb.so.1\n" GCC_ITEM
#define CONF_DIRS "/usr/lib32, /opt/a/lib, /usr/local/lib, /opt/q/lib"
#define SYS_DIRS  CONF_DIRS ", /lib/x86_64-linux-gnu, /usr/lib/x86_64-linux-gnu, /lib, /usr/lib"

/* cc with every -l kept as a DT_NEEDED entry, whatever the compiler's default. */
#define CC_LIB	 "cc -shared -fPIC -Wl,--no-as-needed"
#define CC_FAKE	 CC_LIB " -nostdlib"
#define CC_PROG	 "cc -Wl,--no-as-needed"
#define MUSL_LIB "musl-gcc -shared -fPIC -Wl,--no-as-needed"

static char root[256];

struct result {
	int rc;
	struct elf_deps deps;
	char message[4096]; /* what it printed, the root written "T" */
	char items[4096];   /* "GUEST <- HOST\n" each, the root written "T" */
};

/* root + rel; a few at a time. */
static const char *T(const char *rel)
{
	static char bufs[8][PATH_MAX];
	static unsigned int next;
	char *buf = bufs[next++ % 8];

	snprintf(buf, PATH_MAX, "%s%s", root, rel);
	return buf;
}

__attribute__((format(printf, 1, 2))) static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int status;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	status = system(cmd);
	if (status != 0)
		fprintf(stderr, "test_elf_deps: setup command failed (%d): %s\n", status, cmd);
	return status;
}

static int write_text(const char *rel, const char *text)
{
	FILE *f = fopen(T(rel), "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Every occurrence of the root replaced by "T". */
static void untree(char *s)
{
	size_t n = strlen(root);

	for (char *at = strstr(s, root); at; at = strstr(at + 1, root)) {
		*at = 'T';
		memmove(at + 1, at + n, strlen(at + n) + 1);
	}
}

/* elf_deps_find with stderr captured. */
static struct result *find_with(const char *prog, const char *guest,
				const struct elf_deps_config *cfg)
{
	static struct result r;
	struct stderr_capture capture;
	size_t at = 0;

	memset(&r, 0, sizeof(r));
	stderr_capture_begin(&capture);
	r.rc = elf_deps_find(prog, guest, cfg, &r.deps);
	stderr_capture_end(&capture, r.message, sizeof(r.message));
	untree(r.message);
	for (size_t i = 0; i < r.deps.count; i++)
		at += (size_t)snprintf(r.items + at, sizeof(r.items) - at, "%s <- %s\n",
				       r.deps.items[i].guest_path, r.deps.items[i].host_path);
	untree(r.items);
	return &r;
}

/* A program of the fake tree, with the fake tree's system. */
static struct result *find(const char *prog_rel, const char *guest)
{
	struct elf_deps_config cfg = {.root = root};

	return find_with(T(prog_rel), guest, &cfg);
}

static void expect_items(struct result *r, const char *interp, const char *items)
{
	assert_string_equal(r->message, "");
	assert_int_equal(r->rc, 0);
	assert_true(r->deps.dynamic);
	assert_string_equal(r->deps.interp, interp);
	assert_string_equal(r->items, items);
	elf_deps_free(&r->deps);
}

static void expect_error(struct result *r, int rc, const char *message)
{
	assert_string_equal(r->message, message);
	assert_int_equal(r->rc, rc);
	assert_false(r->deps.dynamic);
	assert_int_equal(r->deps.count, 0);
	assert_null(r->deps.items);
	assert_string_equal(r->deps.interp, "");
}

static void expect_nothing(struct result *r)
{
	expect_error(r, 0, "");
}

/* --- the fake tree --------------------------------------------------------- */

static int make_dirs(void)
{
	return sh("cd %s && mkdir -p src etc/ld.so.conf.d/more.d usr/lib/x86_64-linux-gnu "
		  "usr/lib/x86_64-linux-musl usr/lib32/libr.so.1 usr/local/lib lib64 opt/a/lib "
		  "opt/q/lib opt/musl/lib opt/abs opt/lib/x86_64-linux-gnu app/bin app/lib "
		  "app/mlib app/badlib app/x86_64 bad && ln -s usr/lib lib && "
		  "ln -s " GLIBC_DIR "/ld-linux-x86-64.so.2 lib64/ld-linux-x86-64.so.2 && "
		  "ln -s x86_64-linux-musl/libc.so usr/lib/ld-musl-x86_64.so.1",
		  root);
}

static int write_sources(void)
{
	return write_text("/src/lib.c", "int lib_symbol(void) { return 0; }\n") ||
	       write_text("/src/main.c", "int main(void) { return 0; }\n") ||
	       write_text("/src/script", "#!/bin/sh\nexit 0\n");
}

/* ld.so.conf: sorted includes, a relative one, hwcap, comments, "=TYPE", a trailing slash. */
static int write_conf(void)
{
	return write_text("/etc/ld.so.conf", "# the fake tree's\n"
					     "include /etc/ld.so.conf.d/*.conf\n"
					     "/opt/q/lib/   # after the includes\n") ||
	       write_text("/etc/ld.so.conf.d/b-cross.conf", "/opt/a/lib\n") ||
	       write_text("/etc/ld.so.conf.d/a-lib32.conf", "hwcap 0 nosegneg\n/usr/lib32\n") ||
	       write_text("/etc/ld.so.conf.d/c-more.conf", "include more.d/*.conf\n") ||
	       write_text("/etc/ld.so.conf.d/more.d/x.conf", "  /usr/local/lib=libc6\t\n") ||
	       write_text("/etc/ld.so.conf.d/notes.txt", "/not/a/conf\n") ||
	       write_text("/etc/ld-musl-x86_64.path",
			  "/usr/lib/x86_64-linux-musl\n/opt/musl/lib:/usr/lib\n");
}

/* The fake system: ld.so, libc (needs ld.so), libgcc_s, musl's libc; none of them real. */
static int build_system(void)
{
	const char *g = T(GLIBC_DIR);

	return sh(CC_FAKE " -Wl,-soname,ld-linux-x86-64.so.2 -o %s/ld-linux-x86-64.so.2 "
			  "%s/src/lib.c",
		  g, root) ||
	       sh(CC_FAKE " -Wl,-soname,libc.so.6 -o %s/libc.so.6 %s/src/lib.c "
			  "%s/ld-linux-x86-64.so.2",
		  g, root, g) ||
	       sh(CC_FAKE
		  " -Wl,-soname,libgcc_s.so.1 -o %s/libgcc_s.so.1 %s/src/lib.c %s/libc.so.6",
		  g, root, g) ||
	       sh(CC_FAKE " -o %s/usr/lib/x86_64-linux-musl/libc.so %s/src/lib.c", root, root);
}

/* liba (needs libb) in app/lib; libb there and in the system; RUNPATH and RPATH programs. */
static int build_runpath_rpath(void)
{
	const char *r = root;

	return sh(CC_LIB " -Wl,-soname,libb.so.1 -o %s" GLIBC_DIR "/libb.so.1 %s/src/lib.c", r,
		  r) ||
	       sh("cp %s" GLIBC_DIR "/libb.so.1 %s/app/lib/libb.so.1", r, r) ||
	       sh(CC_LIB " -Wl,-soname,liba.so.1 -o %s/app/lib/liba.so.1 %s/src/lib.c "
			 "%s/app/lib/libb.so.1",
		  r, r, r) ||
	       sh(CC_PROG " -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/../lib' -o "
			  "%s/app/bin/runpath %s/src/main.c %s/app/lib/liba.so.1",
		  r, r, r) ||
	       sh(CC_PROG " -Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN/../lib' -o "
			  "%s/app/bin/rpath %s/src/main.c %s/app/lib/liba.so.1",
		  r, r, r) ||
	       sh(CC_PROG " -Wl,-z,nodefaultlib -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/../lib' "
			  "-o %s/app/bin/nodeflib %s/src/main.c %s/app/lib/liba.so.1",
		  r, r, r) ||
	       sh(CC_PROG " -o %s/app/bin/plain %s/src/main.c", r, r);
}

/*
 * libq and libr in the ld.so.conf directories, behind candidates a loader
 * passes over: a 32-bit and an aarch64 libq, a linker script, a directory.
 */
static int build_conf_libs(void)
{
	const char *r = root;

	return sh(CC_LIB " -Wl,-soname,libq.so.1 -o %s/opt/q/lib/libq.so.1.0.0 %s/src/lib.c", r,
		  r) ||
	       sh("ln -s libq.so.1.0.0 %s/opt/q/lib/libq.so.1", r) ||
	       sh(CC_LIB " -Wl,-soname,libr.so.1 -o %s/opt/a/lib/libr.so.1 %s/src/lib.c", r, r) ||
	       sh("cp %s/opt/a/lib/libr.so.1 %s/usr/local/lib/libr.so.1", r, r) ||
	       sh("cp %s/opt/q/lib/libq.so.1.0.0 %s/usr/lib32/libq.so.1 && printf '\\001' | dd "
		  "of=%s/usr/lib32/libq.so.1 bs=1 seek=4 conv=notrunc status=none",
		  r, r, r) ||
	       sh("cp %s/opt/q/lib/libq.so.1.0.0 %s/opt/a/lib/libq.so.1 && printf '\\267' | dd "
		  "of=%s/opt/a/lib/libq.so.1 bs=1 seek=18 conv=notrunc status=none",
		  r, r, r) ||
	       write_text("/usr/local/lib/libq.so.1",
			  "/* GNU ld script */\nGROUP ( libq.so.1 )\n") ||
	       sh(CC_PROG " -o %s/app/bin/conf %s/src/main.c %s/opt/q/lib/libq.so.1 "
			  "%s/opt/a/lib/libr.so.1",
		  r, r, r, r);
}

/* A cycle (libcyc1 <-> libcyc2), missing libraries, a corrupt one. */
static int build_troubles(void)
{
	const char *r = root;

	return sh(CC_LIB " -Wl,-soname,libcyc1.so.1 -o %s/src/libcyc1.so.1 %s/src/lib.c", r, r) ||
	       sh(CC_LIB " -Wl,-soname,libcyc2.so.1 -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN' "
			 "-o %s/app/lib/libcyc2.so.1 %s/src/lib.c %s/src/libcyc1.so.1",
		  r, r, r) ||
	       sh(CC_LIB " -Wl,-soname,libcyc1.so.1 -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN' "
			 "-o %s/app/lib/libcyc1.so.1 %s/src/lib.c %s/app/lib/libcyc2.so.1",
		  r, r, r) ||
	       sh(CC_PROG " -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/../lib' -o %s/app/bin/cycle "
			  "%s/src/main.c %s/app/lib/libcyc1.so.1",
		  r, r, r) ||
	       sh(CC_LIB " -Wl,-soname,libmissing.so.1 -o %s/src/libmissing.so.1 %s/src/lib.c", r,
		  r) ||
	       sh(CC_PROG " -o %s/app/bin/missing %s/src/main.c %s/src/libmissing.so.1", r, r, r) ||
	       sh(CC_LIB " -Wl,-soname,libd.so.1 -o %s/app/lib/libd.so.1 %s/src/lib.c "
			 "%s/src/libmissing.so.1",
		  r, r, r) ||
	       sh(CC_PROG " -Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN/../lib' "
			  "-Wl,-rpath-link,%s/src -o %s/app/bin/deepmissing %s/src/main.c "
			  "%s/app/lib/libd.so.1",
		  r, r, r, r) ||
	       sh(CC_LIB " -Wl,-soname,libbad.so.1 -o %s/app/badlib/libbad.so.1 %s/src/lib.c", r,
		  r) ||
	       sh(CC_PROG " -Wl,-rpath,'$ORIGIN/../badlib' -o %s/app/bin/usesbad %s/src/main.c "
			  "%s/app/badlib/libbad.so.1",
		  r, r, r);
}

/* $LIB, $PLATFORM, ${ORIGIN}; a DT_NEEDED that is an absolute path, one that is relative. */
static int build_names(void)
{
	const char *r = root;

	return sh(CC_LIB " -Wl,-soname,libt.so.1 -o %s/opt/lib/x86_64-linux-gnu/libt.so.1 "
			 "%s/src/lib.c",
		  r, r) ||
	       sh(CC_LIB " -Wl,-soname,libu.so.1 -o %s/app/x86_64/libu.so.1 %s/src/lib.c", r, r) ||
	       sh(CC_PROG
		  " -Wl,--enable-new-dtags -Wl,-rpath,'/opt/$LIB:${ORIGIN}/../$PLATFORM' "
		  "-o %s/app/bin/tokens %s/src/main.c %s/opt/lib/x86_64-linux-gnu/libt.so.1 "
		  "%s/app/x86_64/libu.so.1",
		  r, r, r, r) ||
	       sh(CC_LIB " -Wl,-soname,/opt/abs/libnos.so -o %s/opt/abs/libnos.so %s/src/lib.c", r,
		  r) ||
	       sh(CC_PROG " -o %s/app/bin/absneeded %s/src/main.c %s/opt/abs/libnos.so", r, r, r) ||
	       sh(CC_LIB " -o %s/opt/abs/librel.so %s/src/lib.c", r, r) ||
	       sh("cd %s && " CC_PROG " -o app/bin/relneeded src/main.c opt/abs/librel.so", r);
}

/* musl: libmu in the path file's /opt/musl/lib, libmv in /usr/lib, libmw by RUNPATH. */
static int build_musl(void)
{
	const char *r = root;

	return sh(MUSL_LIB " -Wl,-soname,libmw.so.1 -o %s/app/mlib/libmw.so.1 %s/src/lib.c", r,
		  r) ||
	       sh(MUSL_LIB " -Wl,-soname,libmu.so.1 -o %s/opt/musl/lib/libmu.so.1 %s/src/lib.c "
			   "%s/app/mlib/libmw.so.1",
		  r, r, r) ||
	       sh(MUSL_LIB " -Wl,-soname,libmv.so.1 -o %s/usr/lib/libmv.so.1 %s/src/lib.c", r, r) ||
	       sh("musl-gcc -Wl,--no-as-needed -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/../mlib' "
		  "-Wl,-rpath-link,%s/app/mlib -o %s/app/bin/muslprog %s/src/main.c "
		  "%s/opt/musl/lib/libmu.so.1 %s/usr/lib/libmv.so.1",
		  r, r, r, r, r);
}

static int build_static(void)
{
	const char *r = root;

	return sh("cc -static -o %s/app/bin/static %s/src/main.c", r, r) ||
	       sh("cc -static-pie -o %s/app/bin/static-pie %s/src/main.c", r, r);
}

static int setup_tree(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	snprintf(root, sizeof(root), "%s/rewind-test-elf-deps-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root))
		return -1;
	return make_dirs() || write_sources() || write_conf() || build_system() ||
			       build_runpath_rpath() || build_conf_libs() || build_troubles() ||
			       build_names() || build_musl() || build_static()
		       ? -1
		       : 0;
}

static int remove_tree(void **state)
{
	(void)state;
	return sh("rm -rf '%s'", root);
}

/* --- ELF surgery for corrupt programs -------------------------------------- */

struct image {
	uint8_t *data;
	size_t size;
};

static struct image load_image(const char *rel)
{
	struct image im = {0};
	FILE *f = fopen(T(rel), "rb");
	struct stat st;

	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &st), 0);
	im.size = (size_t)st.st_size;
	im.data = malloc(im.size);
	assert_non_null(im.data);
	assert_int_equal(fread(im.data, 1, im.size, f), im.size);
	fclose(f);
	return im;
}

static void save_image(const char *rel, const struct image *im, size_t size)
{
	FILE *f = fopen(T(rel), "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(im->data, 1, size, f), size);
	assert_int_equal(fclose(f), 0);
}

static Elf64_Ehdr *ehdr(const struct image *im)
{
	return (Elf64_Ehdr *)im->data;
}

static Elf64_Phdr *phdr(const struct image *im, uint32_t type)
{
	Elf64_Phdr *ph = (Elf64_Phdr *)(im->data + ehdr(im)->e_phoff);

	for (unsigned int i = 0; i < ehdr(im)->e_phnum; i++)
		if (ph[i].p_type == type)
			return &ph[i];
	fail_msg("no program header of type %u", type);
	return NULL;
}

static Elf64_Dyn *dyn(const struct image *im, int64_t tag)
{
	Elf64_Dyn *d = (Elf64_Dyn *)(im->data + phdr(im, PT_DYNAMIC)->p_offset);

	for (; d->d_tag != DT_NULL; d++)
		if (d->d_tag == tag)
			return d;
	fail_msg("no dynamic entry of tag %ld", (long)tag);
	return NULL;
}

/* A copy of app/bin/plain with one change, as bad/NAME; expects the error it makes. */
static void expect_corrupt(const char *name, void (*change)(struct image *), size_t size, int rc,
			   const char *why)
{
	struct image im = load_image("/app/bin/plain");
	char rel[64], message[512];

	change(&im);
	snprintf(rel, sizeof(rel), "/bad/%s", name);
	save_image(rel, &im, size ? size : im.size);
	free(im.data);
	snprintf(message, sizeof(message), "rewind: error: T/bad/%s %s\n", name, why);
	expect_error(find(rel, "/bin/bad"), rc, message);
}

static void keep(struct image *im)
{
	(void)im;
}

static void phoff_past_end(struct image *im)
{
	ehdr(im)->e_phoff = im->size - 10;
}

static void phnum_huge(struct image *im)
{
	ehdr(im)->e_phnum = 0xffff;
}

static void phentsize_small(struct image *im)
{
	ehdr(im)->e_phentsize = 32;
}

static void class_32(struct image *im)
{
	im->data[EI_CLASS] = ELFCLASS32;
}

static void big_endian(struct image *im)
{
	im->data[EI_DATA] = ELFDATA2MSB;
}

static void machine_aarch64(struct image *im)
{
	ehdr(im)->e_machine = EM_AARCH64;
}

static void interp_no_nul(struct image *im)
{
	Elf64_Phdr *ph = phdr(im, PT_INTERP);

	ph->p_filesz = strlen((char *)im->data + ph->p_offset);
}

static void interp_past_end(struct image *im)
{
	phdr(im, PT_INTERP)->p_offset = im->size + 1;
}

static void interp_empty(struct image *im)
{
	im->data[phdr(im, PT_INTERP)->p_offset] = '\0';
}

static void interp_relative(struct image *im)
{
	im->data[phdr(im, PT_INTERP)->p_offset] = 'x';
}

static void dynamic_past_end(struct image *im)
{
	phdr(im, PT_DYNAMIC)->p_offset = im->size - 8;
}

static void strtab_unmapped(struct image *im)
{
	dyn(im, DT_STRTAB)->d_un.d_ptr = 0xdead00000000;
}

static void strsz_huge(struct image *im)
{
	dyn(im, DT_STRSZ)->d_un.d_val = (uint64_t)1 << 40;
}

static void needed_outside(struct image *im)
{
	dyn(im, DT_NEEDED)->d_un.d_val = 0x7fffffff;
}

/* The string table ends inside "libc.so.6". */
static void needed_no_nul(struct image *im)
{
	dyn(im, DT_STRSZ)->d_un.d_val = dyn(im, DT_NEEDED)->d_un.d_val + 3;
}

static void test_corrupt_programs(void **state)
{
	(void)state;
	expect_corrupt("truncated", keep, 40, -ENOEXEC,
		       "is a corrupt ELF file: its ELF header is truncated (40 bytes)");
	expect_corrupt("phoff", phoff_past_end, 0, -ENOEXEC,
		       "is a corrupt ELF file: its program headers lie past the end of the file");
	expect_corrupt("phnum", phnum_huge, 0, -ENOEXEC,
		       "is a corrupt ELF file: it has 65535 program headers, more than the kernel "
		       "loads (1170)");
	expect_corrupt("phentsize", phentsize_small, 0, -ENOEXEC,
		       "is a corrupt ELF file: its program headers are 32 bytes each, not 56");
	expect_corrupt("interp-nul", interp_no_nul, 0, -ENOEXEC,
		       "is a corrupt ELF file: its interpreter's path (PT_INTERP) has no "
		       "terminating NUL");
	expect_corrupt(
		"interp-end", interp_past_end, 0, -ENOEXEC,
		"is a corrupt ELF file: its PT_INTERP segment lies past the end of the file");
	expect_corrupt("interp-empty", interp_empty, 0, -ENOEXEC,
		       "is a corrupt ELF file: its interpreter's path (PT_INTERP) is empty");
	expect_corrupt("interp-relative", interp_relative, 0, -ENOEXEC,
		       "names the interpreter xlib64/ld-linux-x86-64.so.2, a relative path: the "
		       "kernel would look for it in the guest's working directory");
	expect_corrupt("dynamic", dynamic_past_end, 0, -ENOEXEC,
		       "is a corrupt ELF file: its dynamic section (PT_DYNAMIC) lies past the end "
		       "of the file");
	expect_corrupt(
		"strtab", strtab_unmapped, 0, -ENOEXEC,
		"is a corrupt ELF file: its string table (DT_STRTAB) lies outside its loaded "
		"segments");
	expect_corrupt(
		"strsz", strsz_huge, 0, -ENOEXEC,
		"is a corrupt ELF file: its string table (DT_STRSZ) runs past the end of its "
		"segment");
	expect_corrupt("needed-outside", needed_outside, 0, -ENOEXEC,
		       "is a corrupt ELF file: its DT_NEEDED string lies outside its string table");
	expect_corrupt("needed-nul", needed_no_nul, 0, -ENOEXEC,
		       "is a corrupt ELF file: its DT_NEEDED string has no terminating NUL");
}

static void test_not_x86_64_programs(void **state)
{
	(void)state;
	expect_corrupt("class32", class_32, 0, -ENOEXEC,
		       "is a 32-bit ELF file: the guest runs x86-64 programs only");
	expect_corrupt("big-endian", big_endian, 0, -ENOEXEC,
		       "is a big-endian ELF file: the guest runs x86-64 programs only");
	expect_corrupt("aarch64", machine_aarch64, 0, -ENOEXEC,
		       "is an ELF file for machine 183, not x86-64: the guest runs x86-64 programs "
		       "only");
}

/* Is rc one of the answers a corrupt program may get? */
static bool tolerated(int rc)
{
	return rc == 0 || rc == -ENOEXEC || rc == -ENOENT || rc == -ENAMETOOLONG || rc == -EINVAL ||
	       rc == -ENOTDIR || rc == -EISDIR || rc == -ELOOP;
}

/* One byte of every header, segment and table the parser reads, changed: never a crash. */
static void test_every_byte_changed(void **state)
{
	struct image im = load_image("/app/bin/plain");
	const Elf64_Phdr *interp = phdr(&im, PT_INTERP), *dynamic = phdr(&im, PT_DYNAMIC);
	size_t regions[][2] = {
		{0, ehdr(&im)->e_phoff + ehdr(&im)->e_phnum * sizeof(Elf64_Phdr)},
		{interp->p_offset, interp->p_offset + interp->p_filesz},
		{dynamic->p_offset, dynamic->p_offset + dynamic->p_filesz},
	};
	struct elf_deps_config cfg = {.root = root, .ld_so_conf = "/etc/none.conf"}; /* faster */
	size_t tried = 0;

	(void)state;
	for (size_t r = 0; r < 3; r++) {
		for (size_t at = regions[r][0]; at < regions[r][1]; at++) {
			for (unsigned int flip = 0x01; flip <= 0x80; flip <<= 7) {
				struct result *res;

				im.data[at] ^= (uint8_t)flip;
				save_image("/bad/flipped", &im, im.size);
				im.data[at] ^= (uint8_t)flip;
				res = find_with(T("/bad/flipped"), "/bin/flipped", &cfg);
				if (!tolerated(res->rc))
					fail_msg("byte %zu ^ %#x: rc %d", at, flip, res->rc);
				elf_deps_free(&res->deps);
				tried++;
			}
		}
	}
	assert_int_equal(tried, 2 * (regions[0][1] + interp->p_filesz + dynamic->p_filesz));
	free(im.data);
}

/* --- resolution in the fake tree ------------------------------------------- */

/* RUNPATH: only the program's own needs search it; liba's libb comes from the system. */
static void test_runpath_origin(void **state)
{
	(void)state;
	expect_items(find("/app/bin/runpath", "/srv/t/runpath"), "/lib64/ld-linux-x86-64.so.2",
		     RUNPATH_ITEMS);
}

/* RPATH: the program's is searched for its libraries' needs too (libb from app/lib). */
static void test_rpath_inherited(void **state)
{
	(void)state;
	expect_items(find("/app/bin/rpath", "/srv/t/rpath"), "/lib64/ld-linux-x86-64.so.2",
		     LD_ITEM "/srv/lib/liba.so.1 <- T/app/lib/liba.so.1\n" LIBC_ITEM
			     "/srv/lib/libb.so.1 <- T/app/lib/libb.so.1\n" GCC_ITEM);
}

/* A guest path that is relative or untidy is taken from /. */
static void test_guest_path_normalized(void **state)
{
	(void)state;
	expect_items(find("/app/bin/rpath", "opt//x/./y/../rpath"), "/lib64/ld-linux-x86-64.so.2",
		     LD_ITEM "/opt/lib/liba.so.1 <- T/app/lib/liba.so.1\n" LIBC_ITEM
			     "/opt/lib/libb.so.1 <- T/app/lib/libb.so.1\n" GCC_ITEM);
}

/* ld.so.conf's directories in order (sorted includes first), every unfit candidate passed over. */
static void test_ld_so_conf_order_and_skips(void **state)
{
	(void)state;
	expect_items(
		find("/app/bin/conf", "/bin/conf"), "/lib64/ld-linux-x86-64.so.2",
		LD_ITEM
		"/lib/x86_64-linux-gnu/libq.so.1 <- T/opt/q/lib/libq.so.1.0.0\n"
		"/lib/x86_64-linux-gnu/libr.so.1 <- T/opt/a/lib/libr.so.1\n" LIBC_ITEM GCC_ITEM);
}

/* Without ld.so.conf, only the default directories: libq is not found. */
static void test_missing_ld_so_conf(void **state)
{
	struct elf_deps_config cfg = {.root = root, .ld_so_conf = "/etc/none.conf"};

	(void)state;
	expect_error(find_with(T("/app/bin/conf"), "/bin/conf", &cfg), -ENOENT,
		     "rewind: error: cannot find libq.so.1, needed by T/app/bin/conf, in any "
		     "directory glibc's loader searches (/lib/x86_64-linux-gnu, "
		     "/usr/lib/x86_64-linux-gnu, /lib, /usr/lib)\n");
}

static void test_include_loop_refused(void **state)
{
	struct elf_deps_config cfg = {.root = root, .ld_so_conf = "/etc/loop.conf"};

	(void)state;
	assert_int_equal(write_text("/etc/loop.conf", "include loop.conf\n"), 0);
	expect_error(find_with(T("/app/bin/plain"), "/bin/plain", &cfg), -ELOOP,
		     "rewind: error: T/etc/loop.conf: ld.so.conf includes nest more than 16 deep "
		     "(an include loop?)\n");
}

static void test_cycle_each_once(void **state)
{
	(void)state;
	expect_items(find("/app/bin/cycle", "/bin/cycle"), "/lib64/ld-linux-x86-64.so.2",
		     LD_ITEM "/lib/libcyc1.so.1 <- T/app/lib/libcyc1.so.1\n" LIBC_ITEM
			     "/lib/libcyc2.so.1 <- T/app/lib/libcyc2.so.1\n" GCC_ITEM);
}

static void test_missing_library(void **state)
{
	(void)state;
	expect_error(find("/app/bin/missing", "/bin/missing"), -ENOENT,
		     "rewind: error: cannot find libmissing.so.1, needed by T/app/bin/missing, in "
		     "any directory glibc's loader searches (" SYS_DIRS ")\n");
}

/* Missing deeper down: the message names the library that needs it. */
static void test_missing_library_of_library(void **state)
{
	(void)state;
	expect_error(
		find("/app/bin/deepmissing", "/bin/deepmissing"), -ENOENT,
		"rewind: error: cannot find libmissing.so.1, needed by T/app/lib/libd.so.1, in "
		"any directory glibc's loader searches (/app/bin/../lib, " SYS_DIRS ")\n");
}

static void test_corrupt_library(void **state)
{
	struct image im = load_image("/app/badlib/libbad.so.1");

	(void)state;
	phdr(&im, PT_DYNAMIC)->p_offset = im.size;
	save_image("/app/badlib/libbad.so.1", &im, im.size);
	free(im.data);
	expect_error(find("/app/bin/usesbad", "/bin/usesbad"), -ENOEXEC,
		     "rewind: error: T/app/badlib/libbad.so.1 (libbad.so.1, needed by "
		     "T/app/bin/usesbad) is a corrupt ELF file: its dynamic section (PT_DYNAMIC) "
		     "lies past the end of the file\n");
}

/* DF_1_NODEFLIB: the program's needs are looked for in its RUNPATH only. */
static void test_nodeflib(void **state)
{
	(void)state;
	expect_error(find("/app/bin/nodeflib", "/bin/nodeflib"), -ENOENT,
		     "rewind: error: cannot find libc.so.6, needed by T/app/bin/nodeflib, in any "
		     "directory glibc's loader searches (/app/bin/../lib)\n");
}

/* $LIB and $PLATFORM as Debian's ld.so expands them; an absolute entry stays in the guest. */
static void test_tokens(void **state)
{
	(void)state;
	expect_items(find("/app/bin/tokens", "/bin/tokens"), "/lib64/ld-linux-x86-64.so.2",
		     LD_ITEM "/opt/lib/x86_64-linux-gnu/libt.so.1 <- "
			     "T/opt/lib/x86_64-linux-gnu/libt.so.1\n"
			     "/x86_64/libu.so.1 <- T/app/x86_64/libu.so.1\n" LIBC_ITEM GCC_ITEM);
}

static void test_absolute_needed(void **state)
{
	(void)state;
	expect_items(find("/app/bin/absneeded", "/bin/absneeded"), "/lib64/ld-linux-x86-64.so.2",
		     LD_ITEM "/opt/abs/libnos.so <- T/opt/abs/libnos.so\n" LIBC_ITEM GCC_ITEM);
}

static void test_relative_needed_refused(void **state)
{
	(void)state;
	expect_error(find("/app/bin/relneeded", "/bin/relneeded"), -EINVAL,
		     "rewind: error: T/app/bin/relneeded needs opt/abs/librel.so, a relative path: "
		     "the guest's loader would look for it from its working directory\n");
}

/* musl: RUNPATH inherited, the path file's directories, libc.so is the loader itself. */
static void test_musl(void **state)
{
	(void)state;
	expect_items(find("/app/bin/muslprog", "/srv/t/muslprog"), "/lib/ld-musl-x86_64.so.1",
		     "/lib/ld-musl-x86_64.so.1 <- T/usr/lib/x86_64-linux-musl/libc.so\n"
		     "/lib/libmu.so.1 <- T/opt/musl/lib/libmu.so.1\n"
		     "/usr/lib/libmv.so.1 <- T/usr/lib/libmv.so.1\n"
		     "/srv/mlib/libmw.so.1 <- T/app/mlib/libmw.so.1\n");
}

/* Without /etc/ld-musl-x86_64.path, musl's defaults. */
static void test_musl_default_dirs(void **state)
{
	const char *path = T("/etc/ld-musl-x86_64.path"), *moved = T("/etc/moved.path");
	struct result *r;

	(void)state;
	assert_int_equal(rename(path, moved), 0);
	r = find("/app/bin/muslprog", "/srv/t/muslprog");
	assert_int_equal(rename(moved, path), 0);
	expect_error(r, -ENOENT,
		     "rewind: error: cannot find libmu.so.1, needed by T/app/bin/muslprog, in any "
		     "directory musl's loader searches (/app/bin/../mlib, /lib, /usr/local/lib, "
		     "/usr/lib)\n");
}

static void test_limits(void **state)
{
	struct elf_deps_config count = {.root = root, .max_objects = 3};
	struct elf_deps_config bytes = {.root = root};
	struct stat ld, liba, libc, libb, gcc;
	char message[1024];

	(void)state;
	expect_error(
		find_with(T("/app/bin/runpath"), "/bin/runpath", &count), -E2BIG,
		"rewind: error: T/app/bin/runpath needs more than 3 shared objects (libb.so.1, "
		"needed by T/app/lib/liba.so.1, is one too many)\n");
	assert_int_equal(stat(T(GLIBC_DIR "/ld-linux-x86-64.so.2"), &ld), 0);
	assert_int_equal(stat(T("/app/lib/liba.so.1"), &liba), 0);
	assert_int_equal(stat(T(GLIBC_DIR "/libc.so.6"), &libc), 0);
	bytes.max_bytes = (uint64_t)ld.st_size + (uint64_t)liba.st_size + 1;
	snprintf(message, sizeof(message),
		 "rewind: error: the shared objects T/app/bin/runpath needs come to more than %llu "
		 "bytes with libc.so.6 (%llu bytes, needed by T/app/bin/runpath)\n",
		 (unsigned long long)bytes.max_bytes, (unsigned long long)libc.st_size);
	expect_error(find_with(T("/app/bin/runpath"), "/bin/runpath", &bytes), -EFBIG, message);
	count.max_objects = 5; /* exactly as many as it needs */
	expect_items(find_with(T("/app/bin/runpath"), "/srv/t/runpath", &count),
		     "/lib64/ld-linux-x86-64.so.2", RUNPATH_ITEMS);
	assert_int_equal(stat(T(GLIBC_DIR "/libb.so.1"), &libb), 0);
	assert_int_equal(stat(T(GLIBC_DIR "/libgcc_s.so.1"), &gcc), 0);
	bytes.max_bytes += (uint64_t)libc.st_size + (uint64_t)libb.st_size + (uint64_t)gcc.st_size -
			   1; /* exactly as many bytes as they have */
	expect_items(find_with(T("/app/bin/runpath"), "/srv/t/runpath", &bytes),
		     "/lib64/ld-linux-x86-64.so.2", RUNPATH_ITEMS);
}

static void test_static_and_other_files(void **state)
{
	(void)state;
	expect_nothing(find("/app/bin/static", "/bin/static"));
	expect_nothing(find("/app/bin/static-pie", "/bin/static-pie"));
	expect_nothing(find("/src/script", "/bin/script"));
	expect_nothing(find("/app/lib/liba.so.1", "/lib/liba.so.1"));
	expect_error(find("/app/bin/nonexistent", "/bin/x"), -ENOENT,
		     "rewind: error: cannot read the program T/app/bin/nonexistent: No such file "
		     "or directory\n");
}

static void test_program_outside_root(void **state)
{
	struct elf_deps_config usr = {.root = T("/usr")}, app = {.root = T("/app/")};

	(void)state;
	expect_error(find_with(T("/app/bin/plain"), "/bin/plain", &usr), -EINVAL,
		     "rewind: error: the program T/app/bin/plain is outside T/usr, the tree its "
		     "libraries are looked for in\n");
	expect_error(find_with(T("/src/../app/bin/plain"), "/bin/plain", &app), -ENOENT,
		     "rewind: error: T/src/../app/bin/plain asks for the interpreter "
		     "/lib64/ld-linux-x86-64.so.2, which this host cannot provide: No such file or "
		     "directory\n");
}

/* --- the real host ------------------------------------------------------------ */

static int compare_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* lines sorted and joined by '\n'. */
static void join_sorted(char **lines, size_t n, char *out, size_t len)
{
	size_t at = 0;

	qsort(lines, n, sizeof(*lines), compare_lines);
	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		at += (size_t)snprintf(out + at, len - at, "%s\n", lines[i]);
}

/* "PATH REALPATH" for one line of ldd's: "NAME => PATH (ADDR)" or "PATH (ADDR)". */
static char *ldd_line(const char *line)
{
	char path[PATH_MAX], real[PATH_MAX], *out;
	const char *arrow = strstr(line, " => "), *p = arrow ? arrow + 4 : line;

	p += strspn(p, " \t");
	snprintf(path, sizeof(path), "%.*s", (int)strcspn(p, " \n"), p);
	if (path[0] != '/')
		return NULL; /* linux-vdso.so.1: the kernel's */
	assert_non_null(realpath(path, real));
	assert_true(asprintf(&out, "%s %s", path, real) > 0);
	return out;
}

/* /bin/ls finds what ldd lists, at the same paths, and libgcc_s.so.1. */
static void test_real_ls_matches_ldd(void **state)
{
	char *ldd[64], *ours[64], line[1024], want[8192], got[8192], real[PATH_MAX];
	size_t n_ldd = 0, n_ours = 0;
	struct elf_deps d;
	FILE *p;

	(void)state;
	if (access("/usr/bin/ldd", X_OK) != 0)
		skip();
	p = popen("env -i PATH=/usr/bin:/bin ldd /bin/ls", "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p) && n_ldd < 63) {
		char *entry = ldd_line(line);

		if (entry)
			ldd[n_ldd++] = entry;
	}
	assert_int_equal(pclose(p), 0);
	assert_non_null(realpath("/lib/x86_64-linux-gnu/libgcc_s.so.1", real));
	assert_true(asprintf(&ldd[n_ldd++], "/lib/x86_64-linux-gnu/libgcc_s.so.1 %s", real) > 0);
	assert_int_equal(elf_deps_find("/bin/ls", "/bin/ls", NULL, &d), 0);
	assert_true(d.dynamic);
	for (size_t i = 0; i < d.count && n_ours < 64; i++)
		assert_true(asprintf(&ours[n_ours++], "%s %s", d.items[i].guest_path,
				     d.items[i].host_path) > 0);
	join_sorted(ldd, n_ldd, want, sizeof(want));
	join_sorted(ours, n_ours, got, sizeof(got));
	assert_string_equal(got, want);
	for (size_t i = 0; i < n_ldd; i++)
		free(ldd[i]);
	for (size_t i = 0; i < n_ours; i++)
		free(ours[i]);
	elf_deps_free(&d);
}

/* A real musl-gcc program: its libc is its loader, and nothing else. */
static void test_real_musl_program(void **state)
{
	char real[PATH_MAX], want[PATH_MAX + 64];
	struct result *r;

	(void)state;
	assert_int_equal(sh("musl-gcc -o %s/src/musl-real %s/src/main.c", root, root), 0);
	assert_non_null(realpath("/lib/ld-musl-x86_64.so.1", real));
	snprintf(want, sizeof(want), "/lib/ld-musl-x86_64.so.1 <- %s\n", real);
	r = find_with(T("/src/musl-real"), "/bin/musl-real", NULL);
	expect_items(r, "/lib/ld-musl-x86_64.so.1", want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runpath_origin),
		cmocka_unit_test(test_rpath_inherited),
		cmocka_unit_test(test_guest_path_normalized),
		cmocka_unit_test(test_ld_so_conf_order_and_skips),
		cmocka_unit_test(test_missing_ld_so_conf),
		cmocka_unit_test(test_include_loop_refused),
		cmocka_unit_test(test_cycle_each_once),
		cmocka_unit_test(test_missing_library),
		cmocka_unit_test(test_missing_library_of_library),
		cmocka_unit_test(test_corrupt_library),
		cmocka_unit_test(test_nodeflib),
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_absolute_needed),
		cmocka_unit_test(test_relative_needed_refused),
		cmocka_unit_test(test_musl),
		cmocka_unit_test(test_musl_default_dirs),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_static_and_other_files),
		cmocka_unit_test(test_program_outside_root),
		cmocka_unit_test(test_corrupt_programs),
		cmocka_unit_test(test_not_x86_64_programs),
		cmocka_unit_test(test_every_byte_changed),
		cmocka_unit_test(test_real_ls_matches_ldd),
		cmocka_unit_test(test_real_musl_program),
	};

	return cmocka_run_group_tests_name("elf_deps", tests, setup_tree, remove_tree);
}

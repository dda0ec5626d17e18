/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the pure parts of --explain: finding the racing pair in two
 * event logs (harness/explain/racing_pair.c) and naming what its accesses
 * did (harness/explain/access_label.c), the program's guest path and the
 * objects at a run's load bases (harness/explain/symbols.c), hostile ELF
 * files refused as image/elf_file.c refuses them, reading files out of the
 * guest's archives (image/guest_files.c), including hostile archives, and
 * the guest path of an add spec (harness/job.c).
 */
#include "harness/explain/access_label.h"
#include "harness/explain/racing_pair.h"
#include "harness/explain/symbols.h"
#include "harness/job.h"
#include "image/cpio.h"
#include "image/guest_files.h"
#include "lib/file.h"
#include "tests/unit/stderr_capture.h"

#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

/* This test program's own file, the sound object the hostile ones are made from. */
static const uint8_t *elf_self;
static size_t elf_self_size;

#define COUNTER 0x410004u
#define LOAD	0x401358u /* the load and the store of counter++ */
#define STORE	0x401366u

struct builder {
	struct vm_event at[64];
	uint32_t count;
	uint64_t value; /* the counter's value as the log goes */
};

static void add(struct builder *b, uint32_t tid, bool store, uint32_t landed, uint64_t written)
{
	struct vm_event *e = &b->at[b->count];

	*e = (struct vm_event){
		.index = b->count + 1,
		.tid = tid,
		.what = REWIND_SCHED_WHAT(store ? REWIND_SCHED_WRITE : REWIND_SCHED_READ) | 4 |
			landed,
		.pc = store ? STORE : LOAD,
		.addr = COUNTER,
		.value = b->value,
		.after = store ? written : b->value};
	e->what |= VM_EVENT_AFTER;
	b->count++;
}

/* Thread tid increments n times, with nothing in between. */
static void increments(struct builder *b, uint32_t tid, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		add(b, tid, false, 0, 0);
		b->value++;
		add(b, tid, true, 0, b->value);
	}
}

static struct vm_event_log log_of(struct builder *b)
{
	return (struct vm_event_log){.at = b->at, .cap = 64, .count = b->count};
}

/*
 * Thread 15 increments twice; a demotion lands at its third store (failing:
 * thread 16 increments three times meanwhile, then 15 stores its stale
 * value) or at its third load (passing: 16 runs first, 15 loads after).
 */
static void test_lost_update_pair(void **state)
{
	struct builder fail = {0}, pass = {0};
	struct vm_event_log f, p;
	struct racing_pair pair = {0};

	(void)state;
	increments(&fail, 15, 2);
	add(&fail, 15, false, 0, 0);			   /* loads 2 */
	add(&fail, 15, true, VM_EVENT_LANDED_PRIORITY, 3); /* stores 3, after 16 ran */
	increments(&fail, 16, 3);			   /* 2 -> 5 */
	fail.at[fail.count - 1].after = 5;
	increments(&pass, 15, 2);
	add(&pass, 15, false, VM_EVENT_LANDED_PRIORITY, 0); /* its load comes after 16's */
	pass.at[pass.count - 1].after = 5;
	increments(&pass, 16, 3);
	pass.value = 5;
	add(&pass, 15, true, 0, 6);
	f = log_of(&fail);
	p = log_of(&pass);
	assert_int_equal(racing_pair_find(&f, &p, &pair), 0);
	assert_true(pair.found);
	assert_int_equal(pair.first.tid, 15); /* the load */
	assert_false(pair.first.write);
	assert_int_equal(pair.first.pc, LOAD);
	assert_true(pair.first.value_known);
	assert_int_equal(pair.first.value, 2);
	assert_int_equal(pair.second.tid, 16); /* the store it reads when the run passes */
	assert_true(pair.second.write);
	assert_int_equal(pair.second.pc, STORE);
	assert_int_equal(pair.second.value, 5);
	assert_true(pair.second_after);
}

static void test_same_runs_have_no_pair(void **state)
{
	struct builder a = {0};
	struct vm_event_log f;
	struct racing_pair pair = {0};

	(void)state;
	increments(&a, 15, 3);
	increments(&a, 16, 3);
	f = log_of(&a);
	assert_int_equal(racing_pair_find(&f, &f, &pair), 0);
	assert_false(pair.found);
}

/*
 * The store of the pair is a compare-and-swap (an ATOMIC event, what the
 * runtime gives __tsan_atomic*_compare_exchange_* and fetch_add): it is
 * named an atomic read-modify-write, never "reads", with what it left.
 */
static void test_atomic_store_is_named_so(void **state)
{
	const uint32_t read = REWIND_SCHED_WHAT(REWIND_SCHED_READ) | 4 | VM_EVENT_AFTER;
	const uint32_t cas = REWIND_SCHED_WHAT(REWIND_SCHED_ATOMIC) | 4 | VM_EVENT_AFTER;
	/* failing: 15 loads 0, then 16's CAS makes it 1; passing: the other way round */
	struct vm_event fail[2] = {
		{.index = 1, .tid = 15, .what = read, .pc = LOAD, .addr = COUNTER},
		{.index = 2, .tid = 16, .what = cas, .pc = STORE, .addr = COUNTER, .after = 1}};
	struct vm_event pass[2] = {
		{.index = 1, .tid = 16, .what = cas, .pc = STORE, .addr = COUNTER, .after = 1},
		{.index = 2,
		 .tid = 15,
		 .what = read,
		 .pc = LOAD,
		 .addr = COUNTER,
		 .value = 1,
		 .after = 1}};
	struct vm_event_log f = {.at = fail, .cap = 2, .count = 2};
	struct vm_event_log p = {.at = pass, .cap = 2, .count = 2};
	struct racing_pair pair = {0};

	(void)state;
	assert_int_equal(racing_pair_find(&f, &p, &pair), 0);
	assert_true(pair.found);
	assert_int_equal(pair.first.tid, 15);
	assert_string_equal(access_verb(pair.first.what), "reads");
	assert_int_equal(pair.second.tid, 16);
	assert_string_equal(access_verb(pair.second.what), "does an atomic read-modify-write at");
	assert_string_equal(access_kind(pair.second.what), "atomic read-modify-write");
	assert_true(pair.second.value_known);
	assert_int_equal(pair.second.value, 1); /* what the CAS left */
	assert_true(pair.second_after);
}

static void test_access_labels(void **state)
{
	(void)state;
	assert_string_equal(access_verb(REWIND_SCHED_WHAT(REWIND_SCHED_READ) | 8), "reads");
	assert_string_equal(access_verb(REWIND_SCHED_WHAT(REWIND_SCHED_WRITE) | 8), "writes");
	assert_string_equal(access_kind(REWIND_SCHED_WHAT(REWIND_SCHED_WRITE) | 8), "write");
	assert_string_equal(access_kind(REWIND_SCHED_WHAT(REWIND_SCHED_READ) | 1), "read");
	assert_string_equal(access_kind(REWIND_SCHED_WHAT(REWIND_SCHED_ATOMIC) | 8),
			    "atomic read-modify-write");
	assert_string_equal(access_kind(REWIND_SCHED_WHAT(REWIND_SCHED_SYNC)), "access");
}

/*
 * The program a job ran, by the guest path its exec record names: a
 * relative command (libevent's runner: --cwd /src/test -- ./regress) is
 * found from the job's working directory, as the guest found it.
 */
static void test_program_path_from_the_working_directory(void **state)
{
	char out[256];

	(void)state;
	assert_true(symbols_program_path("/src/test", "./regress", out, sizeof(out)));
	assert_string_equal(out, "/src/test/regress");
	assert_true(symbols_program_path("/src/test/", "../bin/./x", out, sizeof(out)));
	assert_string_equal(out, "/src/bin/x");
	assert_true(symbols_program_path("/src/test", "/bin/ledger", out, sizeof(out)));
	assert_string_equal(out, "/bin/ledger");
	assert_true(symbols_program_path(NULL, "./t", out, sizeof(out)));
	assert_string_equal(out, "/t");
	assert_false(symbols_program_path("/a/long/folder", "./x", out, 8));
}

/*
 * A PIE program and a shared object at the bases a run mapped them at
 * (this test program is a PIE, with a loader): an address is in an
 * object's code at its base plus the file address, not at the file
 * address; the private copies addr2line reads go when closed.
 */
static void test_objects_at_their_bases(void **state)
{
	const uint64_t base = 0x555555554000ull, lib = 0x7f0000100000ull;
	struct symbols *s = calloc(1, sizeof(*s));
	uint8_t *elf, *copy;
	size_t size;
	uint64_t text;

	(void)state;
	assert_non_null(s);
	assert_int_equal(file_read_max("/proc/self/exe", 1u << 30, "test", &elf, &size), 0);
	copy = malloc(size);
	assert_non_null(copy);
	memcpy(copy, elf, size);
	assert_int_equal(symbols_open(s, elf, size), 0);
	assert_true(symbols_need_bases(s)); /* a PIE with a loader */
	text = s->obj[0].text_lo;
	assert_true(symbols_in_text(s, text)); /* its file addresses, until mapped */
	assert_int_equal(symbols_mapped_at(s, "/bin/t", elf, size, base + s->obj[0].first), 0);
	assert_int_equal(s->count, 1); /* the program itself, rebased */
	assert_true(symbols_in_text(s, base + text));
	assert_false(symbols_in_text(s, text));
	assert_int_equal(symbols_mapped_at(s, "/lib/libt.so.1", copy, size, lib), 0);
	assert_int_equal(s->count, 2);
	assert_true(symbols_in_text(s, lib + text - s->obj[1].first));
	assert_false(symbols_in_text(s, lib - 4096));
	assert_int_equal(access(s->obj[1].path, F_OK), 0);
	symbols_close(s);
	assert_int_equal(access(s->obj[1].path, F_OK), -1);
	free(copy);
	free(elf);
	free(s);
}

/* What fn(s, elf, size) wrote to stderr into out; its return value. */
static int with_stderr(int (*fn)(struct symbols *, const uint8_t *, size_t), struct symbols *s,
		       const uint8_t *elf, size_t size, char *out, size_t len)
{
	struct stderr_capture capture;
	int rc;

	stderr_capture_begin(&capture);
	rc = fn(s, elf, size);
	stderr_capture_end(&capture, out, len);
	return rc;
}

static int open_program(struct symbols *s, const uint8_t *elf, size_t size)
{
	return symbols_open(s, elf, size);
}

static int map_library(struct symbols *s, const uint8_t *elf, size_t size)
{
	return symbols_mapped_at(s, "/lib/libt.so.1", elf, size, 0x7f0000100000ull);
}

/* A hostile file refused by the program's open (or a library's mapping) with its message. */
static void expect_refused(int (*fn)(struct symbols *, const uint8_t *, size_t), const uint8_t *elf,
			   size_t size, const char *message)
{
	struct symbols *s = calloc(1, sizeof(*s));
	unsigned int before;
	char said[512];

	assert_non_null(s);
	if (fn == map_library) /* the program first, then the library */
		assert_int_equal(symbols_open(s, elf_self, elf_self_size), 0);
	before = s->count;
	assert_int_equal(with_stderr(fn, s, elf, size, said, sizeof(said)), -ENOEXEC);
	assert_string_equal(said, message);
	assert_int_equal(s->count, before);
	symbols_close(s);
	free(s);
}

/*
 * Hostile ELF files (the guest's archives are the job's, untrusted): a
 * program or a library whose program headers are truncated, of the wrong
 * size, or not ELF at all, or with no executable segment, is refused with
 * image/elf_file.c's checks and words, and no code location is read from it.
 */
static void test_hostile_elf_files_are_refused(void **state)
{
	uint8_t *elf, *bad;
	Elf64_Ehdr eh;
	size_t size, cut;

	(void)state;
	assert_int_equal(file_read_max("/proc/self/exe", 1u << 30, "test", &elf, &size), 0);
	elf_self = elf;
	elf_self_size = size;
	bad = malloc(size);
	assert_non_null(bad);
	memcpy(&eh, elf, sizeof(eh));
	assert_true(eh.e_phnum > 2);

	cut = eh.e_phoff + 2 * sizeof(Elf64_Phdr); /* the file ends in its program headers */
	memcpy(bad, elf, cut);
	expect_refused(open_program, bad, cut,
		       "rewind: error: the test binary is a corrupt ELF file: its program headers "
		       "lie past the end of the file\n");
	expect_refused(map_library, bad, cut,
		       "rewind: error: /lib/libt.so.1 is a corrupt ELF file: its program headers "
		       "lie past the end of the file\n");

	memcpy(bad, elf, size);
	((Elf64_Ehdr *)bad)->e_phentsize = 32;
	expect_refused(open_program, bad, size,
		       "rewind: error: the test binary is a corrupt ELF file: its program headers "
		       "are 32 bytes each, not 56\n");

	memcpy(bad, elf, size);
	((Elf64_Ehdr *)bad)->e_ident[EI_CLASS] = ELFCLASS32;
	expect_refused(open_program, bad, size,
		       "rewind: error: the test binary is a 32-bit ELF file: the guest runs "
		       "x86-64 programs only\n");

	memcpy(bad, "#!/bin/sh\n", 10);
	expect_refused(open_program, bad, size,
		       "rewind: error: the test binary is not an ELF file: the guest runs x86-64 "
		       "programs only\n");

	memcpy(bad, elf, size);
	for (size_t i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr *ph = (Elf64_Phdr *)(bad + eh.e_phoff) + i;

		ph->p_flags &= ~(uint32_t)PF_X;
	}
	expect_refused(open_program, bad, size,
		       "rewind: error: the test binary has no executable segment inside the "
		       "file: no code locations\n");
	free(bad);
	free(elf);
}

static size_t archive(char **buf, const char *const *names, const char *const *contents, int n)
{
	size_t len = 0;
	FILE *out = open_memstream(buf, &len);
	struct cpio_writer w;

	assert_non_null(out);
	cpio_writer_init(&w, out);
	assert_int_equal(cpio_add_dir(&w, "bin", 0755), 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(
			cpio_add_file(&w, names[i], 0755, contents[i], strlen(contents[i])), 0);
	assert_int_equal(cpio_finish(&w), 0);
	fclose(out);
	return len;
}

static void test_guest_files_found_by_path(void **state)
{
	static const char *const names[] = {"bin/ledger", "rewind/job", "bin/ledger"};
	static const char *const contents[] = {"old", "/bin/ledger", "newer"};
	char *buf;
	size_t len = archive(&buf, names, contents, 3);
	struct guest_file f;
	unsigned int n = 0;

	(void)state;
	assert_true(guest_files_find((uint8_t *)buf, len, "/bin/ledger", &f));
	assert_int_equal(f.size, 5); /* the later entry wins */
	assert_memory_equal(f.data, "newer", 5);
	assert_int_equal(f.mode & 0777, 0755);
	assert_false(guest_files_find((uint8_t *)buf, len, "/bin/nothing", &f));
	for (size_t at = 0; guest_files_next((uint8_t *)buf, len, &at, &f);)
		n++;
	assert_int_equal(n, 3); /* regular files only: the directory is skipped */
	free(buf);
}

/* Cut or corrupted anywhere, an archive is read up to the damage and no further. */
static void test_guest_files_hostile_archives(void **state)
{
	static const char *const names[] = {"bin/a"};
	static const char *const contents[] = {"contents"};
	char *buf;
	size_t len = archive(&buf, names, contents, 1);
	struct guest_file f;

	(void)state;
	for (size_t cut = 0; cut < len; cut++) {
		uint8_t *copy = malloc(cut + 1);

		memcpy(copy, buf, cut);
		for (size_t at = 0; guest_files_next(copy, cut, &at, &f);)
			assert_true(f.data + f.size <= copy + cut);
		free(copy);
	}
	for (size_t i = 0; i < 110; i++) { /* every header byte of the first entry */
		char saved = buf[i];

		buf[i] = (char)0xff;
		for (size_t at = 0; guest_files_next((uint8_t *)buf, len, &at, &f);)
			assert_true(f.data + f.size <= (uint8_t *)buf + len);
		buf[i] = saved;
	}
	free(buf);
}

static void test_add_guest_path(void **state)
{
	char out[256];

	(void)state;
	job_add_guest_path("build/x/mytest", out, sizeof(out));
	assert_string_equal(out, "/bin/mytest");
	job_add_guest_path("fixed:/bin/ledger", out, sizeof(out));
	assert_string_equal(out, "/bin/ledger");
	job_add_guest_path("f:/tests/t:0644", out, sizeof(out));
	assert_string_equal(out, "/tests/t");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lost_update_pair),
		cmocka_unit_test(test_same_runs_have_no_pair),
		cmocka_unit_test(test_atomic_store_is_named_so),
		cmocka_unit_test(test_access_labels),
		cmocka_unit_test(test_program_path_from_the_working_directory),
		cmocka_unit_test(test_objects_at_their_bases),
		cmocka_unit_test(test_hostile_elf_files_are_refused),
		cmocka_unit_test(test_guest_files_found_by_path),
		cmocka_unit_test(test_guest_files_hostile_archives),
		cmocka_unit_test(test_add_guest_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

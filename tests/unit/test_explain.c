/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the pure parts of --explain: finding the racing pair in two
 * event logs (harness/explain/racing_pair.c), reading files out of the guest's
 * archives (image/guest_files.c), including hostile archives, and the
 * guest path of an add spec (harness/job.c).
 */
#include "harness/explain/racing_pair.h"
#include "harness/job.h"
#include "image/cpio.h"
#include "image/guest_files.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

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
		cmocka_unit_test(test_guest_files_found_by_path),
		cmocka_unit_test(test_guest_files_hostile_archives),
		cmocka_unit_test(test_add_guest_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the helpers every folder shares, one copy each: folders
 * made with their parents (file_make_dir, lib/file.c), the UTF-8 validator
 * (lib/utf8.c) and the hex fields of JSON files (json_add_hex,
 * lib/json_file.c), whose three forms stay what the file formats say.
 */
#include "lib/file.h"
#include "lib/json_file.h"
#include "lib/utf8.h"

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

static void test_make_dir_makes_the_folders_above(void **state)
{
	const char *tmp = getenv("TMPDIR");
	char root[512], deep[600], file[600];
	struct stat st;
	FILE *in_the_way;

	(void)state;
	snprintf(root, sizeof(root), "%s/rewind-test-one-copy-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(root));
	snprintf(deep, sizeof(deep), "%s/a/b/c", root);
	assert_int_equal(file_make_dir(deep), 0);
	assert_int_equal(stat(deep, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(file_make_dir(deep), 0); /* there already: fine */
	/* a file in the way: refused, said */
	snprintf(file, sizeof(file), "%s/a/f", root);
	in_the_way = fopen(file, "w");
	assert_non_null(in_the_way);
	fclose(in_the_way);
	snprintf(deep, sizeof(deep), "%s/a/f/g", root);
	assert_int_equal(file_make_dir(deep), -1);
	unlink(file);
	snprintf(deep, sizeof(deep), "%s/a/b/c", root);
	rmdir(deep);
	snprintf(deep, sizeof(deep), "%s/a/b", root);
	rmdir(deep);
	snprintf(deep, sizeof(deep), "%s/a", root);
	rmdir(deep);
	assert_int_equal(rmdir(root), 0);
}

static size_t utf8_of(const char *s)
{
	return utf8_sequence_length((const uint8_t *)s, strlen(s));
}

static void test_utf8_sequences(void **state)
{
	(void)state;
	assert_int_equal(utf8_of("a"), 1);
	assert_int_equal(utf8_of("\xc3\xa9"), 2);	  /* é */
	assert_int_equal(utf8_of("\xe2\x82\xac"), 3);	  /* € */
	assert_int_equal(utf8_of("\xf0\x9f\x98\x80"), 4); /* U+1F600 */
	assert_int_equal(utf8_of("\xc0\xaf"), 0);	  /* overlong */
	assert_int_equal(utf8_of("\xe0\x80\xaf"), 0);	  /* overlong */
	assert_int_equal(utf8_of("\xed\xa0\x80"), 0);	  /* a surrogate */
	assert_int_equal(utf8_of("\xf4\x90\x80\x80"), 0); /* past U+10FFFF */
	assert_int_equal(utf8_of("\x80"), 0);		  /* a stray continuation */
	assert_int_equal(utf8_of("\xe2\x82"), 0);	  /* cut short */
	assert_int_equal(utf8_sequence_length((const uint8_t *)"\xe2\x82\xac", 2), 0);
	assert_int_equal(utf8_sequence_length((const uint8_t *)"", 0), 0);
}

static void test_hex_fields_keep_their_forms(void **state)
{
	cJSON *o = cJSON_CreateObject();

	(void)state;
	json_add_hex(o, "hash", 0x682dfe81e849febcull, JSON_HEX_HASH);
	json_add_hex(o, "small", 0xa, JSON_HEX_HASH);
	json_add_hex(o, "address", 0x401a2b, JSON_HEX_ADDRESS);
	json_add_hex(o, "run_id", 0xabcull, JSON_HEX_PLAIN);
	assert_string_equal(cJSON_GetObjectItem(o, "hash")->valuestring, "0x682dfe81e849febc");
	assert_string_equal(cJSON_GetObjectItem(o, "small")->valuestring, "0x000000000000000a");
	assert_string_equal(cJSON_GetObjectItem(o, "address")->valuestring, "0x401a2b");
	assert_string_equal(cJSON_GetObjectItem(o, "run_id")->valuestring, "0000000000000abc");
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_make_dir_makes_the_folders_above),
		cmocka_unit_test(test_utf8_sequences),
		cmocka_unit_test(test_hex_fields_keep_their_forms),
	};

	return cmocka_run_group_tests_name("one_copy", tests, NULL, NULL);
}

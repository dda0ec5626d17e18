/* SPDX-License-Identifier: MIT */
/*
 * Which files of a CMake build folder a CTest test gets in its guest
 * (docs/explore.md, "kind": "ctest"): the folder without CMake's own
 * files, objects and static archives, and the other tests' programs. A
 * build folder of many static test programs would otherwise be copied
 * whole into every test's guest, where it lengthens the boot and every
 * restore.
 */
#ifndef REWIND_CTEST_FILES_H
#define REWIND_CTEST_FILES_H

#include <cjson/cJSON.h>
#include <stddef.h>

#define CTEST_FILES_MAX_ADDS 32 /* more parts than this: the folder is added whole */

struct ctest_files {
	const char *build; /* the build folder, resolved */
	char **programs;   /* every test's command words that are files in it, sorted */
	size_t count, cap;
};

/* Notes the command's words that name files in the build folder. 0 or -1 (out of memory). */
int ctest_files_note_command(struct ctest_files *f, const cJSON *command);

/*
 * Appends to test's "add" what the test with this command gets of the build
 * folder, each at its own path: 1 when it is the whole folder, 0 when it
 * is parts of it, -1 when it has more than CTEST_FILES_MAX_ADDS parts or a
 * part's path has a ':' (nothing appended: the caller adds the folder whole).
 */
int ctest_files_add(const struct ctest_files *f, const cJSON *command, cJSON *test);

void ctest_files_free(struct ctest_files *f);

#endif

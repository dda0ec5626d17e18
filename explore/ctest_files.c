/* SPDX-License-Identifier: MIT */
#include "explore/ctest_files.h"

#include "lib/file.h"

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WALK_MAX_DEPTH 32

/* What CMake, make, ninja and CTest keep for themselves; no test reads them. */
static const char *const BUILD_SYSTEM_FILES[] = {
	"CMakeFiles", "CMakeCache.txt",	       "cmake_install.cmake",  "CTestTestfile.cmake",
	"Makefile",   "build.ninja",	       ".ninja_deps",	       ".ninja_log",
	"Testing",    "DartConfiguration.tcl", "install_manifest.txt", NULL};

/* Linked into the programs, never read when they run. */
static const char *const LINKED_SUFFIXES[] = {".o", ".obj", ".a", NULL};

struct walk {
	const struct ctest_files *files;
	const cJSON *command;
	char **adds; /* grows while walking: a folder kept whole collapses to one */
	size_t count, cap;
	bool fall_back; /* add the folder whole: too many parts, a ':' in a path, an error */
};

static bool in_build(const struct ctest_files *f, const char *path)
{
	return file_path_under(path, f->build);
}

/*
 * Where path is, or would go, in the sorted list of programs: every file
 * of the build folder is looked up there once a test, so the lookup is a
 * binary search, not a walk of every test's words.
 */
static size_t program_slot(const struct ctest_files *f, const char *path, bool *found)
{
	size_t lo = 0, hi = f->count;

	*found = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = strcmp(f->programs[mid], path);

		if (!cmp) {
			*found = true;
			return mid;
		}
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool is_program(const struct ctest_files *f, const char *path)
{
	bool found;

	program_slot(f, path, &found);
	return found;
}

/* Puts path into the sorted list at its place (once). 0 or -1 (out of memory). */
static int add_program(struct ctest_files *f, const char *path)
{
	bool found;
	size_t at = program_slot(f, path, &found);
	char *copy;

	if (found)
		return 0;
	if (f->count == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 64;
		char **grown = realloc(f->programs, cap * sizeof(*grown));

		if (!grown)
			return -1;
		f->programs = grown;
		f->cap = cap;
	}
	if (!(copy = strdup(path)))
		return -1;
	memmove(f->programs + at + 1, f->programs + at, (f->count - at) * sizeof(*f->programs));
	f->programs[at] = copy;
	f->count++;
	return 0;
}

int ctest_files_note_command(struct ctest_files *f, const cJSON *command)
{
	const cJSON *word;
	struct stat st;

	cJSON_ArrayForEach(word, command)
	{
		const char *w = cJSON_GetStringValue(word);

		if (!w || !in_build(f, w) || is_program(f, w) || stat(w, &st) ||
		    !S_ISREG(st.st_mode))
			continue;
		if (add_program(f, w))
			return -1;
	}
	return 0;
}

static bool names_in(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

static bool ends_in(const char *name, const char *const *suffixes)
{
	size_t n = strlen(name);

	for (; *suffixes; suffixes++) {
		size_t s = strlen(*suffixes);

		if (n > s && !strcmp(name + n - s, *suffixes))
			return true;
	}
	return false;
}

static bool own_word(const cJSON *command, const char *path)
{
	const cJSON *word;

	cJSON_ArrayForEach(word, command)
	{
		if (cJSON_IsString(word) && !strcmp(word->valuestring, path))
			return true;
	}
	return false;
}

/* Is this entry of the folder left out of the test's guest? */
static bool left_out(const struct walk *w, const char *name, const char *path, bool is_dir)
{
	if (names_in(name, BUILD_SYSTEM_FILES))
		return true;
	if (is_dir)
		return false;
	if (ends_in(name, LINKED_SUFFIXES))
		return true;
	return is_program(w->files, path) && !own_word(w->command, path);
}

static void walk_keep(struct walk *w, const char *path)
{
	if (strchr(path, ':')) {
		w->fall_back = true; /* --add splits HOST:GUEST at the first ':' */
		return;
	}
	if (w->count == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		char **grown = realloc(w->adds, cap * sizeof(*grown));

		if (!grown) {
			w->fall_back = true;
			return;
		}
		w->adds = grown;
		w->cap = cap;
	}
	if (!(w->adds[w->count] = strdup(path)))
		w->fall_back = true;
	else
		w->count++;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static bool walk_dir(struct walk *w, const char *dir, int depth);

/* One entry of a folder: kept, left out, or a folder walked. True when all of it is kept. */
static bool walk_entry(struct walk *w, const char *dir, const char *name, int depth)
{
	char path[PATH_MAX];
	struct stat st;
	size_t mark = w->count;
	bool is_dir;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) ||
	    lstat(path, &st)) {
		w->fall_back = true;
		return false;
	}
	is_dir = S_ISDIR(st.st_mode);
	if (left_out(w, name, path, is_dir))
		return false;
	if (!is_dir) {
		walk_keep(w, path);
		return true;
	}
	if (!walk_dir(w, path, depth + 1))
		return false;
	while (w->count > mark) /* all of it kept: the folder in one piece */
		free(w->adds[--w->count]);
	walk_keep(w, path);
	return true;
}

static bool walk_dir(struct walk *w, const char *dir, int depth)
{
	struct dirent **list;
	int n = depth > WALK_MAX_DEPTH ? -1 : scandir(dir, &list, NULL, by_name);
	bool all = true;

	if (n < 0) {
		w->fall_back = true;
		return false;
	}
	for (int i = 0; i < n; i++) {
		const char *name = list[i]->d_name;

		if (strcmp(name, ".") && strcmp(name, "..") && !w->fall_back &&
		    !walk_entry(w, dir, name, depth))
			all = false;
		free(list[i]);
	}
	free(list);
	return all;
}

int ctest_files_add(const struct ctest_files *f, const cJSON *command, cJSON *test)
{
	struct walk w = {.files = f, .command = command};
	bool whole = walk_dir(&w, f->build, 0);
	cJSON *adds = cJSON_GetObjectItemCaseSensitive(test, "add");
	char add[2 * PATH_MAX + 2];

	if (w.count > CTEST_FILES_MAX_ADDS && !whole)
		w.fall_back = true;
	if (!w.fall_back && !adds)
		adds = cJSON_AddArrayToObject(test, "add");
	for (size_t i = 0; i < w.count; i++) {
		if (!w.fall_back && !whole) {
			snprintf(add, sizeof(add), "%s:%s", w.adds[i], w.adds[i]);
			cJSON_AddItemToArray(adds, cJSON_CreateString(add));
		}
		free(w.adds[i]);
	}
	free(w.adds);
	if (w.fall_back)
		return -1;
	if (whole) {
		snprintf(add, sizeof(add), "%s:%s", f->build, f->build);
		cJSON_AddItemToArray(adds, cJSON_CreateString(add));
	}
	return whole ? 1 : 0;
}

void ctest_files_free(struct ctest_files *f)
{
	for (size_t i = 0; i < f->count; i++)
		free(f->programs[i]);
	free(f->programs);
	f->programs = NULL;
	f->count = f->cap = 0;
}

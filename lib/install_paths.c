/* SPDX-License-Identifier: MIT */
/* Where Rewind's files are, from this program's own location (install_paths.h). */
#include "lib/install_paths.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* snprintf into one of the fields; -ENAMETOOLONG when it does not fit. */
__attribute__((format(printf, 2, 3))) static int set_path(char out[PATH_MAX], const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, PATH_MAX, fmt, ap);
	va_end(ap);
	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

static bool ends_with(const char *text, size_t len, const char *tail)
{
	size_t n = strlen(tail);

	return len >= n && memcmp(text + len - n, tail, n) == 0;
}

static bool is_folder(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* PREFIX/bin/..., PREFIX/libexec/rewind/...: the prefix's length, else -1. */
static int prefix_length(const char *dir, size_t len)
{
	char lib[PATH_MAX + 16];

	if (ends_with(dir, len, "/libexec/rewind"))
		return (int)(len - strlen("/libexec/rewind"));
	if (!ends_with(dir, len, "/bin"))
		return -1;
	/* a build tree is BUILD/bin too: an installed one has PREFIX/lib/rewind */
	snprintf(lib, sizeof(lib), "%.*s/lib/rewind", (int)(len - 4), dir);
	return is_folder(lib) ? (int)(len - 4) : -1;
}

/*
 * What a layout puts after its base folder for each folder of struct
 * install_paths, in this order: bin, libexec, lib, guest, share, suite, box.
 */
#define FOLDER_COUNT 7

static const char *const prefix_tails[FOLDER_COUNT] = {
	"/bin",		 "/libexec/rewind",	     "/lib/rewind",	   "/lib/rewind/guest",
	"/share/rewind", "/share/rewind/suite.json", "/libexec/rewind/box"};

/* BUILD/bin (or BUILD/tests for the test programs): BUILD is dir/.., the checkout dir/../.. */
static const char *const build_tree_tails[FOLDER_COUNT] = {
	"", /* bin and libexec: BUILD/bin itself */
	"", "/../lib", "/../guest", "/../..", "/../../guest/tests/suite.json", "/../../tests/box"};

/* Every folder of out: the first n bytes of base, then its tail in tails. */
static int set_paths(enum install_layout layout, int n, const char *base,
		     const char *const tails[FOLDER_COUNT], struct install_paths *out)
{
	char *const folders[FOLDER_COUNT] = {out->bin,	 out->libexec, out->lib, out->guest,
					     out->share, out->suite,   out->box};

	out->layout = layout;
	for (size_t i = 0; i < FOLDER_COUNT; i++)
		if (set_path(folders[i], "%.*s%s", n, base, tails[i]))
			return -ENAMETOOLONG;
	return 0;
}

static int installed(int n, const char *prefix, struct install_paths *out)
{
	return set_paths(INSTALL_PREFIX, n, prefix, prefix_tails, out);
}

static int build_tree(int n, const char *dir, struct install_paths *out)
{
	return set_paths(INSTALL_BUILD_TREE, n, dir, build_tree_tails, out);
}

int install_paths_from_exe(const char *exe, struct install_paths *out)
{
	const char *slash = strrchr(exe, '/');
	size_t len = slash ? (size_t)(slash - exe) : 0;
	int prefix;

	memset(out, 0, sizeof(*out));
	if (len >= PATH_MAX)
		return -ENAMETOOLONG;
	if (!slash) /* no folder: the current one */
		return build_tree(1, ".", out);
	prefix = prefix_length(exe, len);
	return prefix >= 0 ? installed(prefix, exe, out) : build_tree((int)len, exe, out);
}

int install_paths_get(struct install_paths *out)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0)
		return -errno;
	exe[n] = '\0';
	return install_paths_from_exe(exe, out);
}

int install_paths_program(const struct install_paths *p, const char *name, char *out, size_t len)
{
	int n;

	if (!strcmp(name, "box"))
		n = snprintf(out, len, "%s/run", p->box);
	else if (!strcmp(name, "rewind-harness") || !strcmp(name, "rewind"))
		n = snprintf(out, len, "%s/%s", p->bin, name);
	else
		n = snprintf(out, len, "%s/%s", p->libexec, name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Paths inside a tree (tree_path.h): lexical normalisation for guest paths,
 * and resolution on the host as the kernel resolves after chroot(root).
 */
#include "image/tree_path.h"

#include "lib/xalloc.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LINKS 40 /* symlinks in one path, as the kernel */

static bool fits(int n, size_t len)
{
	return n >= 0 && (size_t)n < len;
}

/* The length of out[0..at) without its last component ("/a/b" -> "/a"). */
static size_t up(const char *out, size_t at)
{
	while (at > 0 && out[at - 1] != '/')
		at--;
	return at > 0 ? at - 1 : 0;
}

char *tree_parent(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		return xstrdup("/");
	return check_alloc(strndup(path, (size_t)(slash - path)));
}

bool tree_normalize(const char *path, char *out, size_t len)
{
	size_t at = 0;

	if (len < 2)
		return false;
	for (const char *p = path; *(p += strspn(p, "/"));) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			at = up(out, at);
		} else if (n != 1 || p[0] != '.') {
			if (at + 1 + n >= len)
				return false;
			out[at] = '/';
			memcpy(out + at + 1, p, n);
			at += 1 + n;
		}
		out[at] = '\0';
		p += n;
	}
	if (at == 0)
		out[at++] = '/';
	out[at] = '\0';
	return true;
}

/* A path being resolved inside a tree. */
struct resolution {
	const char *root;
	char todo[TREE_PATH_LEN]; /* what is left to resolve, from rest on */
	const char *rest;
	char *out; /* resolved so far: out[0..at) */
	size_t at, len;
	int links;
};

/* Appends the n bytes at rest to out: a directory to go on from, or a symlink to follow. */
static int resolve_step(struct resolution *r, size_t n)
{
	char full[TREE_PATH_LEN], target[TREE_PATH_LEN], next[TREE_PATH_LEN];
	size_t end = r->at + 1 + n;
	struct stat st;
	ssize_t got;

	if (end >= r->len)
		return -ENAMETOOLONG;
	r->out[r->at] = '/';
	memcpy(r->out + r->at + 1, r->rest, n);
	r->out[end] = '\0';
	r->rest += n;
	if (!fits(snprintf(full, sizeof(full), "%s%s", r->root, r->out), sizeof(full)))
		return -ENAMETOOLONG;
	if (lstat(full, &st) < 0)
		return -errno;
	if (!S_ISLNK(st.st_mode)) {
		r->at = end;
		return S_ISDIR(st.st_mode) || !r->rest[strspn(r->rest, "/")] ? 0 : -ENOTDIR;
	}
	if (++r->links > MAX_LINKS)
		return -ELOOP;
	got = readlink(full, target, sizeof(target));
	if (got < 0)
		return -errno;
	if (got == 0 || (size_t)got >= sizeof(target))
		return got ? -ENAMETOOLONG : -ENOENT;
	target[got] = '\0';
	if (!fits(snprintf(next, sizeof(next), "%s/%s", target, r->rest), sizeof(next)))
		return -ENAMETOOLONG;
	memcpy(r->todo, next, strlen(next) + 1);
	r->rest = r->todo;
	if (target[0] == '/')
		r->at = 0;
	r->out[r->at] = '\0';
	return 0;
}

/*
 * Resolves path, inside the tree at root, as the kernel would after
 * chroot(root): every symlink followed (an absolute target inside the tree),
 * "." and ".." applied, never above the top. out: the result, inside the
 * tree. 0 or -errno (-ENOENT, -ENOTDIR, -ELOOP, -ENAMETOOLONG), nothing
 * printed: a candidate that is not there is no error.
 */
static int resolve_in_root(const char *root, const char *path, char *out, size_t len)
{
	struct resolution r = {.root = root, .out = out, .len = len};
	int rc = 0;

	if (len < 2 || !fits(snprintf(r.todo, sizeof(r.todo), "%s", path), sizeof(r.todo)))
		return -ENAMETOOLONG;
	r.rest = r.todo;
	out[0] = '\0';
	while (!rc && *(r.rest += strspn(r.rest, "/"))) {
		size_t n = strcspn(r.rest, "/");

		if (n == 1 && r.rest[0] == '.') {
			r.rest += n;
		} else if (n == 2 && r.rest[0] == '.' && r.rest[1] == '.') {
			r.at = up(out, r.at);
			out[r.at] = '\0';
			r.rest += n;
		} else {
			rc = resolve_step(&r, n);
		}
	}
	if (!rc && r.at == 0)
		snprintf(out, len, "/");
	return rc;
}

int tree_resolve_file(const char *root, const char *path, char *host, size_t len)
{
	char real[TREE_PATH_LEN];
	struct stat st;
	int rc = resolve_in_root(root, path, real, sizeof(real));

	if (!rc && !fits(snprintf(host, len, "%s%s", root, real), len))
		rc = -ENAMETOOLONG;
	if (!rc && stat(host, &st) < 0)
		rc = -errno;
	if (!rc && !S_ISREG(st.st_mode))
		rc = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	return rc;
}

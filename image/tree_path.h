/* SPDX-License-Identifier: MIT */
/*
 * Paths inside a tree (the host's /, or another root in tests), handled as
 * the kernel handles them after chroot(root): what the guest's loader will
 * see. A path inside the tree starts with '/'; root + that path is the
 * host's file.
 */
#ifndef REWIND_TREE_PATH_H
#define REWIND_TREE_PATH_H

#include <stdbool.h>
#include <stddef.h>

#define TREE_PATH_LEN 4096 /* a path inside the tree, or root + one */

/* The directory of path ("/a/b" -> "/a", "/b" -> "/"), malloc'd. */
char *tree_parent(const char *path);

/*
 * path with "." and ".." applied lexically and single slashes, absolute (a
 * relative path is taken from /): for guest paths, whose directories are all
 * real ones. false if it does not fit in len.
 */
bool tree_normalize(const char *path, char *out, size_t len);

/*
 * The regular file path names inside the tree at root, as the kernel finds
 * it after chroot(root): every symlink followed (an absolute target inside
 * the tree), "." and ".." applied, never above the top. host: root + the
 * resolved path. 0 or -errno (-ENOENT, -ENOTDIR, -ELOOP, -ENAMETOOLONG,
 * -EISDIR, -EINVAL for another kind of file), nothing printed: a candidate
 * that is not there is no error.
 */
int tree_resolve_file(const char *root, const char *path, char *host, size_t len);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Where the dynamic loaders look for a library, as glibc's ld.so
 * (elf/dl-load.c, ldconfig for ld.so.conf) and musl's (ldso/dynlink.c) do
 * on x86-64: the system's directories (ld.so.conf with its includes, musl's
 * path file, each loader's defaults), the default directory a library goes
 * to in the guest, which has no ld.so.cache, and the tokens of an RPATH,
 * RUNPATH or needed path ($ORIGIN, $LIB, $PLATFORM).
 */
#ifndef REWIND_LD_PATHS_H
#define REWIND_LD_PATHS_H

#include <stdbool.h>
#include <stddef.h>

#define LD_SO_CONF "/etc/ld.so.conf" /* glibc's, inside the tree */

/* Directories inside the tree, in search order, each once; malloc'd (ld_dirs_free). */
struct ld_dirs {
	char **dirs;
	size_t count;
};

/*
 * The system's directories of the tree at root (tree_path.h), for glibc
 * (musl false): those of ld_so_conf (a path inside the tree; none if it is
 * not there), then glibc's defaults; for musl: those of
 * /etc/ld-musl-x86_64.path, or musl's defaults when there is none. 0 or
 * -errno (reported); out holds what was read either way: ld_dirs_free it.
 */
int ld_system_dirs(const char *root, const char *ld_so_conf, bool musl, struct ld_dirs *out);

void ld_dirs_free(struct ld_dirs *l);

/*
 * Where the guest's loader, with no cache, finds a library the host has in
 * the system directory dir: dir itself if that loader searches it by
 * default, else its first default directory.
 */
const char *ld_guest_dir(bool musl, const char *dir);

/*
 * entry with its tokens replaced: $ORIGIN by origin; for glibc, $LIB and
 * $PLATFORM by what Debian's ld.so on an x86-64 kernel puts there, another
 * '$' kept as it is (as glibc does). false if it does not fit in len.
 */
bool ld_expand_tokens(const char *entry, const char *origin, bool musl, char *out, size_t len);

/* musl ignores an RPATH with a '$' that is not $ORIGIN (fixup_rpath). */
bool ld_musl_rpath_usable(const char *list);

#endif

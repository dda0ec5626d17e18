/* SPDX-License-Identifier: MIT */
/*
 * Where Rewind's files are, found from this program's own location
 * (/proc/self/exe): every program, installed or not, finds the guest
 * kernel, the image, the corpus, the mutator and its sibling programs the
 * same way. Two layouts (docs/install.md):
 *   - the build tree: BUILD/bin/PROGRAM, with BUILD/guest, BUILD/lib and
 *     the checkout (BUILD/..: corpus/, guest/tests/suite.json, tests/box/);
 *   - an installed PREFIX: PREFIX/bin/{rewind,rewind-harness},
 *     PREFIX/libexec/rewind/ (the other programs, box/), PREFIX/lib/rewind/
 *     (the mutator, guest/), PREFIX/share/rewind/ (corpus/, suite.json).
 * The paths are not resolved (no realpath): BUILD/bin/../guest stays so.
 */
#ifndef REWIND_INSTALL_PATHS_H
#define REWIND_INSTALL_PATHS_H

#include <limits.h>
#include <stddef.h>

enum install_layout {
	INSTALL_BUILD_TREE, /* BUILD/bin/PROGRAM in a checkout */
	INSTALL_PREFIX,	    /* PREFIX/bin/PROGRAM or PREFIX/libexec/rewind/PROGRAM */
};

struct install_paths {
	enum install_layout layout;
	char bin[PATH_MAX];	/* rewind, rewind-harness, rewind-mkinitramfs (build tree) */
	char libexec[PATH_MAX]; /* rewind-fuzz, rewind-explore, rewind-report */
	char lib[PATH_MAX];	/* rewind-mutator.so */
	char guest[PATH_MAX];	/* bzImage, initramfs.cpio */
	char share[PATH_MAX];	/* the folder holding corpus/ (the checkout when built) */
	char suite[PATH_MAX];	/* the bundled suite file */
	char box[PATH_MAX];	/* the KVM box's folder (run, qemu.sh, init) */
};

/*
 * The layout of the program at exe (an absolute path to an executable):
 * PREFIX when it lies in PREFIX/libexec/rewind, or in PREFIX/bin beside a
 * PREFIX/lib/rewind folder; else the build tree. 0, or -ENAMETOOLONG.
 */
int install_paths_from_exe(const char *exe, struct install_paths *out);

/* The same for this program (/proc/self/exe). 0, or a negative errno. */
int install_paths_get(struct install_paths *out);

/*
 * The path of a program Rewind runs: NAME in libexec (rewind-fuzz,
 * rewind-explore, rewind-report), rewind-harness in bin, "box" the box's
 * run script. 0, or -ENAMETOOLONG.
 */
int install_paths_program(const struct install_paths *p, const char *name, char *out, size_t len);

#endif

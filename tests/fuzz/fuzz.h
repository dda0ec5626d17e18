/* SPDX-License-Identifier: MIT */
/*
 * What the AFL++ targets in tests/fuzz/ share: reading the test case into an
 * exact-size copy (so ASan catches a read past its end), failing with
 * abort() (afl-fuzz records a crash), writing seeds, and the planted bug.
 *
 * A target defines FUZZ_NAME before including this and calls
 * fuzz_main(argc, argv, check, write_seeds) from main: FILE is reread each
 * persistent-mode round (not shared-memory test cases: __AFL_FUZZ_INIT would
 * make afl-fuzz stop writing FILE).
 *
 * Built with -DFUZZ_PLANTED_BUG, each target also aborts on one condition a
 * few mutations of its seeds reach and no seed meets (FUZZ_PLANTED), so
 * `tests/fuzz/run-parser-fuzz --planted` shows that every target can fail.
 */
#ifndef REWIND_FUZZ_H
#define REWIND_FUZZ_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef FUZZ_NAME
#error "define FUZZ_NAME before including tests/fuzz/fuzz.h"
#endif

#define FUZZ_READ_MAX (1 << 20) /* afl-fuzz's own default limit on test case size */

__attribute__((noreturn)) static inline void fuzz_die(const char *what, const char *why)
{
	fprintf(stderr, FUZZ_NAME ": %s: %s\n", what, why);
	abort();
}

#ifdef FUZZ_PLANTED_BUG
#define FUZZ_PLANTED(cond, what)                                                                   \
	do {                                                                                       \
		if (cond)                                                                          \
			fuzz_die("planted bug", what);                                             \
	} while (0)

/* Whether s holds a byte of 0x80 or more: the planted bug of the targets that read names. */
static inline bool fuzz_not_ascii(const char *s)
{
	for (; *s; s++) {
		if ((unsigned char)*s >= 0x80)
			return true;
	}
	return false;
}
#else
#define FUZZ_PLANTED(cond, what)                                                                   \
	do {                                                                                       \
	} while (0)
#endif

/* A malloc'd copy of exactly len bytes (one byte for none); the caller frees it. */
static inline uint8_t *fuzz_copy(const uint8_t *data, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);

	if (!copy)
		fuzz_die("malloc", strerror(errno));
	memcpy(copy, data, len);
	return copy;
}

/* Reads up to FUZZ_READ_MAX bytes of fd into buf; returns the length. */
static inline size_t fuzz_read_all(int fd, uint8_t *buf)
{
	size_t len = 0;

	while (len < FUZZ_READ_MAX) {
		ssize_t n = read(fd, buf + len, FUZZ_READ_MAX - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	return len;
}

/* Writes one seed as DIR/NAME; returns 0 or -1 (reported). */
static inline int fuzz_write_seed(const char *dir, const char *name, const void *data, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, FUZZ_NAME ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* check: one test case (bytes, len; path is FILE or NULL for stdin). */
typedef void fuzz_check_fn(const uint8_t *bytes, size_t len, const char *path);
/* write_seeds: writes the target's seeds into an existing DIR; 0 or -1. */
typedef int fuzz_seeds_fn(const char *dir);

static inline void fuzz_check_file(const char *path, fuzz_check_fn *check)
{
	static uint8_t buf[FUZZ_READ_MAX];
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;

	if (fd < 0) {
		fprintf(stderr, FUZZ_NAME ": %s: %s\n", path, strerror(errno));
		exit(2);
	}
	check(buf, fuzz_read_all(fd, buf), path);
	if (path)
		close(fd);
}

/*
 *   NAME [OPTION] [FILE]   checks FILE (stdin without FILE)
 *   NAME --write-seeds DIR  writes a few valid inputs into DIR
 * option, if not NULL, is the one option the target takes (set to 1 if given).
 */
static inline int fuzz_main(int argc, char **argv, fuzz_check_fn *check, fuzz_seeds_fn *seeds,
			    const char *option, int *option_set)
{
	const char *path;

	if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0) {
		if (mkdir(argv[2], 0755) != 0 && errno != EEXIST) {
			fprintf(stderr, FUZZ_NAME ": %s: %s\n", argv[2], strerror(errno));
			return 1;
		}
		return seeds(argv[2]) ? 1 : 0;
	}
	if (option && argc >= 2 && strcmp(argv[1], option) == 0) {
		*option_set = 1;
		argc--;
		argv++;
	}
	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr,
			"usage: " FUZZ_NAME " %s%s%s[FILE] | " FUZZ_NAME " --write-seeds DIR\n",
			option ? "[" : "", option ? option : "", option ? "] " : "");
		return 2;
	}
	path = argc == 2 ? argv[1] : NULL;
#ifdef __AFL_HAVE_MANUAL_CONTROL
	while (__AFL_LOOP(10000))
		fuzz_check_file(path, check);
#else
	fuzz_check_file(path, check);
#endif
	return 0;
}

#endif

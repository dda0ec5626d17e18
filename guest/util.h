/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the guest programs: unbuffered output (one write() per
 * call, so nothing is lost in a stdio buffer when a run ends abruptly), error
 * exits that name the program and the failing call, and Rewind detection.
 */
#ifndef REWIND_GUEST_UTIL_H
#define REWIND_GUEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include <sys/types.h>
#include <time.h>

#define GU_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

/* Writes all of buf to fd, retrying short writes and EINTR; 0 or -errno. */
int gu_write_all(int fd, const void *buf, size_t len);

/* read() again after EINTR: bytes read, 0 at the end, -1 (warned, naming name) on an error. */
ssize_t gu_read(int fd, void *buf, size_t len, const char *name);

/* Formats one message and writes it to fd with a single write(); exits 1 on failure. */
void gu_say_fd(int fd, const char *fmt, ...) GU_PRINTF(2, 3);
#define gu_say(...) gu_say_fd(1, __VA_ARGS__)
/* Like gu_say_fd, but a write error is ignored (for messages with nowhere else to go). */
void gu_try_say_fd(int fd, const char *fmt, ...) GU_PRINTF(2, 3);

/* "PROG: message: strerror(errno)" on stderr, then exit(1). */
noreturn void gu_die_errno(const char *fmt, ...) GU_PRINTF(1, 2);
/* "PROG: message" on stderr, then exit(1). */
noreturn void gu_die(const char *fmt, ...) GU_PRINTF(1, 2);
/* "PROG: warning: message: strerror(errno)" on stderr. */
void gu_warn_errno(const char *fmt, ...) GU_PRINTF(1, 2);

/* Parses a whole decimal number in [min, max]; false if text is anything else. */
/* clock_gettime(clock), dying with the clock's name on failure. */
struct timespec gu_now(clockid_t clock, const char *name);

bool gu_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *value);

/* True when CPUID leaf 0x40000000 carries the Rewind signature. */
bool gu_under_rewind(void);

#endif

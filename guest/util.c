/* SPDX-License-Identifier: MIT */
#include "guest/util.h"

#include "rewind/abi.h"

#include <cpuid.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define GU_LINE_MAX 1024

ssize_t gu_read(int fd, void *buf, size_t len, const char *name)
{
	for (;;) {
		ssize_t n = read(fd, buf, len);

		if (n >= 0)
			return n;
		if (errno != EINTR) {
			gu_warn_errno("read %s", name);
			return -1;
		}
	}
}

int gu_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Formats prefix + fmt (+ ": " strerror(err) if err) + "\n" into line. */
static size_t format_line(char *line, size_t size, const char *prefix, int err, const char *fmt,
			  va_list ap)
{
	size_t len = (size_t)snprintf(line, size, "%s", prefix);

	if (len < size) {
		int n = vsnprintf(line + len, size - len, fmt, ap);
		len += n > 0 ? (size_t)n : 0;
	}
	if (err && len < size)
		len += (size_t)snprintf(line + len, size - len, ": %s", strerror(err));
	if (len >= size - 1) /* truncated: keep the newline */
		len = size - 2;
	line[len++] = '\n';
	return len;
}

static void vsay(int fd, const char *prefix, int err, const char *fmt, va_list ap)
{
	char line[GU_LINE_MAX];
	size_t len = format_line(line, sizeof(line), prefix, err, fmt, ap);

	/* A message that cannot be written has nowhere else to go. */
	(void)gu_write_all(fd, line, len);
}

void gu_say_fd(int fd, const char *fmt, ...)
{
	char line[GU_LINE_MAX];
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		gu_die("cannot format output");
	rc = gu_write_all(fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	if (rc < 0) {
		errno = -rc;
		gu_die_errno("write to fd %d", fd);
	}
}

void gu_try_say_fd(int fd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fd, "", 0, fmt, ap);
	va_end(ap);
}

static const char *prefix(char *buf, size_t size, const char *kind)
{
	snprintf(buf, size, "%s: %s", program_invocation_short_name, kind);
	return buf;
}

noreturn void gu_die_errno(const char *fmt, ...)
{
	int err = errno;
	char pre[128];
	va_list ap;

	va_start(ap, fmt);
	vsay(2, prefix(pre, sizeof(pre), ""), err, fmt, ap);
	va_end(ap);
	exit(1);
}

noreturn void gu_die(const char *fmt, ...)
{
	char pre[128];
	va_list ap;

	va_start(ap, fmt);
	vsay(2, prefix(pre, sizeof(pre), ""), 0, fmt, ap);
	va_end(ap);
	exit(1);
}

void gu_warn_errno(const char *fmt, ...)
{
	int err = errno;
	char pre[128];
	va_list ap;

	va_start(ap, fmt);
	vsay(2, prefix(pre, sizeof(pre), "warning: "), err, fmt, ap);
	va_end(ap);
	errno = err;
}

bool gu_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *value)
{
	char *end;
	unsigned long long v;

	if (text[0] < '0' || text[0] > '9')
		return false;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*value = v;
	return true;
}

bool gu_under_rewind(void)
{
	unsigned int eax, ebx, ecx, edx;

	__cpuid(REWIND_CPUID_SIGNATURE, eax, ebx, ecx, edx);
	(void)eax;
	return ebx == REWIND_SIGNATURE_EBX && ecx == REWIND_SIGNATURE_ECX &&
	       edx == REWIND_SIGNATURE_EDX;
}

struct timespec gu_now(clockid_t clock, const char *name)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts) < 0)
		gu_die_errno("clock_gettime(%s)", name);
	return ts;
}

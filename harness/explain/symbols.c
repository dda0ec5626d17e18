/* SPDX-License-Identifier: MIT */
#include "harness/explain/symbols.h"

#include "lib/file.h"
#include "lib/log.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The executable PT_LOAD segment of an x86-64 ELF executable. */
static bool find_text(struct symbols *s)
{
	Elf64_Ehdr eh;

	if (s->size < sizeof(eh))
		return false;
	memcpy(&eh, s->elf, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > s->size ||
	    (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > s->size - eh.e_phoff)
		return false;
	for (unsigned int i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, s->elf + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && ph.p_offset <= s->size &&
		    ph.p_filesz <= s->size - ph.p_offset) {
			s->text_lo = ph.p_vaddr;
			s->text_hi = ph.p_vaddr + ph.p_filesz;
			s->text_offset = ph.p_offset;
			return true;
		}
	}
	return false;
}

int symbols_open(struct symbols *s, const uint8_t *elf, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	struct file_part part = {elf, size};

	*s = (struct symbols){.elf = elf, .size = size};
	if (!find_text(s)) {
		rw_err("the test binary is not an x86-64 ELF executable: no code locations");
		return -EINVAL;
	}
	snprintf(s->path, sizeof(s->path), "%s/rewind-symbols-%d", tmp && *tmp ? tmp : "/tmp",
		 (int)getpid());
	if (file_write_atomic(s->path, &part, 1) < 0)
		return -EIO;
	s->ok = true;
	return 0;
}

void symbols_close(struct symbols *s)
{
	if (s->ok)
		unlink(s->path);
	s->ok = false;
}

bool symbols_in_text(const struct symbols *s, uint64_t addr)
{
	return s->ok && addr >= s->text_lo && addr < s->text_hi;
}

static const uint8_t *code_at(const struct symbols *s, uint64_t addr)
{
	return s->elf + s->text_offset + (addr - s->text_lo);
}

bool symbols_after_call(const struct symbols *s, uint64_t addr)
{
	const uint8_t *p;

	if (!symbols_in_text(s, addr) || addr < s->text_lo + 7)
		return false;
	p = code_at(s, addr);
	/* call rel32; call *reg (ff /2); call *disp8(reg); call *disp32(reg) or *[rip] */
	return p[-5] == 0xe8 || (p[-2] == 0xff && (p[-1] & 0x38) == 0x10) ||
	       (p[-3] == 0xff && (p[-2] & 0x38) == 0x10) ||
	       (p[-6] == 0xff && (p[-5] & 0x38) == 0x10);
}

/* Runs addr2line on the addresses; its output goes to out (NUL-terminated). */
static int run_addr2line(const struct symbols *s, const uint64_t *addrs, size_t n, char *out,
			 size_t len)
{
	char hex[64][20];
	char *argv[8 + 64] = {"addr2line", "-a", "-f", "-i", "-C", "-e", (char *)s->path};
	int fds[2], status;
	size_t got = 0, argc = 7;
	ssize_t r;
	pid_t pid;

	for (size_t i = 0; i < n && i < 64; i++) {
		snprintf(hex[i], sizeof(hex[i]), "0x%" PRIx64, addrs[i]);
		argv[argc++] = hex[i];
	}
	argv[argc] = NULL;
	if (pipe(fds) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	while (got + 1 < len && (r = read(fds[0], out + got, len - got - 1)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		got += (size_t)r;
	}
	out[got] = '\0';
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ENOENT;
}

/* "./guest/ledger.c:57 (discriminator 1)" -> file and line. */
static void parse_file_line(const char *text, struct code_frame *f)
{
	const char *colon = strrchr(text, ':');
	size_t len = colon ? (size_t)(colon - text) : strlen(text);

	if (!strncmp(text, "./", 2) && len >= 2) {
		text += 2;
		len -= 2;
	}
	snprintf(f->file, sizeof(f->file), "%.*s", (int)len, text);
	f->line = colon ? (unsigned int)strtoul(colon + 1, NULL, 10) : 0;
	if (!strcmp(f->file, "??"))
		f->file[0] = '\0';
}

static void parse_output(char *text, const uint64_t *addrs, size_t n, struct code_location *out)
{
	char *save = NULL, *line;
	size_t cur = SIZE_MAX;
	bool want_function = true;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct code_location *loc;

		if (!strncmp(line, "0x", 2) && want_function) { /* the next address */
			if (++cur >= n)
				return;
			continue;
		}
		if (cur >= n)
			continue;
		loc = &out[cur];
		if (want_function && loc->depth < CODE_FRAMES_MAX)
			snprintf(loc->frames[loc->depth].function,
				 sizeof(loc->frames[loc->depth].function), "%s", line);
		else if (!want_function && loc->depth < CODE_FRAMES_MAX)
			parse_file_line(line, &loc->frames[loc->depth++]);
		want_function = !want_function;
	}
	(void)addrs;
}

int symbols_lookup(const struct symbols *s, const uint64_t *addrs, size_t n,
		   struct code_location *out)
{
	static char text[1 << 16];
	int rc;

	for (size_t i = 0; i < n; i++) {
		out[i] = (struct code_location){.addr = addrs[i]};
		snprintf(out[i].frames[0].function, sizeof(out[i].frames[0].function), "??");
	}
	if (!s->ok || n == 0)
		return s->ok ? 0 : -EINVAL;
	if (n > 64)
		n = 64;
	rc = run_addr2line(s, addrs, n, text, sizeof(text));
	if (rc < 0) {
		rw_err("cannot run addr2line (binutils) for code locations");
		return rc;
	}
	parse_output(text, addrs, n, out);
	for (size_t i = 0; i < n; i++)
		if (out[i].depth == 0)
			out[i].depth = 1;
	return 0;
}

void code_location_text(const struct code_location *loc, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < loc->depth && at < len; i++) {
		const struct code_frame *f = &loc->frames[i];

		if (f->file[0])
			at += (size_t)snprintf(buf + at, len - at, "%s%s (%s:%u)",
					       i ? ", inlined into " : "", f->function, f->file,
					       f->line);
		else
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
					       i ? ", inlined into " : "", f->function);
	}
}

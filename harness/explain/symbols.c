/* SPDX-License-Identifier: MIT */
#include "harness/explain/symbols.h"

#include "image/elf_file.h"
#include "image/tree_path.h"
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

/*
 * The type, loader, extent and executable segment of the object, read with
 * the checks every untrusted ELF file gets (image/elf_file.h); shown names
 * it in messages. 0 or -ENOEXEC (reported).
 */
static int read_segments(struct symbol_object *o, const char *shown)
{
	struct elf_file f = {.data = o->elf, .size = o->size, .shown = shown};
	struct elf_segments seg;
	struct elf_loads loads;
	int rc = elf_object(&f);

	if (rc < 0)
		return rc;
	elf_segments(&f, &seg);
	elf_loads(&f, &loads);
	if (!loads.has_text) {
		rw_err("%s has no executable segment inside the file: no code locations", shown);
		return -ENOEXEC;
	}
	o->is_shared = f.eh.e_type == ET_DYN;
	o->is_dynamic = seg.has_interp;
	o->first = loads.lo & ~0xfffull;
	o->span = loads.hi;
	o->text_lo = loads.text.p_vaddr;
	o->text_hi = loads.text.p_vaddr + loads.text.p_filesz;
	o->text_offset = loads.text.p_offset;
	return 0;
}

bool symbols_program_path(const char *cwd, const char *exe, char *out, size_t len)
{
	char joined[TREE_PATH_LEN];

	if (exe[0] == '/')
		return tree_normalize(exe, out, len);
	if ((size_t)snprintf(joined, sizeof(joined), "%s/%s", cwd ? cwd : "", exe) >=
	    sizeof(joined))
		return false;
	return tree_normalize(joined, out, len);
}

/* Adds the object, its file copied for addr2line. 0 or -errno. */
static int add_object(struct symbols *s, const char *name, const uint8_t *elf, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	struct symbol_object *o = &s->obj[s->count];
	struct file_part part = {elf, size};
	int rc;

	if (s->count == SYMBOLS_OBJECTS)
		return -ENOSPC;
	*o = (struct symbol_object){.elf = elf, .size = size};
	snprintf(o->name, sizeof(o->name), "%s", name);
	rc = read_segments(o, name[0] ? name : "the test binary");
	if (rc < 0)
		return rc;
	snprintf(o->path, sizeof(o->path), "%s/rewind-symbols-%d-%u", tmp && *tmp ? tmp : "/tmp",
		 (int)getpid(), s->count);
	if (file_write_atomic(o->path, &part, 1) < 0)
		return -EIO;
	s->count++; /* at its file addresses (bias 0) until symbols_mapped_at says where */
	return 0;
}

int symbols_open(struct symbols *s, const uint8_t *elf, size_t size)
{
	int rc;

	*s = (struct symbols){0};
	rc = add_object(s, "", elf, size); /* a file that is no x86-64 object is reported */
	s->ok = rc == 0;
	return rc;
}

int symbols_mapped_at(struct symbols *s, const char *name, const uint8_t *elf, size_t size,
		      uint64_t base)
{
	struct symbol_object *o = NULL;

	for (unsigned int i = 0; i < s->count && !o; i++)
		if (s->obj[i].elf == elf)
			o = &s->obj[i];
	if (!o) {
		int rc = add_object(s, name, elf, size);

		if (rc)
			return rc;
		o = &s->obj[s->count - 1];
	}
	o->bias = base - o->first;
	return 0;
}

bool symbols_need_bases(const struct symbols *s)
{
	return s->ok && (s->obj[0].is_shared || s->obj[0].is_dynamic);
}

void symbols_close(struct symbols *s)
{
	for (unsigned int i = 0; i < s->count; i++)
		unlink(s->obj[i].path);
	s->count = 0;
	s->ok = false;
}

/* The object addr is in, or NULL. */
static const struct symbol_object *object_of(const struct symbols *s, uint64_t addr)
{
	for (unsigned int i = 0; i < s->count; i++) {
		const struct symbol_object *o = &s->obj[i];

		if (addr >= o->bias && addr - o->bias >= o->first && addr - o->bias < o->span)
			return o;
	}
	return NULL;
}

bool symbols_in_text(const struct symbols *s, uint64_t addr)
{
	const struct symbol_object *o = object_of(s, addr);

	return o && addr - o->bias >= o->text_lo && addr - o->bias < o->text_hi;
}

bool symbols_after_call(const struct symbols *s, uint64_t addr)
{
	const struct symbol_object *o = object_of(s, addr);
	const uint8_t *p;
	uint64_t at;

	if (!symbols_in_text(s, addr))
		return false;
	at = addr - o->bias;
	if (at < o->text_lo + 7)
		return false;
	p = o->elf + o->text_offset + (at - o->text_lo);
	/* call rel32; call *reg (ff /2); call *disp8(reg); call *disp32(reg) or *[rip] */
	return p[-5] == 0xe8 || (p[-2] == 0xff && (p[-1] & 0x38) == 0x10) ||
	       (p[-3] == 0xff && (p[-2] & 0x38) == 0x10) ||
	       (p[-6] == 0xff && (p[-5] & 0x38) == 0x10);
}

/* Runs addr2line on the addresses; its output goes to out (NUL-terminated). */
static int run_addr2line(const char *path, const uint64_t *addrs, size_t n, char *out, size_t len)
{
	char hex[64][20];
	char *argv[8 + 64] = {"addr2line", "-a", "-f", "-i", "-C", "-e", (char *)path};
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

/* An object without debug information for addr: "libc.so.6+0x8a2f0". */
static void name_by_offset(const struct symbol_object *o, uint64_t at, struct code_location *loc)
{
	const char *slash = strrchr(o->name, '/');

	snprintf(loc->frames[0].function, sizeof(loc->frames[0].function), "%.70s+0x%" PRIx64,
		 slash ? slash + 1 : o->name, at);
	loc->frames[0].file[0] = '\0';
	loc->depth = 1;
}

/* The addresses of addrs that are in object o, looked up in its file. 0 or -errno. */
static int lookup_in(const struct symbol_object *o, const uint64_t *addrs, size_t n,
		     struct code_location *out)
{
	static char text[1 << 16];
	uint64_t at[64];
	size_t index[64], k = 0;
	struct code_location locs[64];
	int rc;

	for (size_t i = 0; i < n && k < 64; i++)
		if (addrs[i] >= o->bias && addrs[i] - o->bias >= o->first &&
		    addrs[i] - o->bias < o->span) {
			index[k] = i;
			at[k++] = addrs[i] - o->bias;
		}
	if (k == 0)
		return 0;
	for (size_t i = 0; i < k; i++) {
		locs[i] = (struct code_location){.addr = at[i]};
		snprintf(locs[i].frames[0].function, sizeof(locs[i].frames[0].function), "??");
	}
	rc = run_addr2line(o->path, at, k, text, sizeof(text));
	if (rc < 0)
		return rc;
	parse_output(text, at, k, locs);
	for (size_t i = 0; i < k; i++) {
		if (locs[i].depth == 0)
			locs[i].depth = 1;
		if (!strcmp(locs[i].frames[0].function, "??") && o->name[0])
			name_by_offset(o, at[i], &locs[i]);
		locs[i].addr = addrs[index[i]];
		out[index[i]] = locs[i];
	}
	return 0;
}

int symbols_lookup(const struct symbols *s, const uint64_t *addrs, size_t n,
		   struct code_location *out)
{
	for (size_t i = 0; i < n; i++) {
		out[i] = (struct code_location){.addr = addrs[i], .depth = 1};
		snprintf(out[i].frames[0].function, sizeof(out[i].frames[0].function), "??");
	}
	if (!s->ok || n == 0)
		return s->ok ? 0 : -EINVAL;
	for (unsigned int i = 0; i < s->count; i++) {
		int rc = lookup_in(&s->obj[i], addrs, n < 64 ? n : 64, out);

		if (rc < 0) {
			rw_err("cannot run addr2line (binutils) for code locations");
			return rc;
		}
	}
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

#include "harness/job_start.h"

#include "harness/artifact.h"
#include "harness/guest_files.h"
#include "vmm/log.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SAID_LINES     4
#define CANNOT_EXECUTE ": cannot execute: "
#define INIT_PREFIX    "rewind-init: "
#define STATIC_HOW_TO                                                                              \
	"build it static: musl-gcc -static, gcc -static, or guest/rewind-cc (C) and "              \
	"guest/rewind-c++ (C++), which also make its shared accesses schedule points"

void job_start_output(const struct trace *t, size_t from, char *out, size_t len)
{
	char *said = artifact_output_tail(t, from, SAID_LINES);
	size_t n = 0, end;

	out[0] = '\0';
	if (!said)
		return;
	end = strlen(said);
	while (end > 0 && (said[end - 1] == '\n' || said[end - 1] == '\r'))
		end--;
	for (size_t i = 0; i < end && n + 3 < len; i++) {
		if (said[i] == '\r')
			continue;
		if (said[i] == '\n') {
			out[n++] = ';';
			out[n++] = ' ';
		} else {
			out[n++] = said[i];
		}
	}
	out[n] = '\0';
	free(said);
}

/* The program header at index i, if it lies inside the file. */
static bool program_header(const uint8_t *elf, size_t size, const Elf64_Ehdr *eh, unsigned int i,
			   Elf64_Phdr *ph)
{
	uint64_t at = eh->e_phoff + (uint64_t)i * eh->e_phentsize;

	if (eh->e_phoff > size || at > size || size - at < sizeof(*ph))
		return false;
	memcpy(ph, elf + at, sizeof(*ph));
	return true;
}

bool job_start_interpreter(const uint8_t *elf, size_t size, char *out, size_t len)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	if (size < sizeof(eh) || memcmp(elf, ELFMAG, SELFMAG) != 0 || elf[EI_CLASS] != ELFCLASS64)
		return false;
	memcpy(&eh, elf, sizeof(eh));
	if (eh.e_phentsize < sizeof(ph))
		return false;
	for (unsigned int i = 0; i < eh.e_phnum; i++) {
		if (!program_header(elf, size, &eh, i, &ph))
			return false;
		if (ph.p_type != PT_INTERP)
			continue;
		if (ph.p_offset > size || ph.p_filesz > size - ph.p_offset || ph.p_filesz == 0)
			return false;
		snprintf(out, len, "%.*s",
			 (int)strnlen((const char *)elf + ph.p_offset, ph.p_filesz),
			 (const char *)elf + ph.p_offset);
		return true;
	}
	return false;
}

/* The file at a guest path: the job's own archive wins over the base image. */
static bool find_guest_file(const struct run_inputs *in, const char *path, struct guest_file *f)
{
	return guest_files_find(in->job_archive, in->job_archive_len, path, f) ||
	       guest_files_find(in->base_initrd, in->base_initrd_len, path, f);
}

/* The line of said where rewind-init says it cannot execute the command, or NULL. */
static const char *cannot_execute_line(const char *said, const char **cause)
{
	const char *line = NULL, *cannot = strstr(said, CANNOT_EXECUTE);

	for (const char *p = said; cannot && (p = strstr(p, INIT_PREFIX)) && p < cannot; p++)
		line = p;
	*cause = cannot;
	return line;
}

int job_start_check(const struct trace *t, size_t from, const struct run_inputs *in)
{
	char said[1024], path[256], interp[256];
	const char *cause, *line, *path_at, *line_end;
	struct guest_file f;

	job_start_output(t, from, said, sizeof(said));
	line = cannot_execute_line(said, &cause);
	if (!line)
		return 0;
	path_at = line + strlen(INIT_PREFIX);
	snprintf(path, sizeof(path), "%.*s", (int)(cause - path_at), path_at);
	if (find_guest_file(in, path, &f) &&
	    job_start_interpreter(f.data, f.size, interp, sizeof(interp))) {
		rw_err("the job's command %s is dynamically linked (it asks for %s, and the guest "
		       "has no shared libraries): the guest runs static programs "
		       "only; " STATIC_HOW_TO,
		       path, interp);
		return -ENOEXEC;
	}
	line_end = strstr(cause, "; ");
	rw_err("the guest cannot execute the job's command: %.*s",
	       (int)(line_end ? line_end - line : (long)strlen(line)), line);
	return -ENOEXEC;
}

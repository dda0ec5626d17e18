/* SPDX-License-Identifier: MIT */
/* Why the guest could not execute the job's command (vmm/exec_check.h). */
#include "vmm/exec_check.h"

#include "image/elf_file.h"
#include "lib/log.h"

#include <limits.h>

bool exec_check_guest_file(const struct run_inputs *in, const char *path, struct guest_file *f)
{
	return guest_files_find(in->job_archive, in->job_archive_len, path, f) ||
	       guest_files_find(in->base_initrd, in->base_initrd_len, path, f);
}

/* Whether the guest has a file, or a link, at path (the loader may be a link). */
static bool guest_has(const struct run_inputs *in, const char *path)
{
	struct guest_file f;

	return exec_check_guest_file(in, path, &f) ||
	       guest_files_has_entry(in->job_archive, in->job_archive_len, path) ||
	       guest_files_has_entry(in->base_initrd, in->base_initrd_len, path);
}

bool exec_check_loader(const struct run_inputs *in, const char *path)
{
	struct guest_file gf;
	struct elf_file f;
	struct elf_segments seg;
	char interp[PATH_MAX];

	if (!exec_check_guest_file(in, path, &gf))
		return false;
	f = (struct elf_file){.data = gf.data, .size = gf.size, .shown = path};
	if (elf_program(&f, &seg) != 1 || elf_interp(&f, &seg.interp, interp, sizeof(interp)) < 0 ||
	    guest_has(in, interp))
		return false;
	rw_err("the job's command %s is dynamically linked: it asks for %s, which the guest does "
	       "not have; add the program with --add (its loader and shared libraries come with "
	       "it), or build it static (musl-gcc -static, gcc -static, guest/rewind-cc)",
	       path, interp);
	return true;
}

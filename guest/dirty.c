/* SPDX-License-Identifier: MIT */
/*
 * dirty: writes to (almost) all of the guest's free memory, for the keyframe
 * tests and benchmark: a restore must bring back every page it touched.
 * usage: dirty MIB   writes one byte derived from its index into every page
 * of MIB mebibytes, then prints a checksum read back from all of them.
 */
#include "guest/util.h"

#include <inttypes.h>
#include <sys/mman.h>

#define PAGE 4096u

int main(int argc, char **argv)
{
	uint64_t mib, pages, sum = 0;
	volatile uint8_t *mem;

	if (argc != 2 || !gu_parse_u64(argv[1], 1, 4096, &mib))
		gu_die("usage: dirty MIB (1-4096)");
	pages = mib * 1024 * 1024 / PAGE;
	mem = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		gu_die_errno("mmap of %" PRIu64 " MiB", mib);
	for (uint64_t i = 0; i < pages; i++)
		mem[i * PAGE] = (uint8_t)(i * 2654435761u >> 24);
	for (uint64_t i = 0; i < pages; i++)
		sum = sum * 31 + mem[i * PAGE];
	gu_say("dirtied %" PRIu64 " pages, checksum %016" PRIx64 "\n", pages, sum);
	return 0;
}

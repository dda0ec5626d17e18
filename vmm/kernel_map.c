// SPDX-License-Identifier: MIT
#include "vmm/kernel_map.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define MAP_SYMBOL_MAX 128

/* Code symbols only: t/T (text), w/W (weak, code in a kernel image). */
static int is_code_symbol(char type)
{
	return strchr("tTwW", type) != NULL;
}

int kernel_map_name(const char *kernel_path, uint64_t addr, char *name, size_t size)
{
	char path[4096], line[512], symbol[MAP_SYMBOL_MAX], best[MAP_SYMBOL_MAX] = "";
	uint64_t best_addr = 0, sym_addr;
	char type;
	FILE *map;

	if (size)
		name[0] = '\0';
	if (!kernel_path || !size ||
	    snprintf(path, sizeof(path), "%s.map", kernel_path) >= (int)sizeof(path))
		return -1;
	map = fopen(path, "re");
	if (!map)
		return -1;
	while (fgets(line, sizeof(line), map))
		if (sscanf(line, "%" SCNx64 " %c %127s", &sym_addr, &type, symbol) == 3 &&
		    is_code_symbol(type) && sym_addr <= addr && sym_addr >= best_addr) {
			best_addr = sym_addr;
			memcpy(best, symbol, sizeof(best));
		}
	fclose(map);
	if (!best[0])
		return -1;
	snprintf(name, size, "%s+0x%" PRIx64, best, addr - best_addr);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * The site map (include/rewind/abi.h REWIND_RT_SITES): when the input asks
 * for racy events (its racy-events flag, pct mode) and the harness has
 * learned the job's quiet sites (harness/racy_sites.c), the VMM copies them
 * into the runtime's map when the runtime registers it. From then on the
 * runtime counts 1 in REWIND_SITE_WEIGHT of the events at those sites and
 * every other event in full, and the input's
 * demote positions divide the profile's events counted the same way
 * (vm->cfg.pct_racy_events, vmm/counter.c). A map that cannot be written
 * (not page-aligned, not mapped, read-only) leaves the run counting every
 * event, with positions over every event: the run is still a valid one.
 */
#include "vmm/sites.h"

#include "vmm/user_context.h"
#include "vmm/vm.h"

uint32_t sites_register(struct vm *vm, uint64_t gva)
{
	if (!vm->cfg.pct || !vm->cfg.racy || !vm->cfg.site_map || vm->counter.fair)
		return 0;
	if (gva % 4096 || gva + REWIND_SITE_BYTES < gva ||
	    !guest_virt_write(vm, gva, vm->cfg.site_map, REWIND_SITE_BYTES))
		return 0;
	vm->counter.racy = true;
	return 1;
}

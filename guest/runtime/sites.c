/* SPDX-License-Identifier: MIT */
/*
 * The site map (include/rewind/abi.h REWIND_RT_SITES): in a pct run whose
 * input counts racy events, the VMM fills in the quiet sites, those that
 * touched only unshared data in the job's profile runs, and of their
 * events only every REWIND_SITE_WEIGHT-th counts. A PCT change point then
 * lands on an event that can race far more often (a thread hashing a
 * buffer no one else writes makes thousands of events and none a bug can
 * need). Every other run counts every event.
 */
#include "guest/runtime/runtime.h"
#include "rewind/abi.h"

#include <sys/mman.h>

uint8_t rt_sites[REWIND_SITE_BYTES] __attribute__((aligned(4096)));
int rt_sites_on;
uint32_t rt_sites_passed; /* events at quiet sites so far */

/* The map's pages must exist and stay where they are while the VMM writes them. */
void rt_sites_register(void)
{
	for (unsigned int i = 0; i < sizeof(rt_sites); i += 4096)
		__atomic_store_n(&rt_sites[i], 0, __ATOMIC_RELAXED);
	mlock(rt_sites, sizeof(rt_sites));
	rt_sites_on = rt_call(REWIND_RT_SITES, (uintptr_t)rt_sites, 0) == 1;
}

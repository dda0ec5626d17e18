/* SPDX-License-Identifier: MIT */
#include "vmm/msr.h"

#include "lib/log.h"

#include <stdlib.h>
#include <sys/ioctl.h>

#define MSR_MTRR_DEF_TYPE 0x2ff
#define MTRR_ENABLE	  (1u << 11)
#define MTRR_TYPE_WB	  6u
#define MSR_PAT		  0x277
#define PAT_POWER_ON	  0x0007040600070406ull /* WB, WT, UC-, UC, repeated */

static const struct kvm_msr_entry initial_msrs[] = {
	/* Firmware's job: all of RAM write-back. KVM powers on with MTRRs off,
	 * which makes every access uncached and the guest crawl. */
	{.index = MSR_MTRR_DEF_TYPE, .data = MTRR_ENABLE | MTRR_TYPE_WB},
	{.index = MSR_PAT, .data = PAT_POWER_ON},
};

int msr_init(struct kvm_machine *m)
{
	size_t count = sizeof(initial_msrs) / sizeof(initial_msrs[0]);
	struct kvm_msrs *msrs = calloc(1, sizeof(*msrs) + sizeof(initial_msrs));
	int done;

	if (!msrs)
		return -ENOMEM;
	msrs->nmsrs = (uint32_t)count;
	for (size_t i = 0; i < count; i++)
		msrs->entries[i] = initial_msrs[i];
	done = ioctl(m->vcpu_fd, KVM_SET_MSRS, msrs);
	free(msrs);
	if (done != (int)count) {
		rw_err_errno(done < 0 ? errno : EINVAL, "KVM_SET_MSRS set %d of %zu power-on MSRs",
			     done, count);
		return -EIO;
	}
	return 0;
}

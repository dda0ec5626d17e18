/* SPDX-License-Identifier: MIT */
#include "vmm/cpuid.h"

#include "lib/log.h"
#include "rewind/abi.h"

#include <cpuid.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#define CPUID_MAX_ENTRIES 256
#define AMD_VENDOR_EBX	  0x68747541 /* "Auth" of AuthenticAMD */

enum cpuid_reg { EAX, EBX, ECX, EDX };

/* A feature bit the model sets; the host's KVM must support it. */
struct cpuid_feature {
	uint32_t leaf;
	enum cpuid_reg reg;
	uint8_t bit;
	const char *name;
};

/*
 * The x86-64 baseline (v1) plus CMPXCHG16B and LAHF: what every x86-64 KVM
 * host reports, nested ones included. FP state is the legacy FXSAVE area
 * only (no XSAVE), so its layout is the same everywhere. Deliberately absent:
 * TSC, RDTSCP, TSC-deadline, RDRAND, RDSEED, x2APIC, XSAVE, AVX*, PMU,
 * MONITOR, kvmclock.
 */
static const struct cpuid_feature model_features[] = {
	{0x1, EDX, 0, "fpu"},
	{0x1, EDX, 2, "de"},
	{0x1, EDX, 3, "pse"},
	{0x1, EDX, 5, "msr"},
	{0x1, EDX, 6, "pae"},
	{0x1, EDX, 8, "cx8"},
	{0x1, EDX, 9, "apic"},
	{0x1, EDX, 11, "sep"},
	{0x1, EDX, 13, "pge"},
	{0x1, EDX, 15, "cmov"},
	{0x1, EDX, 16, "pat"},
	{0x1, EDX, 17, "pse36"},
	{0x1, EDX, 19, "clflush"},
	{0x1, EDX, 23, "mmx"},
	{0x1, EDX, 24, "fxsr"},
	{0x1, EDX, 25, "sse"},
	{0x1, EDX, 26, "sse2"},
	{0x1, ECX, 13, "cx16"},
	{0x80000001, ECX, 0, "lahf_lm"},
	{0x80000001, EDX, 11, "syscall"},
	{0x80000001, EDX, 20, "nx"},
	{0x80000001, EDX, 29, "lm"},
};

#define CPUID_HYPERVISOR_BIT 31 /* leaf 1 ECX: "running under a hypervisor" */
#define MODEL_PHYS_BITS	     36 /* at most what any x86-64 host has */
#define MODEL_VIRT_BITS	     48

static uint32_t *entry_reg(struct kvm_cpuid_entry2 *e, enum cpuid_reg reg)
{
	switch (reg) {
	case EAX:
		return &e->eax;
	case EBX:
		return &e->ebx;
	case ECX:
		return &e->ecx;
	default:
		return &e->edx;
	}
}

static struct kvm_cpuid_entry2 *find_entry(struct kvm_cpuid2 *c, uint32_t leaf, uint32_t index)
{
	for (uint32_t i = 0; i < c->nent; i++) {
		if (c->entries[i].function == leaf && c->entries[i].index == index)
			return &c->entries[i];
	}
	return NULL;
}

static struct kvm_cpuid2 *get_supported(const struct kvm_machine *m)
{
	struct kvm_cpuid2 *c = calloc(1, sizeof(*c) + CPUID_MAX_ENTRIES * sizeof(c->entries[0]));

	if (!c)
		return NULL;
	c->nent = CPUID_MAX_ENTRIES;
	if (ioctl(m->sys_fd, KVM_GET_SUPPORTED_CPUID, c) < 0) {
		rw_err_errno(errno, "KVM_GET_SUPPORTED_CPUID");
		free(c);
		return NULL;
	}
	return c;
}

static int check_host_features(struct kvm_cpuid2 *host)
{
	for (size_t i = 0; i < sizeof(model_features) / sizeof(model_features[0]); i++) {
		const struct cpuid_feature *f = &model_features[i];
		struct kvm_cpuid_entry2 *e = find_entry(host, f->leaf, 0);

		if (!e || !(*entry_reg(e, f->reg) >> f->bit & 1)) {
			rw_err("this host's KVM lacks CPU feature '%s' (CPUID 0x%x), which the "
			       "Rewind CPU model needs",
			       f->name, f->leaf);
			return -ENOTSUP;
		}
	}
	return 0;
}

static struct kvm_cpuid_entry2 *add_entry(struct kvm_cpuid2 *c, uint32_t leaf, uint32_t index)
{
	struct kvm_cpuid_entry2 *e = &c->entries[c->nent++];

	*e = (struct kvm_cpuid_entry2){.function = leaf, .index = index};
	if (leaf == 0x7)
		e->flags = KVM_CPUID_FLAG_SIGNIFCANT_INDEX;
	return e;
}

static void set_features(struct kvm_cpuid2 *c)
{
	for (size_t i = 0; i < sizeof(model_features) / sizeof(model_features[0]); i++) {
		const struct cpuid_feature *f = &model_features[i];

		*entry_reg(find_entry(c, f->leaf, 0), f->reg) |= 1u << f->bit;
	}
}

/* Brand string CPUID_MODEL_BRAND in leaves 0x80000002-4, 16 bytes each. */
static void set_brand(struct kvm_cpuid2 *c)
{
	char brand[48] = CPUID_MODEL_BRAND;

	for (uint32_t i = 0; i < 3; i++)
		memcpy(&add_entry(c, 0x80000002 + i, 0)->eax, brand + 16 * i, 16);
}

static void build_model(struct kvm_cpuid2 *c, const struct kvm_cpuid_entry2 *host_vendor, int amd)
{
	struct kvm_cpuid_entry2 *e;

	e = add_entry(c, 0x0, 0);
	*e = *host_vendor; /* vendor string; the model's family follows it */
	e->eax = 0x7;
	/* family/model/stepping fixed per vendor; CLFLUSH line 64 bytes, APIC id 0 */
	add_entry(c, 0x1, 0)->eax = amd ? 0x00800f12 : 0x000306a9;
	c->entries[c->nent - 1].ebx = 8u << 8;
	c->entries[c->nent - 1].ecx = 1u << CPUID_HYPERVISOR_BIT;
	add_entry(c, 0x7, 0);
	add_entry(c, 0x80000000, 0)->eax = 0x80000008;
	add_entry(c, 0x80000001, 0);
	set_brand(c);
	add_entry(c, 0x80000008, 0)->eax = MODEL_PHYS_BITS | MODEL_VIRT_BITS << 8;
	e = add_entry(c, REWIND_CPUID_SIGNATURE, 0);
	e->eax = REWIND_CPUID_FEATURES;
	e->ebx = REWIND_SIGNATURE_EBX;
	e->ecx = REWIND_SIGNATURE_ECX;
	e->edx = REWIND_SIGNATURE_EDX;
	add_entry(c, REWIND_CPUID_FEATURES, 0)->eax = REWIND_ABI_VERSION;
	set_features(c);
}

static const char *model_name(int amd)
{
	return amd ? "rewind-amd-v1" : "rewind-intel-v1";
}

const char *cpuid_model_name_here(void)
{
	unsigned int eax, ebx = 0, ecx, edx;

	__get_cpuid(0, &eax, &ebx, &ecx, &edx);
	return model_name(ebx == AMD_VENDOR_EBX);
}

int cpuid_model_apply(struct kvm_machine *m, const char **name)
{
	struct kvm_cpuid2 *host = get_supported(m), *model;
	struct kvm_cpuid_entry2 *vendor;
	int amd, rc;

	if (!host)
		return -EIO;
	vendor = find_entry(host, 0x0, 0);
	amd = vendor && vendor->ebx == AMD_VENDOR_EBX;
	rc = vendor ? check_host_features(host) : -ENOTSUP;
	model = calloc(1, sizeof(*model) + CPUID_MAX_ENTRIES * sizeof(model->entries[0]));
	if (!rc && !model)
		rc = -ENOMEM;
	if (!rc) {
		build_model(model, vendor, amd);
		if (ioctl(m->vcpu_fd, KVM_SET_CPUID2, model) < 0) {
			rc = -errno;
			rw_err_errno(-rc, "KVM_SET_CPUID2");
		}
	}
	*name = model_name(amd);
	m->cpu_vendor_amd = amd;
	free(model);
	free(host);
	return rc;
}

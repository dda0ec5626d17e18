/* SPDX-License-Identifier: MIT */
/*
 * The local APIC: KVM's in-kernel one with a split irqchip, so there is no
 * PIC, IOAPIC or PIT. The VMM injects fixed interrupts with an MSI write to
 * the APIC, only while the vCPU is stopped at an exit the guest made; the
 * guest takes it at the first instruction boundary with interrupts enabled,
 * which is decided by its own instruction stream, never by host timing.
 */
#ifndef REWIND_LAPIC_H
#define REWIND_LAPIC_H

#include "vmm/kvm.h"

#include <stdint.h>

/* Must run before the vCPU is created. */
int lapic_create(struct kvm_machine *m);

/* Makes vector pending in the guest's local APIC (edge-triggered, fixed). */
int lapic_inject(struct kvm_machine *m, uint8_t vector);

#endif

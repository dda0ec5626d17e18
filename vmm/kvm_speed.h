/* SPDX-License-Identifier: MIT */
/*
 * Does this host's /dev/kvm run guest code at hardware speed? Some nested
 * clouds offer a /dev/kvm that emulates every guest instruction (about 1 µs
 * each): a Linux guest then crawls, boots take minutes and runs end stuck.
 * The probe times a 100,000-iteration two-instruction loop in a fresh VM:
 * well under a millisecond with hardware virtualization, a few inside the
 * KVM box (tests/box/run), tens to hundreds where the guest is emulated.
 * Shared by the programs and the box's own probe (tests/box/kvm_probe.c).
 */
#ifndef REWIND_KVM_SPEED_H
#define REWIND_KVM_SPEED_H

#include <stdbool.h>
#include <stddef.h>

#define KVM_SPEED_SLOW_MS     25.0 /* the loop taking longer than this: slow */
#define KVM_SPEED_HARDWARE_MS 0.05 /* the loop at one iteration a cycle, 2 GHz */
#define KVM_SPEED_ITERATIONS  100000u

#define KVM_SPEED_TRIES 3 /* a slow loop is timed again, the best kept */

/*
 * Times the loop in a fresh VM into *ms, in the thread's CPU time (the guest's
 * included). 0, or -errno when /dev/kvm is unusable.
 */
int kvm_speed_measure(double *ms);

/*
 * The best of up to KVM_SPEED_TRIES timings, stopping at the first under
 * the threshold: a busy host or a cold first VM can make one loop slow.
 */
int kvm_speed_measure_best(double *ms);

/* The threshold: REWIND_SLOW_KVM_MS if set to a positive number, else KVM_SPEED_SLOW_MS. */
double kvm_speed_slow_ms(void);

/* The message for a loop that took ms: how many times slower, and what to do. */
void kvm_speed_describe(double ms, char *out, size_t len);

/*
 * Refuses a slow /dev/kvm with that message (-ENOTSUP) unless
 * REWIND_ALLOW_SLOW_KVM=1; 0 when it is fast, allowed, or unusable (opening
 * the VM later says why).
 */
int kvm_speed_check(void);

#endif

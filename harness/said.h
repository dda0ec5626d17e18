/* SPDX-License-Identifier: MIT */
/*
 * Words of rewind-harness that `rewind fuzz` reads back from its probe
 * run's log to choose a job's mode and corpus: one text for both.
 */
#ifndef REWIND_HARNESS_SAID_H
#define REWIND_HARNESS_SAID_H

/* The end of the error for a counter- or pct-mode job with no events at all. */
#define SAID_NOT_INSTRUMENTED "this job never started Rewind's runtime"

/* Said of a pct run whose events the guest kernel made (linux/patches/0016). */
#define SAID_KERNEL_EVENTS                                                                         \
	"the job is not instrumented: its schedule events are its threads' accesses off their "    \
	"own stacks"

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The virtual clock. Time moves only by the guest's own actions: a fixed
 * quantum per step (an exit the guest made), and jumps to the armed timer when
 * the guest idles. Host time is never read.
 */
#ifndef REWIND_CLOCK_H
#define REWIND_CLOCK_H

#include <stdint.h>

#define CLOCK_DEFAULT_QUANTUM_NS 5000u /* 5 µs per step */
/*
 * Virtual time at power-on: a machine a test runs on has been up for a
 * while, and the guest kernel's monotonic and boot-time clocks start from
 * it (the boot offset is the scheduler clock at timekeeping's start). Code
 * that needs a monotonic clock past a few seconds (libevent's clock
 * calibration waits for 5 s) then works as on real hardware.
 */
#define CLOCK_POWER_ON_NS (120ull * 1000000000ull)

struct vclock {
	uint64_t now_ns;     /* since power-on */
	uint64_t quantum_ns; /* added by every step */
};

static inline void vclock_step(struct vclock *c)
{
	c->now_ns += c->quantum_ns;
}

/* Computation the guest reported (counter mode): time moves by ns. */
static inline void vclock_advance(struct vclock *c, uint64_t ns)
{
	c->now_ns += ns;
}

/* Idle until deadline: time jumps there (never backwards). */
static inline void vclock_jump_to(struct vclock *c, uint64_t deadline_ns)
{
	if (deadline_ns > c->now_ns)
		c->now_ns = deadline_ns;
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The host's monotonic clock, for budgets, progress and reports only: no
 * reading of it ever reaches the guest (vmm/clock.h is the guest's time).
 */
#ifndef REWIND_HOST_TIME_H
#define REWIND_HOST_TIME_H

#include <stdint.h>
#include <time.h>

static inline struct timespec host_time_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now;
}

static inline double host_time_seconds(void)
{
	struct timespec now = host_time_now();

	return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static inline double host_time_seconds_since(const struct timespec *start)
{
	struct timespec now = host_time_now();

	return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

static inline uint64_t host_time_ms(void)
{
	struct timespec now = host_time_now();

	return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
}

#endif

/* SPDX-License-Identifier: MIT */
#include "harness/explain/access_label.h"

#include "rewind/abi.h"

const char *access_verb(uint32_t what)
{
	switch (REWIND_SCHED_KIND_OF(what)) {
	case REWIND_SCHED_READ:
		return "reads";
	case REWIND_SCHED_WRITE:
		return "writes";
	case REWIND_SCHED_ATOMIC:
		return "does an atomic read-modify-write at";
	default:
		return "accesses";
	}
}

const char *access_kind(uint32_t what)
{
	switch (REWIND_SCHED_KIND_OF(what)) {
	case REWIND_SCHED_READ:
		return "read";
	case REWIND_SCHED_WRITE:
		return "write";
	case REWIND_SCHED_ATOMIC:
		return "atomic read-modify-write";
	default:
		return "access";
	}
}

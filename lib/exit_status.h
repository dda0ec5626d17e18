/* SPDX-License-Identifier: MIT */
/*
 * The exit-status contract every Rewind program keeps (docs/exit-status.md):
 * `rewind run`, `fuzz`, `replay`, `explain`, `bundle`, `trace`, `keyframe`,
 * `explore`, `report` and rewind-harness's own modes. A job's own exit
 * status is never one of these: it is reported in the summary line and in
 * --json.
 */
#ifndef REWIND_EXIT_STATUS_H
#define REWIND_EXIT_STATUS_H

enum rewind_exit {
	REWIND_EXIT_OK = 0,	 /* success, nothing found (a job that passed, no failure) */
	REWIND_EXIT_FOUND = 1,	 /* a failure: found, reproduced, or the job failed */
	REWIND_EXIT_USAGE = 2,	 /* bad usage or setup: nothing ran (bad option or file, no KVM) */
	REWIND_EXIT_DIFFERS = 3, /* a replay differs from what its artifact recorded */
	REWIND_EXIT_HOST = 4,	 /* the host could not finish: KVM or host error, output lost */
	REWIND_EXIT_SIGNAL = 128 /* stopped by signal N: 128 + N (130: an interrupt) */
};

#endif

/* SPDX-License-Identifier: MIT */
/*
 * rewind-harness [OPTIONS] INPUT, and the AFL++ target: under afl-fuzz a
 * forkserver, otherwise one input run once (its output, its outcome, an
 * artifact if it fails).
 */
#ifndef REWIND_CMD_RUN_H
#define REWIND_CMD_RUN_H

#include "harness/cli.h"

/* An enum cli_status. */
int cmd_run(struct cli *c);

#endif

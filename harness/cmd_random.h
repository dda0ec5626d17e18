/* SPDX-License-Identifier: MIT */
/*
 * rewind-harness --random N: the baseline search coverage guidance is
 * measured against (random inputs, no feedback).
 */
#ifndef REWIND_CMD_RANDOM_H
#define REWIND_CMD_RANDOM_H

#include "harness/cli.h"

/* STATUS_FOUND: a failure found; STATUS_OK: none; STATUS_SETUP; STATUS_HOST. */
int cmd_random(struct cli *c);

#endif

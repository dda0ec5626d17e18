/* SPDX-License-Identifier: MIT */
/*
 * The front-ends that run an artifact again: --replay FILE..., --bundle
 * ARTIFACT -o DIR and --explain FILE (harness/replay.h, harness/bundle.h,
 * harness/explain/explain.h).
 */
#ifndef REWIND_CMD_REPLAY_H
#define REWIND_CMD_REPLAY_H

#include "harness/cli.h"

/* --replay FILE [FILE...]: each in turn; the status is the worst. */
int cmd_replay(struct cli *c);

/* --bundle ARTIFACT -o DIR. An enum cli_status. */
int cmd_bundle(struct cli *c);

/* --explain FILE [-o JSON]. An enum cli_status. */
int cmd_explain(struct cli *c);

#endif

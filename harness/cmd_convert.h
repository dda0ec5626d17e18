/* SPDX-License-Identifier: MIT */
/*
 * rewind-harness --to-json and --from-json: an input between its binary form
 * (what afl-fuzz mutates) and its JSON form (docs/input-format.md).
 */
#ifndef REWIND_CMD_CONVERT_H
#define REWIND_CMD_CONVERT_H

/*
 * --to-json FILE: prints a binary input (decoded as the harness would), a
 * JSON input, or an artifact's, as JSON. An enum cli_status.
 */
int cmd_to_json(const char *path);

/* --from-json FILE -o OUT: writes the input of a JSON input or artifact as binary. */
int cmd_from_json(const char *path, const char *out);

#endif

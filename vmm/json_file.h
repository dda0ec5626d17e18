/* SPDX-License-Identifier: MIT */
/* Writing a JSON document to a file atomically (vmm/file.h's file_write_atomic). */
#ifndef REWIND_JSON_FILE_H
#define REWIND_JSON_FILE_H

#include <cjson/cJSON.h>

/* Writes json (pretty-printed) to path: all of it or nothing. 0 or -errno (reported). */
int json_write_atomic(const char *path, const cJSON *json);

/*
 * Prints json on one line of stdout (a --json result) and frees it; what
 * names it in an error ("the JSON result"). 0, or -errno (reported).
 */
int json_print_line(cJSON *json, const char *what);

#endif

/* SPDX-License-Identifier: MIT */
/* Writing a JSON document to a file atomically (vmm/file.h's file_write_atomic). */
#ifndef REWIND_JSON_FILE_H
#define REWIND_JSON_FILE_H

#include <cjson/cJSON.h>

/* Writes json (pretty-printed) to path: all of it or nothing. 0 or -errno (reported). */
int json_write_atomic(const char *path, const cJSON *json);

#endif

/* SPDX-License-Identifier: MIT */
/* Writing a JSON document to a file atomically (lib/file.h's file_write_atomic). */
#ifndef REWIND_JSON_FILE_H
#define REWIND_JSON_FILE_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Reads path (an untrusted file of at most max bytes; what names it in
 * messages, lib/file.h's file_read_max) and parses it. The document, or
 * NULL: no such file (silently), a file that cannot be read (reported) or
 * text that is not JSON. The caller deletes it.
 */
cJSON *json_read_file(const char *path, size_t max, const char *what);

/* Writes json (pretty-printed) to path: all of it or nothing. 0 or -errno (reported). */
int json_write_atomic(const char *path, const cJSON *json);

/*
 * Prints json on one line of stdout (a --json result) and frees it; what
 * names it in an error ("the JSON result"). 0, or -errno (reported).
 */
int json_print_line(cJSON *json, const char *what);

/* How json_add_hex writes a number: each kind of value has one form. */
enum json_hex {
	JSON_HEX_HASH,	  /* a 64-bit hash: "0x" and 16 digits */
	JSON_HEX_ADDRESS, /* an address or value: "0x" and its digits */
	JSON_HEX_PLAIN,	  /* 16 digits, no 0x: manifest.json, whose run ID names its folder */
};

/* Adds key: v as a string of lower-case hex digits in the form kind says. */
void json_add_hex(cJSON *o, const char *key, uint64_t v, enum json_hex kind);

#endif

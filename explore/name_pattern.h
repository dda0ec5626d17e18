/* SPDX-License-Identifier: MIT */
/*
 * The test-name patterns of a suite file (a runner's "exclude", its
 * overrides' "match"): a shell glob matched against the whole name, or
 * "re:REGEX", an extended regex found anywhere in it. Each is compiled once
 * and then matched against every test the runner gives.
 */
#ifndef REWIND_NAME_PATTERN_H
#define REWIND_NAME_PATTERN_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

struct name_pattern {
	const char *glob; /* the pattern as written, not copied (a glob unless is_regex) */
	bool is_regex;
	regex_t re; /* is_regex: the compiled "re:" part */
};

/* A list of patterns; the first count are compiled. */
struct name_patterns {
	struct name_pattern *at;
	size_t count;
};

/*
 * Compiles pattern (a non-empty string, kept pointed at) into p: 0, or -1
 * when it is "re:" and what follows is not an extended regex (the caller
 * says so).
 */
int name_pattern_compile(struct name_pattern *p, const char *pattern);

bool name_pattern_matches(const struct name_pattern *p, const char *name);

/* Room for n patterns, none compiled yet: 0, or -1 when out of memory. */
int name_patterns_alloc(struct name_patterns *ps, size_t n);

/* Compiles pattern as the next of ps (name_pattern_compile). */
int name_patterns_add(struct name_patterns *ps, const char *pattern);

/* The index of the first pattern of ps that name matches, or -1. */
long name_patterns_first(const struct name_patterns *ps, const char *name);

/* Frees the compiled patterns and the list; ps is empty after. */
void name_patterns_free(struct name_patterns *ps);

#endif

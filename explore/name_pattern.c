/* SPDX-License-Identifier: MIT */
/* A suite file's test-name patterns: globs and "re:" regexes (explore/name_pattern.h). */
#include "explore/name_pattern.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

int name_pattern_compile(struct name_pattern *p, const char *pattern)
{
	*p = (struct name_pattern){.glob = pattern};
	if (strncmp(pattern, "re:", 3))
		return 0;
	if (regcomp(&p->re, pattern + 3, REG_EXTENDED | REG_NOSUB))
		return -1;
	p->is_regex = true;
	return 0;
}

bool name_pattern_matches(const struct name_pattern *p, const char *name)
{
	if (p->is_regex)
		return regexec(&p->re, name, 0, NULL, 0) == 0;
	return fnmatch(p->glob, name, 0) == 0;
}

int name_patterns_alloc(struct name_patterns *ps, size_t n)
{
	*ps = (struct name_patterns){.at = calloc(n + 1, sizeof(*ps->at))};
	return ps->at ? 0 : -1;
}

int name_patterns_add(struct name_patterns *ps, const char *pattern)
{
	if (name_pattern_compile(&ps->at[ps->count], pattern))
		return -1;
	ps->count++;
	return 0;
}

long name_patterns_first(const struct name_patterns *ps, const char *name)
{
	for (size_t i = 0; i < ps->count; i++)
		if (name_pattern_matches(&ps->at[i], name))
			return (long)i;
	return -1;
}

void name_patterns_free(struct name_patterns *ps)
{
	for (size_t i = 0; i < ps->count; i++)
		if (ps->at[i].is_regex)
			regfree(&ps->at[i].re);
	free(ps->at);
	*ps = (struct name_patterns){.at = NULL};
}

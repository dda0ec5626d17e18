/* SPDX-License-Identifier: MIT */
#include "lib/number.h"

#include "lib/log.h"

#include <errno.h>
#include <stdlib.h>

int number_parse_u64(const char *text, const char *what, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(text, &end, 0);
	if (errno || end == text || *end || text[0] == '-' || *out < min || *out > max) {
		if (min == 0 && max == UINT64_MAX)
			rw_err("%s must be a non-negative integer, not '%s'", what, text);
		else
			rw_err("%s must be an integer in %llu..%llu, not '%s'", what,
			       (unsigned long long)min, (unsigned long long)max, text);
		return -EINVAL;
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* rewind-harness --help: what it does, its options and exit statuses. */
#ifndef REWIND_USAGE_H
#define REWIND_USAGE_H

#include <stdio.h>

void cli_usage(FILE *to);

/* rewind replay|explain|bundle --help: that subcommand's use and options. */
void cli_word_usage(const char *word, FILE *to);

#endif

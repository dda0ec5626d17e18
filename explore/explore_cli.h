/* SPDX-License-Identifier: MIT */
/*
 * `rewind explore`'s command line (explore/explore_cli.c): its options,
 * checked and parsed before anything is made or started.
 */
#ifndef REWIND_EXPLORE_CLI_H
#define REWIND_EXPLORE_CLI_H

#include "explore/night.h"
#include "explore/slurm.h"

#include <stdbool.h>

#define DEFAULT_RESULTS "rewind-nightly"
#define DEFAULT_SECONDS 3600u
#define MAX_WORKERS	1024u /* --jobs, --array */

struct cli {
	const char *suite, *results, *night_dir;
	unsigned int seconds, jobs;
	enum night_layout layout;
	bool resume, finish, slurm, list_tests;
	long worker; /* --worker K (a Slurm array task), -1 if not */
	struct slurm_options slurm_opt;
};

/*
 * Parses argv into c (--help prints the usage and exits 0). 0, or -1 with
 * one error line said: a usage error.
 */
int explore_parse_cli(struct cli *c, int argc, char **argv);

#endif

/*
 * A suite file (docs/explore.md): the tests `rewind explore` explores, each
 * a command with the rewind-harness job options it needs.
 */
#ifndef REWIND_SUITE_H
#define REWIND_SUITE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#define SUITE_MAX_TESTS	   128
#define SUITE_MAX_ARGS	   64
#define SUITE_NAME_MAX	   64
#define SUITE_FILE_MAX	   (1u << 20)
#define SUITE_WORKER_EVERY (-1) /* a test every worker explores (layout "instances") */

struct suite_test {
	char name[SUITE_NAME_MAX];
	bool plain;	    /* not built with rewind-cc: injections at exits */
	unsigned int share; /* weight in the time budget */
	/* rewind-harness job options (--add, --mem, ...), host paths absolute */
	char *args[SUITE_MAX_ARGS];
	size_t arg_count;
	char *command[SUITE_MAX_ARGS];
	size_t command_len;
	/* the plan: seconds each of its workers fuzzes it, and which worker */
	unsigned int seconds;
	int worker;
};

struct suite {
	struct suite_test tests[SUITE_MAX_TESTS];
	size_t count;
};

/* Reads a suite file; relative host paths are resolved against its folder. */
int suite_load(const char *path, struct suite *s);

/* The tests as night.json keeps them (with the plan), and back. */
cJSON *suite_to_json(const struct suite *s);
int suite_from_json(const cJSON *tests, struct suite *s, const char *what);

/* The test of that name, or NULL. */
const struct suite_test *suite_find(const struct suite *s, const char *name);

void suite_free(struct suite *s);

#endif

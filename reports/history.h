/* SPDX-License-Identifier: MIT */
/*
 * The history of every night of a results directory: RESULTS/history.sqlite
 * (schema: docs/explore.md). Only the finishing step of `rewind explore`
 * writes it; `rewind report` reads it.
 */
#ifndef REWIND_HISTORY_H
#define REWIND_HISTORY_H

#include <sqlite3.h>
#include <stdint.h>

#define HISTORY_FILE "history.sqlite"

/* Opens (creating it and its tables if needed) RESULTS/history.sqlite. */
int history_open(const char *results_dir, sqlite3 **db);

/* Opens an existing history read-only; fails with a message if there is none. */
int history_open_existing(const char *results_dir, sqlite3 **db);

/* Runs SQL that returns no rows; reports a failure with its context. */
int history_exec(sqlite3 *db, const char *sql, const char *what);

/* Prepares one statement; reports a failure with its context. */
int history_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st);

/* The latest night's id, 0 if there is none. */
int history_latest_night(sqlite3 *db, int64_t *night);

#endif

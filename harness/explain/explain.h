/* SPDX-License-Identifier: MIT */
/*
 * `rewind-harness --explain FILE`: why a failure happens, for a developer
 * who was not there. From a crash artifact, bundle or raw input it finds:
 *   - the minimal schedule: injections dropped and arguments shrunk while
 *     the failure keeps its signature (harness/explain/minimise.h), saved as an
 *     artifact of its own;
 *   - where each remaining injection landed: the thread, the function and
 *     file:line it was in, the calls that led there, and what the job's
 *     other threads were doing (harness/explain/landing.h);
 *   - the deciding window of each: the earliest and latest position (step
 *     or event) at which it still causes the failure, and the neighbouring
 *     positions where the job passes;
 *   - the racing pair: for an instrumented job, the two accesses to one
 *     address whose order differs between the failing run and the nearest
 *     passing one (the VMM's event log); otherwise the first context
 *     switches that differ;
 *   - a timeline of the job's threads around the failure.
 * Printed as text; the same as JSON in FILE.explain.json (or -o PATH).
 */
#ifndef REWIND_EXPLAIN_H
#define REWIND_EXPLAIN_H

#include "harness/replay.h"

/*
 * An enum replay_status: REPLAY_FAILS it fails (as recorded) and is
 * explained, REPLAY_OK it does not fail, REPLAY_DIFFERS not as the artifact
 * recorded, REPLAY_BAD_FILE or REPLAY_SETUP nothing ran, REPLAY_HOST the
 * host could not finish (or the explanation could not be written).
 */
int explain_file(const char *path, const struct replay_options *opt, const char *json_path);

#endif

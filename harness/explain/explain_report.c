/* SPDX-License-Identifier: MIT */
#include "harness/explain/explain_report.h"

#include "harness/artifact.h"
#include "harness/explain/access_label.h"
#include "lib/file.h"
#include "lib/json_file.h"
#include "lib/log.h"
#include "vmm/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* --- text ----------------------------------------------------------------- */

/* Where the text goes: stdout, or stderr when stdout carries --json's object. */
static FILE *report_text;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(report_text ? report_text : stdout, fmt, ap);
	va_end(ap);
}

static const char *unit_name(enum position_unit u)
{
	return u == UNIT_STEP ? "step" : "event";
}

static void injection_text(const struct injection *inj, char *buf, size_t len)
{
	const char *kind = injection_kind_name(inj->kind);

	switch (inj->kind) {
	case INJECT_STALL:
	case INJECT_TIMER_LATE:
		snprintf(buf, len, "%s %u us at step %u", kind, inj->arg, inj->step);
		break;
	case INJECT_PREEMPT_INSNS:
		snprintf(buf, len, "%s %u instructions after step %u", kind, inj->arg, inj->step);
		break;
	case INJECT_PREEMPT:
		snprintf(buf, len, "%s at event %u", kind, inj->step);
		break;
	case INJECT_PRIORITY:
		snprintf(buf, len, "%s %u for thread %u", kind, inj->arg, inj->step);
		break;
	case INJECT_DEMOTE:
		snprintf(buf, len, "%s to priority %u at position %u/2^32", kind, inj->arg,
			 inj->step);
		break;
	default:
		snprintf(buf, len, "%s at step %u", kind ? kind : "?", inj->step);
	}
}

/*
 * A run stuck in user space: the function it spins in, from the program's
 * symbols. The RIP is where the host noticed (it differs from run to run
 * inside the loop), so the function is named, not the address.
 */
static void print_stuck_where(const struct explanation *x)
{
	struct code_location loc;
	char text[512];
	uint64_t rip = x->failure.stuck.rip;

	if (x->failure.cls != CLASS_STUCK || !x->failure.stuck.in_user || !x->syms.ok)
		return;
	if (!symbols_in_text(&x->syms, rip) || symbols_lookup(&x->syms, &rip, 1, &loc) < 0)
		return;
	code_location_text(&loc, text, sizeof(text));
	say("  where: %s in %s\n", text, x->program);
}

static void print_failure(const struct explanation *x, const char *path)
{
	say("Explanation of %s\n\n", path);
	say("Failure: %s", exec_class_name(x->failure.cls));
	if (x->failure.cls == CLASS_SIGNAL)
		say(" (the job was killed by SIG%s)",
		    sigabbrev_np(WTERMSIG(x->failure.job_status)) ?: "?");
	else if (x->failure.cls == CLASS_EXIT)
		say(" (the job exited with %d)", WEXITSTATUS(x->failure.job_status));
	else
		say(" (%s)", x->failure.detail);
	say(" at step %" PRIu64 "\n", x->failure.job_steps);
	print_stuck_where(x);
	if (x->signature.last_line[0])
		say("  its last output line: \"%s\" (numbers as #)\n", x->signature.last_line);
}

/* A walk's failure: the walk, and the PCT sample that stands for it, if one does. */
static void print_walk(const struct explanation *x)
{
	say("  the input is a walk (seed 0x%016" PRIx64
	    "): the runtime drew the thread to run at each event from the seed, weighted by "
	    "the threads' remaining events, so it has no change point to move\n",
	    x->walk.seed);
	if (x->stand_in)
		say("  PCT sample %u of the %u tried (drawn from the walk's seed) fails the same "
		    "way and stands for it, minimised: the schedule below, where it landed, its "
		    "window, the racing pair and the timeline are that sample's\n",
		    x->stand_in, WALK_STAND_IN_TRIES);
	else
		say("  none of %u PCT samples (drawn from the walk's seed) failed the same way: "
		    "no injection to place, no racing pair; the timeline is the walk's\n",
		    WALK_STAND_IN_TRIES);
}

static void print_minimal(const struct explanation *x, const char *min_path)
{
	char text[160];

	say("\nMinimal schedule: %u injection%s (the input had %u), found in %" PRIu64
	    " executions; saved as %s\n",
	    x->minimal.schedule.count, x->minimal.schedule.count == 1 ? "" : "s",
	    x->original.schedule.count, x->minimise_execs, min_path);
	if (x->is_walk)
		print_walk(x);
	else if (x->minimal.schedule.count == 0)
		say("  none: the job fails without any injection (seed 0x%016" PRIx64 ")\n",
		    x->minimal.seed);
	for (uint32_t i = 0; i < x->minimal.schedule.count; i++) {
		injection_text(&x->minimal.schedule.at[i], text, sizeof(text));
		say("  [%u] %s\n", i, text);
	}
}

static void print_location(const char *prefix, const struct code_location *loc)
{
	char text[512];

	code_location_text(loc, text, sizeof(text));
	say("%s%s\n", prefix, text);
}

static void print_others(const struct landing *l)
{
	char who[200];

	for (unsigned int i = 0; i < l->other_count; i++) {
		const struct other_thread *o = &l->others[i];

		thread_ref_text(&o->thread, who, sizeof(who));
		if (o->exited)
			say("      meanwhile %s had exited\n", who);
		else
			say("      meanwhile %s was not running (it last ran at step %" PRIu64
			    ")%s%s%s\n",
			    who, o->last_ran_step, o->last_output[0] ? "; its last output: \"" : "",
			    o->last_output, o->last_output[0] ? "\"" : "");
	}
}

static void print_landing(const struct landing *l)
{
	char text[160], who[200];

	injection_text(&l->inj, text, sizeof(text));
	say("  %s", text);
	if (l->event)
		say(" (event %" PRIu64 ", step %" PRIu64 ")", l->event, l->step);
	if (!l->has_thread) {
		say(": no user thread was running\n");
		return;
	}
	thread_ref_text(&l->thread, who, sizeof(who));
	say("\n      hit %s\n", who);
	if (l->has_site)
		print_location("      in ", &l->site);
	for (unsigned int i = 0; i < l->caller_count; i++)
		print_location("      called from ", &l->callers[i]);
	if (l->last_output[0])
		say("      its last output: \"%s\"\n", l->last_output);
	print_others(l);
}

static void print_window(const struct window *w)
{
	const char *u = unit_name(w->unit);

	say("  [%u] fails at every %s from %" PRIu64 " to %" PRIu64 " (it is at %" PRIu64 ")",
	    w->index, u, w->lo, w->hi, w->pos);
	if (w->below.found)
		say("; at %s %" PRIu64 " %s", u, w->below.pos,
		    w->below.cls == CLASS_PASS ? "the job passes" : exec_class_name(w->below.cls));
	else if (w->lo == 0)
		say("; there is no earlier %s", u);
	else if (w->below.capped)
		say("; still fails %u %ss earlier (not searched further)", EXPLAIN_WINDOW_SCAN, u);
	if (w->above.found)
		say("; at %s %" PRIu64 " %s", u, w->above.pos,
		    w->above.cls == CLASS_PASS ? "the job passes" : exec_class_name(w->above.cls));
	else if (w->above.capped)
		say("; still fails %u %ss later (not searched further)", EXPLAIN_WINDOW_SCAN, u);
	say("\n");
}

static void access_text(const struct access *a, const struct thread_table *tt, char *buf,
			size_t len)
{
	const struct thread_ref *t = thread_table_find(tt, a->tid);
	char where[400];

	char value[40] = "";

	code_location_text(&a->site, where, sizeof(where));
	if (a->value_known)
		snprintf(value, sizeof(value), ", value %" PRIu64, a->value);
	snprintf(buf, len, "thread %u (tid %u) %s 0x%" PRIx64 " in %s%s", t ? t->ordinal : 0,
		 a->tid, access_verb(a->what), a->addr, where, value);
}

/* "T1 (tid 14)" for a job thread, "the idle task", or "another task (tid 8)". */
static void task_text(uint32_t tid, const struct thread_table *tt, char *buf, size_t len)
{
	const struct thread_ref *t = thread_table_find(tt, tid);

	if (tid == 0)
		snprintf(buf, len, "the idle task");
	else if (t && tt->job_pid && t->pid == tt->job_pid)
		snprintf(buf, len, "T%u (tid %u)", t->ordinal, tid);
	else
		snprintf(buf, len, "another task (tid %u)", tid);
}

static void print_switch(const char *run, const struct switch_rec *sw,
			 const struct thread_table *tt)
{
	char from[64], to[64];

	task_text(sw->from, tt, from, sizeof(from));
	task_text(sw->to, tt, to, sizeof(to));
	say("  %s run: at step %" PRIu64 " the CPU goes from %s to %s\n", run, sw->step, from, to);
}

static void print_pair(const struct explanation *x)
{
	char first[600], second[600];

	if (x->minimal.mode == INPUT_MODE_STEPS) {
		const struct switch_diff *d = &x->switch_diff;

		if (!x->has_passing || !d->found)
			return;
		say("\nThe context switches that differ (failing run vs the nearest passing "
		    "one):\n");
		if (d->in_fail)
			print_switch("failing", &d->fail, &x->threads);
		if (d->in_pass)
			print_switch("passing", &d->pass, &x->threads);
		return;
	}
	if (!x->pair.found) {
		say("\nRacing pair: %s\n",
		    !x->has_passing ? "no passing run one position away to compare with"
		    : !x->pair.log_faithful
			    ? "the event logs did not reproduce both runs: not named"
			    : "no access whose order differs was found");
		return;
	}
	access_text(&x->pair.first, &x->threads, first, sizeof(first));
	access_text(&x->pair.second, &x->threads, second, sizeof(second));
	say("\nRacing pair (the order of these two accesses decides):\n"
	    "  the load:  %s\n"
	    "  the store: %s\n"
	    "  in the nearest passing run the load reads this store; in the failing run %s\n",
	    first, second,
	    x->pair.second_after ? "the store comes after the load"
				 : "another store comes between them");
}

static void print_timeline(const struct explanation *x)
{
	uint32_t cols[TIMELINE_COLUMNS];
	unsigned int ncols = 0;

	for (unsigned int i = 0; i < x->threads.count && ncols < TIMELINE_COLUMNS; i++)
		if (x->threads.t[i].pid == x->threads.job_pid && x->threads.job_pid)
			cols[ncols++] = x->threads.t[i].tid;
	say("\nTimeline of the job's threads (steps from READY; >> an injection):\n  %6s", "step");
	for (unsigned int c = 0; c < ncols; c++) {
		const struct thread_ref *t = thread_table_find(&x->threads, cols[c]);
		char head[40];

		snprintf(head, sizeof(head), "T%u (tid %u)", t ? t->ordinal : 0, cols[c]);
		say(" | %-30s", head);
	}
	say("\n");
	for (unsigned int i = 0; i < x->row_count; i++) {
		const struct timeline_row *r = &x->rows[i];
		unsigned int c = 0;

		if (r->tid == ROW_CUT) {
			say("  %6s\n", "...");
			continue;
		}
		say("  %6" PRIu64, r->step);
		if (r->tid == 0) {
			say(" | %s\n", r->text);
			continue;
		}
		while (c < ncols && cols[c] != r->tid)
			c++;
		if (c == ncols) { /* a thread beyond the columns */
			say(" | tid %u: %s\n", r->tid, r->text);
			continue;
		}
		for (unsigned int k = 0; k < c; k++)
			say(" | %-30s", "");
		say(" | %s\n", r->text);
	}
}

/* --- JSON ------------------------------------------------------------------ */

static cJSON *location_json(const struct code_location *loc)
{
	cJSON *o = cJSON_CreateObject(), *inl = NULL;

	json_add_hex(o, "address", loc->addr, JSON_HEX_ADDRESS);
	cJSON_AddStringToObject(o, "function", loc->frames[0].function);
	cJSON_AddStringToObject(o, "file", loc->frames[0].file);
	cJSON_AddNumberToObject(o, "line", loc->frames[0].line);
	for (unsigned int i = 1; i < loc->depth; i++) {
		cJSON *f = cJSON_CreateObject();

		if (!inl)
			inl = cJSON_AddArrayToObject(o, "inlined_into");
		cJSON_AddStringToObject(f, "function", loc->frames[i].function);
		cJSON_AddStringToObject(f, "file", loc->frames[i].file);
		cJSON_AddNumberToObject(f, "line", loc->frames[i].line);
		cJSON_AddItemToArray(inl, f);
	}
	return o;
}

static cJSON *thread_json(const struct thread_ref *t)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "ordinal", t->ordinal);
	cJSON_AddNumberToObject(o, "tid", t->tid);
	cJSON_AddNumberToObject(o, "pid", t->pid);
	cJSON_AddStringToObject(o, "program", t->exe);
	return o;
}

static cJSON *landing_json(const struct landing *l)
{
	cJSON *o = cJSON_CreateObject(), *callers, *others;
	char text[160];

	injection_text(&l->inj, text, sizeof(text));
	cJSON_AddStringToObject(o, "injection", text);
	cJSON_AddNumberToObject(o, "step", (double)l->step);
	if (l->event)
		cJSON_AddNumberToObject(o, "event", (double)l->event);
	if (l->has_thread)
		cJSON_AddItemToObject(o, "thread", thread_json(&l->thread));
	if (l->has_site)
		cJSON_AddItemToObject(o, "site", location_json(&l->site));
	callers = cJSON_AddArrayToObject(o, "called_from");
	for (unsigned int i = 0; i < l->caller_count; i++)
		cJSON_AddItemToArray(callers, location_json(&l->callers[i]));
	cJSON_AddStringToObject(o, "last_output", l->last_output);
	others = cJSON_AddArrayToObject(o, "other_threads");
	for (unsigned int i = 0; i < l->other_count; i++) {
		cJSON *t = thread_json(&l->others[i].thread);

		cJSON_AddBoolToObject(t, "exited", l->others[i].exited);
		cJSON_AddNumberToObject(t, "last_ran_step", (double)l->others[i].last_ran_step);
		cJSON_AddStringToObject(t, "last_output", l->others[i].last_output);
		cJSON_AddItemToArray(others, t);
	}
	return o;
}

static cJSON *side_json(const struct window_side *s)
{
	cJSON *o = cJSON_CreateObject();

	if (s->found) {
		cJSON_AddNumberToObject(o, "position", (double)s->pos);
		cJSON_AddStringToObject(o, "outcome", exec_class_name(s->cls));
	}
	cJSON_AddBoolToObject(o, "searched_to_limit", s->capped);
	return o;
}

static cJSON *window_json(const struct window *w)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "injection", w->index);
	cJSON_AddStringToObject(o, "unit", unit_name(w->unit));
	cJSON_AddNumberToObject(o, "position", (double)w->pos);
	cJSON_AddNumberToObject(o, "earliest_failing", (double)w->lo);
	cJSON_AddNumberToObject(o, "latest_failing", (double)w->hi);
	cJSON_AddItemToObject(o, "below", side_json(&w->below));
	cJSON_AddItemToObject(o, "above", side_json(&w->above));
	return o;
}

static cJSON *access_json(const struct access *a)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "tid", a->tid);
	cJSON_AddStringToObject(o, "kind", access_kind(a->what));
	json_add_hex(o, "address", a->addr, JSON_HEX_ADDRESS);
	if (a->value_known)
		json_add_hex(o, "value", a->value, JSON_HEX_ADDRESS);
	cJSON_AddNumberToObject(o, "event", (double)a->index);
	cJSON_AddItemToObject(o, "site", location_json(&a->site));
	return o;
}

/* {"seed", "pct_samples_tried", "stand_in"}: a walk's failure and its PCT stand-in (or null). */
static cJSON *walk_json(const struct explanation *x)
{
	cJSON *o = cJSON_CreateObject();
	char seed[24];

	snprintf(seed, sizeof(seed), "0x%016" PRIx64, x->walk.seed);
	cJSON_AddStringToObject(o, "seed", seed);
	cJSON_AddNumberToObject(o, "pct_samples_tried",
				x->stand_in ? x->stand_in : WALK_STAND_IN_TRIES);
	if (x->stand_in)
		cJSON_AddNumberToObject(o, "stand_in", x->stand_in);
	else
		cJSON_AddNullToObject(o, "stand_in");
	return o;
}

static cJSON *explanation_json(const struct explanation *x, const char *path, const char *min_path)
{
	cJSON *o = cJSON_CreateObject(), *list;

	cJSON_AddStringToObject(o, "format", "rewind-explanation");
	cJSON_AddNumberToObject(o, "version", 1);
	cJSON_AddStringToObject(o, "file", path);
	cJSON_AddStringToObject(o, "program", x->program);
	cJSON_AddStringToObject(o, "outcome", exec_class_name(x->failure.cls));
	cJSON_AddStringToObject(o, "last_output_line", x->signature.last_line);
	cJSON_AddItemToObject(o, "minimal_input", input_to_json(&x->minimal));
	cJSON_AddStringToObject(o, "minimal_artifact", min_path);
	cJSON_AddNumberToObject(o, "minimise_executions", (double)x->minimise_execs);
	cJSON_AddNumberToObject(o, "window_executions", (double)x->window_execs);
	if (x->is_walk)
		cJSON_AddItemToObject(o, "walk", walk_json(x));
	list = cJSON_AddArrayToObject(o, "landings");
	for (unsigned int i = 0; i < x->landing_count; i++)
		cJSON_AddItemToArray(list, landing_json(&x->landings[i]));
	list = cJSON_AddArrayToObject(o, "windows");
	for (unsigned int i = 0; i < x->window_count; i++)
		cJSON_AddItemToArray(list, window_json(&x->windows[i]));
	if (x->pair.found) {
		cJSON *p = cJSON_AddObjectToObject(o, "racing_pair");

		cJSON_AddItemToObject(p, "load", access_json(&x->pair.first));
		cJSON_AddItemToObject(p, "store", access_json(&x->pair.second));
		cJSON_AddBoolToObject(p, "store_after_load_in_failing_run", x->pair.second_after);
	}
	list = cJSON_AddArrayToObject(o, "timeline");
	for (unsigned int i = 0; i < x->row_count; i++) {
		cJSON *r = cJSON_CreateObject();

		if (x->rows[i].tid == ROW_CUT) {
			cJSON_AddBoolToObject(r, "cut", true);
		} else {
			cJSON_AddNumberToObject(r, "step", (double)x->rows[i].step);
			cJSON_AddNumberToObject(r, "tid", x->rows[i].tid);
			cJSON_AddStringToObject(r, "what", x->rows[i].text);
		}
		cJSON_AddItemToArray(list, r);
	}
	return o;
}

/* The racing pair's code locations. */
static void locate_pair(struct explanation *x)
{
	uint64_t addrs[2] = {x->pair.first.pc - 1, x->pair.second.pc - 1};
	struct code_location locs[2];

	if (!x->pair.found || symbols_lookup(&x->syms, addrs, 2, locs) < 0)
		return;
	x->pair.first.site = locs[0];
	x->pair.second.site = locs[1];
	x->pair.first.site.addr = x->pair.first.pc;
	x->pair.second.site.addr = x->pair.second.pc;
}

int explain_report(struct explanation *x, const struct executor *ex, const struct replay_case *c,
		   const char *path, const char *json_path, FILE *text)
{
	char min_path[4200], out_path[4200];
	uint8_t raw[INPUT_MAX_SIZE];
	const struct harness_job *job = &c->job;
	cJSON *json;
	int rc;

	snprintf(min_path, sizeof(min_path), "%s.min.json", path);
	snprintf(out_path, sizeof(out_path), "%s", json_path ? json_path : "");
	if (!json_path)
		snprintf(out_path, sizeof(out_path), "%s.explain.json", path);
	report_text = text;
	locate_pair(x);
	print_failure(x, path);
	print_minimal(x, min_path);
	say("\nWhere %s landed:\n", x->landing_count == 1 ? "it" : "they");
	for (unsigned int i = 0; i < x->landing_count; i++)
		print_landing(&x->landings[i]);
	if (x->window_count)
		say("\nThe deciding window (moving one injection, the rest kept):\n");
	for (unsigned int i = 0; i < x->window_count; i++)
		print_window(&x->windows[i]);
	print_pair(x);
	print_timeline(x);
	fflush(text);
	rc = c->is_artifact
		     ? artifact_write_to(min_path, job, ex, raw, input_encode(&x->minimal, raw),
					 &x->minimal, &x->final)
		     : 0;
	json = explanation_json(x, path, c->is_artifact ? min_path : "");
	if (!rc)
		rc = json_write_atomic(out_path, json);
	cJSON_Delete(json);
	if (!rc)
		fprintf(stderr, "%s: explanation written to %s\n", rw_log.program, out_path);
	return rc;
}

cJSON *explain_report_json(const struct explanation *x, const struct replay_case *c,
			   const char *path)
{
	char min_path[4200];

	snprintf(min_path, sizeof(min_path), "%s.min.json", path);
	return explanation_json(x, path, c->is_artifact ? min_path : "");
}

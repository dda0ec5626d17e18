/* SPDX-License-Identifier: MIT */
/* The timeline around the failure (harness/explain/timeline.h). */
#include "harness/explain/timeline.h"

#include "vmm/trace.h"

#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#define ALL_ROWS_MAX   8192
#define NEAR_LANDING   6   /* rows kept on each side of a landing */
#define NEAR_END       14  /* rows kept before the end */
#define SPIN_ROWS_MAX  256 /* spin yields named by their code location */
#define SPIN_SITES_MAX 16  /* distinct spin addresses looked up (one addr2line call) */

/* A spin yield's row, named once the walk is done (one lookup for them all). */
struct spin_row {
	unsigned int row; /* its index in the walk's rows */
	uint64_t rip;	  /* where the spin was yielded */
	uint64_t sleep_ns;
};

struct row_walk {
	struct thread_table *tt;
	struct timeline_row *rows;
	unsigned int count;
	struct spin_row spins[SPIN_ROWS_MAX];
	unsigned int spin_count;
};

static bool job_thread(const struct thread_table *tt, uint32_t tid)
{
	const struct thread_ref *t = thread_table_find(tt, tid);

	return t && tt->job_pid && t->pid == tt->job_pid;
}

static void add_row(struct row_walk *w, uint64_t step, uint32_t tid, bool landing, const char *fmt,
		    ...) __attribute__((format(printf, 5, 6)));

static void add_row(struct row_walk *w, uint64_t step, uint32_t tid, bool landing, const char *fmt,
		    ...)
{
	struct timeline_row *r;
	va_list ap;

	if (w->count == ALL_ROWS_MAX)
		return;
	r = &w->rows[w->count++];
	*r = (struct timeline_row){.step = step, .tid = tid, .landing = landing};
	va_start(ap, fmt);
	vsnprintf(r->text, sizeof(r->text), fmt, ap);
	va_end(ap);
}

static void output_row(struct row_walk *w, const struct trace_record *r, const uint8_t *payload,
		       uint64_t step)
{
	char line[60];
	uint32_t n = 0;

	for (uint32_t i = 0; i < r->len && n + 1 < sizeof(line); i++)
		if (payload[i] >= 0x20 && payload[i] < 0x7f)
			line[n++] = (char)payload[i];
		else if (payload[i] == '\n' && i + 1 < r->len && n + 3 < sizeof(line))
			line[n++] = '|';
	line[n] = '\0';
	add_row(w, step, r->tid, false, "out \"%s\"", line);
}

static void exit_row(struct row_walk *w, const struct trace_record *r, uint64_t step)
{
	int status = (int)r->args[0];

	if (!r->args[1])
		add_row(w, step, r->tid, false, "thread exits");
	else if (WIFSIGNALED(status))
		add_row(w, step, r->tid, false, "killed by SIG%s",
			sigabbrev_np(WTERMSIG(status)) ?: "?");
	else
		add_row(w, step, r->tid, false, "exits %d", WEXITSTATUS(status));
}

static void injection_row(struct row_walk *w, const struct trace_record *r, uint64_t step)
{
	const char *kind = injection_kind_name((unsigned int)r->args[0]);

	add_row(w, step, w->tt->current, true, ">> %s %" PRIu64 "%s lands", kind ? kind : "?",
		r->args[1],
		r->args[0] == INJECT_PREEMPT_INSNS ? " insns"
		: r->args[0] == INJECT_RESCHED	   ? ""
						   : " us");
}

static void preempt_row(struct row_walk *w, const struct trace_record *r, uint64_t step)
{
	static const char *const why[] = {"preempted", "time slice over", "preempted (insns)",
					  "demoted"};

	if (r->args[1] == PREEMPT_WHY_SLICE || r->args[1] >= 4)
		return;
	add_row(w, step, w->tt->current, r->args[1] != PREEMPT_WHY_INSNS, ">> %s at event %" PRIu64,
		why[r->args[1]], r->args[0]);
}

/* A pure spin the VMM yielded (vmm/spin_rescue.c): its text once its address is named. */
static void spin_yield_row(struct row_walk *w, const struct trace_record *r, uint64_t step)
{
	if (!job_thread(w->tt, r->tid) || w->spin_count == SPIN_ROWS_MAX ||
	    w->count == ALL_ROWS_MAX)
		return;
	w->spins[w->spin_count++] =
		(struct spin_row){.row = w->count, .rip = r->args[0], .sleep_ns = r->args[1]};
	add_row(w, step, r->tid, false, "spun at 0x%" PRIx64, r->args[0]);
}

/* "4 ms", or "1500 us" for a time that is no whole number of milliseconds. */
static void sleep_text(uint64_t ns, char *buf, size_t len)
{
	if (ns % 1000000 == 0)
		snprintf(buf, len, "%" PRIu64 " ms", ns / 1000000);
	else
		snprintf(buf, len, "%" PRIu64 " us", ns / 1000);
}

/*
 * Names each spin yield's address as explain names other code (function,
 * file:line; the hex address where the program's symbols do not reach):
 * the yielded RIP is the instruction the spin goes on at, not a return
 * address. The distinct addresses are looked up at once.
 */
static void name_spin_rows(struct row_walk *w, const struct symbols *syms)
{
	uint64_t sites[SPIN_SITES_MAX];
	struct code_location locs[SPIN_SITES_MAX];
	unsigned int nsites = 0;
	bool named = false;

	for (unsigned int i = 0; i < w->spin_count; i++) {
		unsigned int k = 0;

		while (k < nsites && sites[k] != w->spins[i].rip)
			k++;
		if (k == nsites && nsites < SPIN_SITES_MAX &&
		    symbols_in_text(syms, w->spins[i].rip))
			sites[nsites++] = w->spins[i].rip;
	}
	if (nsites)
		named = symbols_lookup(syms, sites, nsites, locs) == 0;
	for (unsigned int i = 0; i < w->spin_count; i++) {
		const struct spin_row *s = &w->spins[i];
		char where[160], nap[24];
		unsigned int k = 0;

		while (k < nsites && sites[k] != s->rip)
			k++;
		if (named && k < nsites)
			code_location_text(&locs[k], where, sizeof(where));
		else
			snprintf(where, sizeof(where), "0x%" PRIx64, s->rip);
		sleep_text(s->sleep_ns, nap, sizeof(nap));
		snprintf(w->rows[s->row].text, sizeof(w->rows[s->row].text),
			 "spun at %s (a pure spin: yielded, sleeps %s so the others run)", where,
			 nap);
	}
}

static void record_row(struct row_walk *w, const struct trace_record *r, const uint8_t *payload,
		       uint64_t step)
{
	const struct thread_ref *t;

	switch (r->type) {
	case REWIND_EV_SWITCH:
		if (job_thread(w->tt, (uint32_t)r->args[1]))
			add_row(w, step, (uint32_t)r->args[1], false, "runs");
		break;
	case TRACE_INJECT:
		injection_row(w, r, step);
		break;
	case TRACE_PREEMPT:
		preempt_row(w, r, step);
		break;
	case TRACE_SPIN_YIELD:
		spin_yield_row(w, r, step);
		break;
	case REWIND_EV_OUTPUT:
		if (job_thread(w->tt, r->tid))
			output_row(w, r, payload, step);
		break;
	case REWIND_EV_FORK:
		t = thread_table_find(w->tt, (uint32_t)r->args[0]);
		if (r->args[2] && t && job_thread(w->tt, r->tid))
			add_row(w, step, r->tid, false, "creates thread %u (tid %u)", t->ordinal,
				t->tid);
		break;
	case REWIND_EV_EXIT:
		if (job_thread(w->tt, r->tid))
			exit_row(w, r, step);
		break;
	case REWIND_EV_SIGNAL:
		if (job_thread(w->tt, r->tid))
			add_row(w, step, r->tid, false, "gets SIG%s",
				sigabbrev_np((int)r->args[0]) ?: "?");
		break;
	case TRACE_OUTCOME:
		add_row(w, step, 0, false, "the run ends: %s",
			vm_outcome_name((enum vm_outcome)r->args[0]));
		break;
	default:
		break;
	}
}

/* Keeps the rows near a landing and before the end; a cut row for each gap. */
static void select_rows(struct explanation *x, const struct timeline_row *all, unsigned int n)
{
	static bool keep[ALL_ROWS_MAX];
	unsigned int kept = 0;

	memset(keep, 0, sizeof(keep));
	for (unsigned int i = 0; i < n; i++) {
		keep[i] = i + NEAR_END >= n;
		for (unsigned int j = i > NEAR_LANDING ? i - NEAR_LANDING : 0;
		     !keep[i] && j < n && j <= i + NEAR_LANDING; j++)
			keep[i] = all[j].landing;
	}
	for (unsigned int i = 0; i < n; i++)
		kept += keep[i];
	x->row_count = 0;
	for (unsigned int i = 0; i < n && x->row_count < TIMELINE_ROWS; i++) {
		if (kept > TIMELINE_ROWS - 4 && !keep[i] && n > TIMELINE_ROWS)
			continue;
		if (n > TIMELINE_ROWS && !keep[i]) {
			if (x->row_count && x->rows[x->row_count - 1].tid == ROW_CUT)
				continue;
			x->rows[x->row_count++] = (struct timeline_row){.tid = ROW_CUT};
			x->rows_cut = true;
			continue;
		}
		x->rows[x->row_count++] = all[i];
	}
}

void timeline_of(const struct executor *ex, struct explanation *x)
{
	static struct timeline_row all[ALL_ROWS_MAX];
	static struct row_walk w;
	uint64_t ready = ex->vm.ready_step;
	struct trace_record r;
	const uint8_t *payload;

	w = (struct row_walk){.tt = &x->threads, .rows = all};
	memset(&x->threads, 0, sizeof(x->threads));
	/* the table first: a fork's row names the thread the record makes */
	for (size_t at = 0; trace_next(&ex->vm.trace, &at, &r, &payload);) {
		thread_table_feed(&x->threads, &r, payload, ready);
		if (at > ex->job_trace_from && r.step >= ready)
			record_row(&w, &r, payload, r.step - ready);
	}
	name_spin_rows(&w, &x->syms);
	select_rows(x, all, w.count);
}

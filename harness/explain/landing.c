/* SPDX-License-Identifier: MIT */
#include "harness/explain/landing.h"

#include "rewind/abi.h"
#include "vmm/trace.h"

#include <stdio.h>
#include <string.h>

static struct thread_ref *table_slot(struct thread_table *tt, uint32_t tid)
{
	for (unsigned int i = 0; i < tt->count; i++)
		if (tt->t[i].tid == tid)
			return &tt->t[i];
	if (tt->count == sizeof(tt->t) / sizeof(tt->t[0]))
		return NULL;
	tt->last_ran[tt->count] = 0;
	tt->exited[tt->count] = false;
	tt->last_output[tt->count][0] = '\0';
	tt->t[tt->count] = (struct thread_ref){.tid = tid, .pid = tid, .ordinal = 1};
	return &tt->t[tt->count++];
}

const struct thread_ref *thread_table_find(const struct thread_table *tt, uint32_t tid)
{
	for (unsigned int i = 0; i < tt->count; i++)
		if (tt->t[i].tid == tid)
			return &tt->t[i];
	return NULL;
}

static unsigned int threads_of(const struct thread_table *tt, uint32_t pid)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < tt->count; i++)
		n += tt->t[i].pid == pid;
	return n;
}

/* The last non-empty line of an output payload, control characters dropped. */
static void last_line(const uint8_t *p, uint32_t len, char *out, size_t out_len)
{
	uint32_t end = len, start;
	size_t n = 0;

	while (end > 0 && (p[end - 1] == '\n' || p[end - 1] == '\r'))
		end--;
	if (end == 0)
		return;
	start = end;
	while (start > 0 && p[start - 1] != '\n')
		start--;
	for (uint32_t i = start; i < end && n + 1 < out_len; i++)
		if (p[i] >= 0x20 && p[i] < 0x7f)
			out[n++] = (char)p[i];
	out[n] = '\0';
}

static void on_exec(struct thread_table *tt, const struct trace_record *r, const uint8_t *payload,
		    bool after_ready)
{
	struct thread_ref *t = table_slot(tt, r->tid);

	if (!t)
		return;
	t->pid = r->pid;
	t->ordinal = 1;
	for (unsigned int i = 0; i < tt->count; i++)
		if (tt->t[i].pid == r->pid)
			snprintf(tt->t[i].exe, sizeof(tt->t[i].exe), "%.*s",
				 (int)strnlen((const char *)payload, r->len),
				 (const char *)payload);
	if (after_ready && !tt->job_pid)
		tt->job_pid = r->pid;
}

static void on_fork(struct thread_table *tt, const struct trace_record *r)
{
	const struct thread_ref *parent = thread_table_find(tt, r->tid);
	uint32_t pid = (uint32_t)r->args[1];
	unsigned int ordinal = r->args[2] ? threads_of(tt, pid) + 1 : 1;
	struct thread_ref *child = table_slot(tt, (uint32_t)r->args[0]);

	if (!child)
		return;
	child->pid = pid;
	child->ordinal = ordinal;
	snprintf(child->exe, sizeof(child->exe), "%s", parent ? parent->exe : "");
}

static void on_exit_record(struct thread_table *tt, const struct trace_record *r)
{
	for (unsigned int i = 0; i < tt->count; i++)
		if (tt->t[i].tid == r->tid || (r->args[1] && tt->t[i].pid == r->pid))
			tt->exited[i] = true;
}

void thread_table_feed(struct thread_table *tt, const struct trace_record *r,
		       const uint8_t *payload, uint64_t ready_step)
{
	bool after_ready = ready_step && r->step >= ready_step;
	uint64_t step = after_ready ? r->step - ready_step : 0;

	switch (r->type) {
	case REWIND_EV_SWITCH:
		for (unsigned int i = 0; i < tt->count; i++)
			if (tt->t[i].tid == (uint32_t)r->args[0])
				tt->last_ran[i] = step;
		tt->current = (uint32_t)r->args[1];
		break;
	case REWIND_EV_EXEC:
		on_exec(tt, r, payload, after_ready);
		break;
	case REWIND_EV_FORK:
		on_fork(tt, r);
		break;
	case REWIND_EV_EXIT:
		on_exit_record(tt, r);
		break;
	case REWIND_EV_OUTPUT:
		for (unsigned int i = 0; i < tt->count; i++)
			if (tt->t[i].tid == r->tid)
				last_line(payload, r->len, tt->last_output[i],
					  sizeof(tt->last_output[i]));
		break;
	default:
		break;
	}
}

/* The calls that led to the context's RIP: return addresses on its stack. */
static unsigned int stack_callers(const struct user_context *uc, const struct symbols *syms,
				  uint64_t *out, unsigned int max)
{
	unsigned int n = 0;

	for (uint32_t i = 0; i < uc->stack_words && n < max; i++)
		if (symbols_after_call(syms, uc->stack[i]) &&
		    (n == 0 || out[n - 1] != uc->stack[i]))
			out[n++] = uc->stack[i];
	return n;
}

static const struct code_frame *outermost(const struct code_location *loc)
{
	return &loc->frames[loc->depth ? loc->depth - 1 : 0];
}

/* Names the site (and, from a context, the callers) of a landing. */
static void locate(struct landing *l, uint64_t site, const struct user_context *uc,
		   const struct symbols *syms)
{
	uint64_t addrs[1 + LANDING_CALLERS];
	struct code_location locs[1 + LANDING_CALLERS];
	unsigned int n = 1;

	if (!symbols_in_text(syms, site))
		return;
	/* a return address or an interrupted RIP follows the instruction that matters */
	addrs[0] = site - 1;
	if (uc)
		n += stack_callers(uc, syms, addrs + 1, LANDING_CALLERS);
	if (symbols_lookup(syms, addrs, n, locs) < 0)
		return;
	l->has_site = true;
	l->site = locs[0];
	l->site.addr = site;
	l->caller_count = 0;
	for (unsigned int i = 1; i < n; i++) {
		const struct code_location *prev =
			i > 1 ? &l->callers[l->caller_count - 1] : &l->site;

		if (!strcmp(outermost(prev)->function, "main"))
			break; /* what called main is the C library's start-up */
		if (strcmp(locs[i].frames[0].function, prev->frames[0].function) != 0)
			l->callers[l->caller_count++] = locs[i];
	}
}

static void note_others(struct landing *l, const struct thread_table *tt)
{
	l->other_count = 0;
	for (unsigned int i = 0; i < tt->count && l->other_count < LANDING_THREADS; i++) {
		if (tt->t[i].pid != l->thread.pid || tt->t[i].tid == l->thread.tid)
			continue;
		l->others[l->other_count++] =
			(struct other_thread){.thread = tt->t[i],
					      .last_ran_step = tt->last_ran[i],
					      .exited = tt->exited[i]};
		snprintf(l->others[l->other_count - 1].last_output, LANDING_OUTPUT_LEN, "%s",
			 tt->last_output[i]);
	}
}

static void start_landing(struct landing *l, const struct thread_table *tt, uint64_t step)
{
	const struct thread_ref *t = thread_table_find(tt, tt->current);

	l->step = step;
	l->has_thread = t != NULL;
	if (t) {
		l->thread = *t;
		for (unsigned int i = 0; i < tt->count; i++)
			if (tt->t[i].tid == t->tid)
				snprintf(l->last_output, sizeof(l->last_output), "%s",
					 tt->last_output[i]);
		note_others(l, tt);
	}
}

/* The next preempt or demote of the sorted schedule after *cursor. */
static int next_event_injection(const struct schedule *s, uint32_t *cursor)
{
	for (; *cursor < s->count; (*cursor)++)
		if (s->at[*cursor].kind == INJECT_PREEMPT || s->at[*cursor].kind == INJECT_DEMOTE)
			return (int)(*cursor)++;
	return -1;
}

struct landing_walk {
	const struct executor *ex;
	const struct user_context *contexts;
	unsigned int ncontexts, context_next;
	const struct symbols *syms;
	struct landing *out;
	unsigned int max, count;
	uint32_t event_cursor;
	struct thread_table tt;
};

static void on_inject(struct landing_walk *w, const struct trace_record *r, uint64_t step)
{
	struct landing *l = &w->out[w->count++];
	const struct user_context *uc =
		w->context_next < w->ncontexts ? &w->contexts[w->context_next++] : NULL;
	uint32_t index = (uint32_t)r->args[2];

	*l = (struct landing){.index = index};
	if (index < w->ex->sorted.count)
		l->inj = w->ex->sorted.at[index];
	start_landing(l, &w->tt, step);
	if (uc && uc->valid)
		locate(l, uc->rip, uc, w->syms);
}

static void on_preempt(struct landing_walk *w, const struct trace_record *r, uint64_t step)
{
	struct landing *l;
	int index;

	if (r->args[1] == PREEMPT_WHY_INSNS) { /* where a preempt-insns landed */
		for (unsigned int i = w->count; i-- > 0;)
			if (w->out[i].inj.kind == INJECT_PREEMPT_INSNS) {
				w->out[i].has_site = false;
				locate(&w->out[i], r->args[2], NULL, w->syms);
				break;
			}
		return;
	}
	if (r->args[1] != PREEMPT_WHY_BLOCK && r->args[1] != PREEMPT_WHY_DEMOTE)
		return;
	index = next_event_injection(&w->ex->sorted, &w->event_cursor);
	if (index < 0)
		return;
	l = &w->out[w->count++];
	*l = (struct landing){
		.index = (uint32_t)index, .inj = w->ex->sorted.at[index], .event = r->args[0]};
	start_landing(l, &w->tt, step);
	locate(l, r->args[2], NULL, w->syms);
}

unsigned int landings_of(const struct executor *ex, const struct user_context *contexts,
			 unsigned int ncontexts, const struct symbols *syms, struct landing *out,
			 unsigned int max)
{
	static struct landing_walk w;
	const struct trace *t = &ex->vm.trace;
	uint64_t ready = ex->vm.ready_step;
	struct trace_record r;
	const uint8_t *payload;

	w = (struct landing_walk){.ex = ex,
				  .contexts = contexts,
				  .ncontexts = ncontexts,
				  .syms = syms,
				  .out = out,
				  .max = max};
	for (size_t at = 0; w.count < max && trace_next(t, &at, &r, &payload);) {
		uint64_t step = r.step >= ready ? r.step - ready : 0;

		if (r.type == TRACE_INJECT)
			on_inject(&w, &r, step);
		else if (r.type == TRACE_PREEMPT)
			on_preempt(&w, &r, step);
		thread_table_feed(&w.tt, &r, payload, ready);
	}
	return w.count;
}

void thread_ref_text(const struct thread_ref *t, char *buf, size_t len)
{
	if (t->ordinal == 1)
		snprintf(buf, len, "thread 1 (tid %u, the main thread of %s)", t->tid,
			 t->exe[0] ? t->exe : "its process");
	else
		snprintf(buf, len, "thread %u (tid %u, of %s)", t->ordinal, t->tid,
			 t->exe[0] ? t->exe : "its process");
}

/* SPDX-License-Identifier: MIT */
#include "harness/explain/explain.h"

#include "harness/explain/explain_report.h"
#include "harness/explain/guest_maps.h"
#include "harness/explain/minimise.h"
#include "harness/explain/racing_pair.h"
#include "harness/explain/timeline.h"
#include "harness/harness.h"
#include "image/guest_files.h"
#include "image/tree_path.h"
#include "lib/log.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define EVENT_LOG_CAP (1u << 19) /* events logged per run for the racing pair */
#define EXPLAINED     256	 /* explain_run: the failure explained, its report next */

/* Where an injection acts, in the unit it counts: steps, or events (k: the demotes' events). */
static bool position_of(uint64_t k, const struct injection *inj, enum position_unit *unit,
			uint64_t *pos)
{
	switch (inj->kind) {
	case INJECT_PRIORITY:
		return false; /* a thread's priority: no place in time */
	case INJECT_PREEMPT:
		*unit = UNIT_EVENT;
		*pos = inj->step;
		return true;
	case INJECT_DEMOTE:
		*unit = UNIT_EVENT;
		*pos = (uint64_t)inj->step * k >> 32;
		return true;
	default:
		*unit = UNIT_STEP;
		*pos = inj->step;
		return true;
	}
}

/* The injection moved to pos (in its unit); false if no position means pos. */
static bool move_to(uint64_t k, struct injection *inj, uint64_t pos)
{
	uint64_t step = pos;

	if (inj->kind == INJECT_DEMOTE) {
		if (pos >= k)
			return false;
		/* the least fraction of 2^32 whose event is pos */
		step = ((pos << 32) + k - 1) / k;
		if ((step * k >> 32) != pos)
			return false;
	}
	if (step > UINT32_MAX)
		return false;
	inj->step = (uint32_t)step;
	return true;
}

/* Runs the input with injection i moved to pos: 1 fails alike, 0 not, -1 no such position. */
static int probe(struct explanation *x, struct executor *ex, uint32_t i, uint64_t pos,
		 struct exec_result *res)
{
	struct exec_input moved = x->minimal;
	int rc;

	if (!move_to(executor_demote_events(ex, &moved), &moved.schedule.at[i], pos))
		return -1;
	rc = fails_alike(ex, &moved, &x->signature, res);
	x->window_execs++;
	if (rc == 0 && !x->has_passing) { /* the nearest passing run, for the racing pair */
		x->passing = moved;
		x->has_passing = res->cls == CLASS_PASS;
	}
	return rc < 0 ? -2 : rc;
}

/* From pos, one way (dir -1 or +1), until a position no longer fails alike. */
static int scan(struct explanation *x, struct executor *ex, uint32_t i, struct window *w, int dir)
{
	uint64_t *edge = dir < 0 ? &w->lo : &w->hi;
	struct window_side *side = dir < 0 ? &w->below : &w->above;

	for (unsigned int k = 1; k <= EXPLAIN_WINDOW_SCAN; k++) {
		struct exec_result res;
		uint64_t pos = w->pos + (uint64_t)(dir * (int)k);
		int rc;

		if (dir < 0 && k > w->pos)
			return 0; /* fails down to position 0 */
		rc = probe(x, ex, i, pos, &res);
		if (rc == -2)
			return -EIO;
		if (rc == -1)
			return 0;
		if (rc == 0) {
			*side = (struct window_side){.found = true, .pos = pos, .cls = res.cls};
			return 0;
		}
		*edge = pos;
	}
	side->capped = true;
	return 0;
}

/* The deciding window of each placed injection of the minimal schedule. */
static int find_windows(struct explanation *x, struct executor *ex)
{
	x->window_count = 0;
	for (uint32_t i = 0; i < x->minimal.schedule.count && x->window_count < EXPLAIN_WINDOWS;
	     i++) {
		struct window *w = &x->windows[x->window_count];

		*w = (struct window){.index = i, .inj = x->minimal.schedule.at[i]};
		if (!position_of(executor_demote_events(ex, &x->minimal), &w->inj, &w->unit,
				 &w->pos))
			continue;
		w->lo = w->hi = w->pos;
		if (scan(x, ex, i, w, -1) < 0 || scan(x, ex, i, w, +1) < 0)
			return -EIO;
		x->window_count++;
	}
	return 0;
}

/* A logged run exits at every event: far slower, but no wall budget cuts it
 * (JOB_REPLAY_WALL_GUARD_MS). */
static int run_logged(struct executor *ex, const struct exec_input *in, struct vm_event_log *log,
		      struct exec_result *res)
{
	int rc;

	ex->cfg.event_log = log;
	rc = executor_run(ex, in, res);
	ex->cfg.event_log = NULL;
	return rc;
}

/* Switch records of the run ex just made, from READY. */
static unsigned int switches_of(const struct executor *ex, struct switch_rec *out, unsigned int max)
{
	struct trace_record r;
	unsigned int n = 0;

	for (size_t at = ex->job_trace_from; n < max && trace_next(&ex->vm.trace, &at, &r, NULL);)
		if (r.type == REWIND_EV_SWITCH)
			out[n++] = (struct switch_rec){.step = r.step - ex->vm.ready_step,
						       .from = (uint32_t)r.args[0],
						       .to = (uint32_t)r.args[1]};
	return n;
}

/* Steps mode: the first context switch the failing and the passing run do differently. */
static int differing_switch(struct explanation *x, struct executor *ex)
{
	static struct switch_rec fail[4096], pass[4096];
	struct exec_result res;
	unsigned int nf, np, i = 0;

	if (executor_run(ex, &x->minimal, &res) < 0)
		return -EIO;
	nf = switches_of(ex, fail, 4096);
	if (executor_run(ex, &x->passing, &res) < 0)
		return -EIO;
	np = switches_of(ex, pass, 4096);
	while (i < nf && i < np && !memcmp(&fail[i], &pass[i], sizeof(fail[i])))
		i++;
	x->switch_diff = (struct switch_diff){
		.found = i < nf || i < np, .in_fail = i < nf, .in_pass = i < np};
	if (i < nf)
		x->switch_diff.fail = fail[i];
	if (i < np)
		x->switch_diff.pass = pass[i];
	return 0;
}

/* Instrumented jobs: the racing pair from the event logs of both runs. */
static int racing_pair(struct explanation *x, struct executor *ex)
{
	struct vm_event_log f = {.cap = EVENT_LOG_CAP}, p = {.cap = EVENT_LOG_CAP};
	struct exec_result res;
	int rc = 0;

	f.at = calloc(EVENT_LOG_CAP, sizeof(*f.at));
	p.at = calloc(EVENT_LOG_CAP, sizeof(*p.at));
	if (!f.at || !p.at)
		rc = -ENOMEM;
	if (!rc && run_logged(ex, &x->minimal, &f, &res) < 0)
		rc = -EIO;
	/* logging must not change the run; if it did, say nothing rather than guess */
	x->pair.log_faithful = !rc && exec_class_is_failure(res.cls);
	if (!rc && run_logged(ex, &x->passing, &p, &res) < 0)
		rc = -EIO;
	x->pair.log_faithful =
		x->pair.log_faithful && !rc && res.cls == CLASS_PASS && !f.dropped && !p.dropped;
	if (x->pair.log_faithful)
		rc = racing_pair_find(&f, &p, &x->pair);
	free(f.at);
	free(p.at);
	return rc;
}

/*
 * The job's program, as the guest ran it: from the job's files, else the
 * base initramfs; a relative command from the job's working directory.
 */
static void open_symbols(struct explanation *x, const struct executor *ex, const char *exe)
{
	char path[TREE_PATH_LEN];
	struct guest_file f;

	if (!exe[0])
		return;
	if (!symbols_program_path(ex->cfg.run.cwd, exe, path, sizeof(path)) ||
	    (!guest_files_find(ex->in.job_archive, ex->in.job_archive_len, path, &f) &&
	     !guest_files_find(ex->in.base_initrd, ex->in.base_initrd_len, path, &f))) {
		fprintf(stderr, "%s: %s is not in the guest's archives: no code locations\n",
			rw_log.program, exe[0] == '/' ? exe : path);
		return;
	}
	if (symbols_open(&x->syms, f.data, f.size) == 0)
		snprintf(x->syms.obj[0].name, sizeof(x->syms.obj[0].name), "%.255s", path);
}

/* The job's program: the first exec after READY. */
static void job_program(const struct executor *ex, char *out, size_t len)
{
	struct trace_record r;
	const uint8_t *payload;

	out[0] = '\0';
	for (size_t at = ex->job_trace_from; trace_next(&ex->vm.trace, &at, &r, &payload);)
		if (r.type == REWIND_EV_EXEC) {
			snprintf(out, len, "%.*s", (int)strnlen((const char *)payload, r.len),
				 (const char *)payload);
			return;
		}
}

/*
 * The end of the job process's last output record in the run ex just
 * made, 0 if none: a run stopped there has that process's address space
 * on the CPU (the guest's console writes the record in the writer's
 * system call).
 */
static size_t job_output_end(const struct executor *ex)
{
	struct trace_record r;
	uint32_t job_pid = 0;
	size_t end = 0;

	for (size_t at = ex->job_trace_from; trace_next(&ex->vm.trace, &at, &r, NULL);) {
		if (r.type == REWIND_EV_EXEC && !job_pid)
			job_pid = r.pid;
		else if (r.type == REWIND_EV_OUTPUT && job_pid && r.pid == job_pid)
			end = at;
	}
	return end;
}

/* The file of the guest's archives whose first bytes the mapped page m holds, at its base. */
static void identify(struct symbols *syms, const struct executor *ex, const struct guest_map *m)
{
	const uint8_t *archives[2] = {ex->in.job_archive, ex->in.base_initrd};
	size_t lens[2] = {ex->in.job_archive_len, ex->in.base_initrd_len};
	size_t n = syms->obj[0].size < GUEST_MAP_HEAD_LEN ? syms->obj[0].size : GUEST_MAP_HEAD_LEN;
	struct guest_file f;

	if (!memcmp(syms->obj[0].elf, m->head, n)) { /* the program */
		symbols_mapped_at(syms, syms->obj[0].name, syms->obj[0].elf, syms->obj[0].size,
				  m->base);
		return;
	}
	for (unsigned int a = 0; a < 2; a++)
		for (size_t at = 0; guest_files_next(archives[a], lens[a], &at, &f);) {
			n = f.size < GUEST_MAP_HEAD_LEN ? f.size : GUEST_MAP_HEAD_LEN;
			if (S_ISREG(f.mode) && f.size >= sizeof(Elf64_Ehdr) &&
			    !memcmp(f.data, m->head, n)) {
				symbols_mapped_at(syms, f.path, f.data, f.size, m->base);
				return;
			}
		}
}

/*
 * A PIE program, shared libraries: where the run ex just made mapped
 * them, read from the job's address space in a run of the same input
 * stopped at the job's last output (a trace budget that ends there).
 * False if there was nothing to read: a static program, no output.
 */
static bool map_objects(struct explanation *x, struct executor *ex)
{
	static struct guest_map maps[GUEST_MAPS_MAX];
	size_t end = job_output_end(ex);
	uint64_t trace_max = ex->vm.cfg.trace_max;
	struct user_context *landings = ex->vm.landings;
	struct exec_result res;
	unsigned int n;

	if (!end || !symbols_need_bases(&x->syms))
		return false;
	ex->vm.cfg.trace_max = end - 1;
	ex->vm.landings = NULL;
	ex->budgets_exact = true;
	n = executor_run(ex, &x->minimal, &res) < 0
		    ? 0
		    : guest_maps_read(&ex->vm, maps, GUEST_MAPS_MAX);
	ex->budgets_exact = false;
	ex->vm.cfg.trace_max = trace_max;
	ex->vm.landings = landings;
	for (unsigned int i = 0; i < n; i++)
		identify(&x->syms, ex, &maps[i]);
	return true;
}

/* The final run of the minimal schedule: landings (with user contexts) and the timeline. */
static int final_run(struct explanation *x, struct executor *ex)
{
	static struct user_context contexts[LANDING_MAX];
	struct exec_result res;
	char exe[128];

	ex->vm.landings = contexts;
	ex->vm.landing_cap = LANDING_MAX;
	if (executor_run(ex, &x->minimal, &res) < 0)
		return -EIO;
	job_program(ex, exe, sizeof(exe));
	snprintf(x->program, sizeof(x->program), "%s", exe);
	open_symbols(x, ex, exe);
	/* after the stopped run, the same run again: its trace and landings */
	if (map_objects(x, ex) && executor_run(ex, &x->minimal, &res) < 0)
		return -EIO;
	ex->vm.landings = NULL;
	x->final = res;
	x->landing_count =
		landings_of(ex, contexts, ex->vm.landing_count, &x->syms, x->landings, LANDING_MAX);
	timeline_of(ex, x);
	return 0;
}

/* 0 explained, or an enum replay_status that ends it before: passes, differs, host. */
static int explain_run(struct explanation *x, struct executor *ex, const struct replay_case *c,
		       const struct replay_options *opt)
{
	struct exec_result res;
	int rc;

	if (executor_run(ex, &x->original, &res) < 0)
		return REPLAY_HOST;
	x->failure = res;
	if (replay_host_stalled(&res))
		return REPLAY_HOST; /* no verdict (said): not "does not fail" */
	if (replay_record_differences(c, opt, ex, &res)) {
		fprintf(stderr,
			"%s: the run is NOT the one the artifact recorded: nothing "
			"explained\n",
			rw_log.program);
		return REPLAY_DIFFERS;
	}
	if (!exec_class_is_failure(res.cls))
		return REPLAY_OK;
	signature_of(ex, &res, &x->signature);
	x->minimal = x->original;
	rc = minimise(ex, &x->minimal, &x->signature, &x->minimise_execs);
	x->is_walk = !rc && (x->minimal.flags & INPUT_FLAG_WALK);
	if (x->is_walk) { /* no change point to move: a PCT sample that fails alike */
		x->walk = x->minimal;
		rc = minimise_walk(ex, &x->minimal, &x->signature, &x->stand_in,
				   &x->minimise_execs);
	}
	if (!rc)
		rc = find_windows(x, ex);
	if (!rc && x->has_passing)
		rc = x->minimal.mode == INPUT_MODE_STEPS ? differing_switch(x, ex)
							 : racing_pair(x, ex);
	if (!rc)
		rc = final_run(x, ex);
	return rc < 0 ? REPLAY_HOST : EXPLAINED;
}

static int open_case(struct executor *ex, struct replay_case *c, const struct replay_options *opt)
{
	const struct harness_job *job = c->is_artifact ? &c->job : opt->job;
	struct executor_config cfg = {.run = job->run,
				      .wall_ms = JOB_REPLAY_WALL_GUARD_MS, /* not the job's */
				      .slice_blocks = job->slice_blocks,
				      .block_ns = job->block_ns,
				      .skip_status = job->skip_status,
				      .output = NULL,
				      .racy_profiles_unperturbed =
					      c->is_artifact && c->expect.version < 3};
	int rc = executor_open(ex, &cfg);

	if (!rc)
		replay_job_opened(c, opt, ex);
	return rc;
}

/* --json: the verdict (replay_json) and the explanation, or null. */
static int print_json(const struct explanation *x, const struct replay_case *c, const char *path,
		      int status)
{
	cJSON *o = replay_json("rewind-explain", path, c, &x->failure, status);

	if (o && status == REPLAY_FAILS)
		cJSON_AddItemToObject(o, "explanation", explain_report_json(x, c, path));
	else if (o)
		cJSON_AddNullToObject(o, "explanation");
	return replay_print_json(o);
}

/* Runs the explanation of a loaded case: an enum replay_status (REPLAY_FAILS: explained). */
static int explain_case(struct explanation *x, struct replay_case *c, const char *path,
			const struct replay_options *opt, const char *json_path)
{
	static struct executor ex;
	int rc = open_case(&ex, c, opt) < 0 ? REPLAY_SETUP : REPLAY_OK;

	if (rc == REPLAY_OK) {
		x->original = c->input;
		fprintf(stderr, "%s: explaining %s ...\n", rw_log.program, path);
		rc = explain_run(x, &ex, c, opt);
		if (rc == REPLAY_OK)
			fprintf(stderr, "%s: %s does not fail (outcome %s): nothing to explain\n",
				rw_log.program, path, exec_class_name(x->failure.cls));
		if (rc == EXPLAINED)
			rc = explain_report(x, &ex, c, path, json_path,
					    opt->json ? stderr : stdout) < 0
				     ? REPLAY_HOST
				     : REPLAY_FAILS;
		if (opt->json && rc != REPLAY_HOST && rc != REPLAY_SETUP) {
			int out = print_json(x, c, path, rc);

			rc = out != REPLAY_OK ? out : rc;
		}
	}
	executor_close(&ex);
	return rc;
}

int explain_file(const char *path, const struct replay_options *opt, const char *json_path)
{
	struct explanation *x = calloc(1, sizeof(*x));
	struct replay_case *c = calloc(1, sizeof(*c));
	int rc = x && c ? replay_load(path, opt, c) : REPLAY_HOST;

	if (rc == REPLAY_OK)
		rc = explain_case(x, c, path, opt, json_path);
	if (x)
		symbols_close(&x->syms);
	if (c)
		replay_case_free(c);
	free(c);
	free(x);
	return rc;
}

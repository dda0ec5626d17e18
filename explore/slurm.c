/* SPDX-License-Identifier: MIT */
/*
 * `rewind explore --engine slurm`: writes NIGHT/slurm/worker.sh (a job array,
 * one task a worker) and finish.sh (the merge, after every task has ended),
 * submits both with sbatch and, with --wait, maps the final task's end to the
 * report's exit status. Slurm's tools run through slurm_tool.c (fork/exec, no shell).
 */
#include "explore/slurm.h"

#include "explore/slurm_tool.h"
#include "lib/exit_status.h"
#include "lib/file.h"
#include "lib/log.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SLURM_JOB_NAME "rewind-explore"
#define JOB_ID_MAX     24
/* Derived time limit: the night, 10% more, and this for boots, merging and explaining. */
#define TIME_MARGIN_MIN 30u

/* The night's submission: paths as the tasks see them and the job ids. */
struct submission {
	const struct slurm_options *o;
	char night[PATH_MAX], self[PATH_MAX], cwd[PATH_MAX], dir[PATH_MAX];
	unsigned int time_limit_min;
	time_t submitted;
	char array_id[JOB_ID_MAX], finish_id[JOB_ID_MAX];
};

/* ---- the batch scripts ------------------------------------------------------------------- */

/* A final task's exit status that is one of rewind explore's (docs/exit-status.md). */
static bool explore_status(unsigned int code)
{
	return code == REWIND_EXIT_OK || code == REWIND_EXIT_FOUND || code == REWIND_EXIT_USAGE ||
	       code == REWIND_EXIT_HOST;
}

/*
 * sbatch reads #SBATCH values with its own quoting ("..."), and %a-style patterns in file
 * names; a path with a double quote, a backslash, a % or a line break cannot be written
 * there safely.
 */
static int check_script_path(const char *what, const char *path)
{
	if (!strpbrk(path, "\"\\%\n"))
		return 0;
	rw_err("%s %s has a character a Slurm batch script cannot hold (\", \\, %% or a line "
	       "break); use a path without it",
	       what, path);
	return -1;
}

int slurm_check_options(const struct slurm_options *o)
{
	if (o->array < 1) {
		rw_err("--array must be at least 1 for --engine slurm");
		return -1;
	}
	if (o->partition &&
	    (!*o->partition ||
	     strspn(o->partition, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
				  "TUVWXYZ0123456789_-.,") != strlen(o->partition))) {
		rw_err("--partition '%s' is not a Slurm partition name (letters, "
		       "digits, _ - . and , between names)",
		       o->partition);
		return -1;
	}
	if (o->wrapper && strchr(o->wrapper, '\n')) {
		rw_err("--worker-wrapper must be one line of shell words");
		return -1;
	}
	return 0;
}

/* Absolute paths, as every task sees them whatever its working directory. */
static int resolve_paths(struct submission *s, const char *self_exe, const char *night_dir)
{
	if (!realpath(night_dir, s->night)) {
		rw_err_errno(errno, "cannot find the night's folder %s", night_dir);
		return -1;
	}
	if (!strchr(self_exe, '/')) {
		/* a bare name: each task finds it in PATH */
		if ((size_t)snprintf(s->self, sizeof(s->self), "%s", self_exe) >= sizeof(s->self))
			return -1;
	} else if (!realpath(self_exe, s->self)) {
		rw_err_errno(errno, "cannot find my own program %s", self_exe);
		return -1;
	}
	if (!getcwd(s->cwd, sizeof(s->cwd))) {
		rw_err_errno(errno, "cannot get the current directory");
		return -1;
	}
	if (check_script_path("the night's folder", s->night) ||
	    check_script_path("the current directory", s->cwd))
		return -1;
	return file_path_join(s->dir, sizeof(s->dir), s->night, "slurm");
}

/* Writes s as one single-quoted shell word. */
static void put_shell_word(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* The #SBATCH lines both scripts share; output is the task's output file name. */
static void put_directives(FILE *f, const struct submission *s, const char *output)
{
	fprintf(f, "#SBATCH --job-name=%s\n", SLURM_JOB_NAME);
	if (s->o->partition)
		fprintf(f, "#SBATCH --partition=%s\n", s->o->partition);
	fprintf(f, "#SBATCH --time=%u\n", s->time_limit_min);
	fprintf(f, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n");
	fprintf(f, "#SBATCH --chdir=\"%s\"\n", s->cwd);
	fprintf(f, "#SBATCH --output=\"%s/%s\"\n", s->dir, output);
	/* a resumed night's tasks add to the first run's output */
	fprintf(f, "#SBATCH --open-mode=append\n");
}

/* The task's command: [WRAPPER] SELF (the wrapper is shell words, as the user typed them). */
static void put_command(FILE *f, const struct submission *s)
{
	fputs("exec ", f);
	if (s->o->wrapper && *s->o->wrapper)
		fprintf(f, "%s ", s->o->wrapper);
	put_shell_word(f, s->self);
}

static int write_script(const struct submission *s, const char *name, bool worker)
{
	char path[PATH_MAX], *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc;

	if (!f || file_path_join(path, sizeof(path), s->dir, name)) {
		if (!f)
			rw_err("out of memory");
		else
			fclose(f);
		free(text);
		return -1;
	}
	fprintf(f, "#!/bin/bash\n# Written by rewind explore --engine slurm (docs/cluster.md): ");
	if (worker) {
		fprintf(f, "array task K is worker K\n# of %u of the night %s.\n", s->o->array,
			s->night);
		put_directives(f, s, "worker-%a.out");
		fprintf(f, "#SBATCH --array=0-%u\n", s->o->array - 1);
		put_command(f, s);
		fprintf(f, " --worker \"$SLURM_ARRAY_TASK_ID\" --workers %u --night ", s->o->array);
	} else {
		fprintf(f,
			"after every worker has ended,\n# the merge: buckets, history, report "
			"of the night %s.\n",
			s->night);
		put_directives(f, s, "finish.out");
		put_command(f, s);
		fprintf(f, " --finish --night ");
	}
	put_shell_word(f, s->night);
	fputc('\n', f);
	if (fclose(f)) {
		rw_err("out of memory");
		free(text);
		return -1;
	}
	rc = file_write_atomic(path, &(struct file_part){text, len}, 1);
	free(text);
	return rc < 0 ? -1 : 0;
}

/* ---- jobs.json ---------------------------------------------------------------------------- */

/* NIGHT/slurm/jobs.json: the job ids, so that squeue, scancel and sacct can find the night. */
static int write_jobs(const struct submission *s)
{
	char path[PATH_MAX], *text = NULL;
	cJSON *j = cJSON_CreateObject();
	int rc;

	if (file_path_join(path, sizeof(path), s->dir, "jobs.json")) {
		cJSON_Delete(j);
		return -1;
	}
	if (!cJSON_AddStringToObject(j, "format", "rewind-slurm-jobs") ||
	    !cJSON_AddNumberToObject(j, "version", 1) ||
	    !cJSON_AddStringToObject(j, "array_job", s->array_id) ||
	    !cJSON_AddNumberToObject(j, "tasks", s->o->array) ||
	    !(s->finish_id[0] ? cJSON_AddStringToObject(j, "finish_job", s->finish_id)
			      : cJSON_AddNullToObject(j, "finish_job")) ||
	    !cJSON_AddNumberToObject(j, "time_limit_min", s->time_limit_min) ||
	    !(s->o->partition ? cJSON_AddStringToObject(j, "partition", s->o->partition)
			      : cJSON_AddNullToObject(j, "partition")) ||
	    !cJSON_AddNumberToObject(j, "submitted", (double)s->submitted) ||
	    !(text = cJSON_Print(j))) {
		rw_err("out of memory writing %s", path);
		cJSON_Delete(j);
		return -1;
	}
	rc = file_write_atomic(path, (struct file_part[]){{text, strlen(text)}, {"\n", 1}}, 2);
	cJSON_free(text);
	cJSON_Delete(j);
	return rc < 0 ? -1 : 0;
}

/* ---- sbatch -------------------------------------------------------------------------------- */

/* The job id sbatch --parsable printed: "ID" or "ID;CLUSTER". */
static int parse_job_id(const char *out, char id[JOB_ID_MAX])
{
	size_t n = strspn(out, "0123456789");

	if (n == 0 || n >= JOB_ID_MAX || (out[n] && out[n] != ';' && out[n] != '\n'))
		return -1;
	memcpy(id, out, n);
	id[n] = 0;
	return 0;
}

/* The likely fix for what sbatch said. */
static const char *sbatch_fix(const char *err)
{
	if (strcasestr(err, "partition"))
		return "'sinfo --summarize' lists the partitions you may use (--partition)";
	if (strcasestr(err, "time limit"))
		return "give a --time-limit (minutes) within the partition's limit, shown by "
		       "'sinfo --format=\"%P %l\"'";
	return "is Slurm running and is this a submit host? 'sinfo' should list an up partition "
	       "(with a cluster of your own, point SLURM_CONF at its slurm.conf)";
}

static void report_sbatch_failure(const char *what, struct capture *c)
{
	const char *err = stderr_text(c);

	rw_err("sbatch could not submit %s (exit status %d): %s; %s", what, c->status, err,
	       sbatch_fix(err));
}

/* on_line of the final task's sbatch --wait: records the id before the long wait. */
static void finish_submitted(struct capture *c, void *ctx)
{
	struct submission *s = ctx;

	if (parse_job_id(c->out, s->finish_id))
		return;
	write_jobs(s);
	fprintf(stderr,
		"%s: night %s: Slurm job %s (%u workers), final task job %s (output "
		"in %s); waiting for the final task (an interrupt stops the waiting, not the jobs: "
		"scancel %s %s)\n",
		rw_log.program, s->night, s->array_id, s->o->array, s->finish_id, s->dir,
		s->array_id, s->finish_id);
}

static int submit_workers(struct submission *s)
{
	char script[PATH_MAX];
	char *argv[] = {"sbatch", "--parsable", script, NULL};
	struct capture c = {0};

	if (file_path_join(script, sizeof(script), s->dir, "worker.sh") || run_capture(argv, &c))
		return -1;
	s->submitted = time(NULL);
	if (c.status) {
		report_sbatch_failure("the night's workers", &c);
		return -1;
	}
	if (parse_job_id(c.out, s->array_id)) {
		rw_err("sbatch --parsable printed '%.64s', not a job id", c.out);
		return -1;
	}
	return write_jobs(s);
}

/* The array job is no use without the final task: cancel it rather than let it run. */
static void cancel_workers(const struct submission *s)
{
	char job[JOB_ID_MAX];
	char *argv[] = {"scancel", job, NULL};
	struct capture c = {0};

	memcpy(job, s->array_id, sizeof(job));
	if (!run_capture(argv, &c) && !c.status) {
		fprintf(stderr, "%s: cancelled the workers' job %s\n", rw_log.program, job);
		return;
	}
	rw_err("could not cancel the workers' job %s (%s); run 'scancel %s'", job, stderr_text(&c),
	       job);
}

static int submit_finish(struct submission *s, struct capture *c)
{
	char script[PATH_MAX], dependency[64];
	char *argv[] = {"sbatch", "--parsable", dependency, script, NULL, NULL};

	snprintf(dependency, sizeof(dependency), "--dependency=afterany:%s", s->array_id);
	if (file_path_join(script, sizeof(script), s->dir, "finish.sh"))
		return -1;
	if (s->o->wait) {
		/* sbatch --wait works without accounting (slurmdbd): it asks slurmctld */
		argv[3] = "--wait";
		argv[4] = script;
		c->on_line = finish_submitted;
		c->ctx = s;
	}
	if (run_capture(argv, c))
		return -1;
	if (s->finish_id[0])
		return 0; /* recorded by finish_submitted */
	if (parse_job_id(c->out, s->finish_id) || (!s->o->wait && c->status)) {
		report_sbatch_failure("the night's final task", c);
		return -1;
	}
	return write_jobs(s);
}

/* ---- the final task's end ---------------------------------------------------------------- */

/* The value of " KEY=" in scontrol's one-line job record, up to the next space. */
static int job_field(const char *record, const char *key, char *out, size_t len)
{
	char pattern[32];
	const char *p;
	size_t n;

	snprintf(pattern, sizeof(pattern), " %s=", key);
	p = strstr(record, pattern);
	if (!p)
		return -1;
	p += strlen(pattern);
	n = strcspn(p, " \n");
	if (n >= len)
		return -1;
	memcpy(out, p, n);
	out[n] = 0;
	return 0;
}

/*
 * The report's status from the final task's end: its exit status when it ran to its end
 * (COMPLETED, or FAILED with an exit code; or still COMPLETING, its script ended and
 * slurmd cleaning up), else 2, the night failed. sbatch --wait alone
 * cannot tell: a task cancelled, out of time or killed by a signal makes it exit 1, the
 * status of a new bucket.
 */
static int finish_status(const struct submission *s, const char *record, int *status)
{
	char state[32], exit_code[32];
	unsigned int code, sig;

	if (job_field(record, "JobState", state, sizeof(state)) ||
	    job_field(record, "ExitCode", exit_code, sizeof(exit_code)) ||
	    sscanf(exit_code, "%u:%u", &code, &sig) != 2)
		return -1;
	if ((!strcmp(state, "COMPLETED") || !strcmp(state, "FAILED") ||
	     !strcmp(state, "COMPLETING")) &&
	    !sig) {
		*status = (int)code;
		if (explore_status(code))
			return 0;
		rw_err("the final task (job %s) exited with status %u, not one of rewind explore's "
		       "0, 1, 2 or 4; see %s/finish.out",
		       s->finish_id, code, s->dir);
	} else {
		rw_err("the final task (job %s) did not run to its end (state %s, signal %u), so "
		       "the "
		       "night failed; see %s/finish.out",
		       s->finish_id, state, sig, s->dir);
	}
	*status = REWIND_EXIT_HOST;
	return 0;
}

#define COMPLETING_WAIT_S 60 /* how long a job may stay COMPLETING (its epilog, cleanup) */

/*
 * scontrol's record of the job into c: 0, or -1 if scontrol failed. sbatch --wait
 * returns when the job's script has ended, and the job may still be COMPLETING
 * (slurmd cleaning up, on a loaded host for seconds): its record is read again, once a
 * second, until it has left that state.
 */
static int job_record(char *const argv[], struct capture *c)
{
	char state[32];

	for (int waited = 0;; waited++) {
		*c = (struct capture){0};
		if (run_capture(argv, c) || c->status)
			return -1;
		if (waited == COMPLETING_WAIT_S ||
		    job_field(c->out, "JobState", state, sizeof(state)) ||
		    strcmp(state, "COMPLETING"))
			return 0;
		sleep(1);
	}
}

/* After sbatch --wait returned: the final task's end from slurmctld (scontrol). */
static int wait_status(const struct submission *s, struct capture *sbatch, int *status)
{
	char job[JOB_ID_MAX];
	char *argv[] = {"scontrol", "--oneliner", "show", "job", job, NULL};
	static struct capture c;

	memcpy(job, s->finish_id, sizeof(job));
	if (!job_record(argv, &c) && !finish_status(s, c.out, status))
		return 0;
	/* no record (scontrol failed, or the job was purged): sbatch's own status, if plausible */
	if (sbatch->status >= 0 && explore_status((unsigned int)sbatch->status) &&
	    !sbatch->err_len) {
		fprintf(stderr,
			"%s: warning: scontrol show job %s failed (%s); using sbatch "
			"--wait's status %d\n",
			rw_log.program, job, stderr_text(&c), sbatch->status);
		*status = sbatch->status;
		return 0;
	}
	rw_err("cannot tell how the final task (job %s) ended: sbatch --wait "
	       "exited with status %d (%s) and scontrol show job %s failed (%s); see "
	       "%s/finish.out",
	       job, sbatch->status, stderr_text(sbatch), job, stderr_text(&c), s->dir);
	return -1;
}

/* The time limit in minutes: the option, or the night's seconds plus 10% plus a margin. */
static unsigned int time_limit(const struct slurm_options *o, unsigned int seconds)
{
	unsigned long long min;

	if (o->time_limit_min)
		return o->time_limit_min;
	min = ((unsigned long long)seconds * 11 / 10 + 59) / 60 + TIME_MARGIN_MIN;
	return min > UINT_MAX ? UINT_MAX : (unsigned int)min;
}

static int prepare(struct submission *s, const struct slurm_options *o, const char *self_exe,
		   const char *night_dir, unsigned int seconds)
{
	memset(s, 0, sizeof(*s));
	s->o = o;
	s->time_limit_min = time_limit(o, seconds);
	if (slurm_check_options(o) || resolve_paths(s, self_exe, night_dir) ||
	    file_make_dir(s->dir) || write_script(s, "worker.sh", true) ||
	    write_script(s, "finish.sh", false))
		return -1;
	return 0;
}

int slurm_submit(const struct slurm_options *o, const char *self_exe, const char *night_dir,
		 unsigned int seconds, int *status)
{
	struct submission s;
	struct capture c = {0};

	*status = 0;
	if (prepare(&s, o, self_exe, night_dir, seconds) || submit_workers(&s))
		return -1;
	if (submit_finish(&s, &c)) {
		cancel_workers(&s);
		return -1;
	}
	if (!o->wait) {
		fprintf(stderr,
			"%s: night %s: Slurm job %s (%u workers), final task job %s "
			"(output in %s)\n",
			rw_log.program, s.night, s.array_id, o->array, s.finish_id, s.dir);
		return 0;
	}
	return wait_status(&s, &c, status);
}

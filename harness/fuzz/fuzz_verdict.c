/* SPDX-License-Identifier: MIT */
/* `rewind fuzz` after afl-fuzz: its numbers, the first failure, its replay. */
#include "harness/fuzz/fuzz.h"

#include "lib/file.h"
#include "lib/json_file.h"
#include "lib/spawn.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROGRESS_FILE_MAX (16u << 10)
#define STATS_FILE_MAX	  (64u << 10)

static unsigned long long count_field(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) && v->valuedouble >= 0 ? (unsigned long long)v->valuedouble : 0;
}

static void read_first_failure(const cJSON *o, struct fuzz_progress *pr)
{
	const cJSON *first = cJSON_GetObjectItemCaseSensitive(o, "first_failure");
	const cJSON *artifact = cJSON_GetObjectItemCaseSensitive(first, "artifact");

	pr->first_execution = count_field(first, "execution");
	if (cJSON_IsString(artifact) && strlen(artifact->valuestring) < sizeof(pr->first_artifact))
		snprintf(pr->first_artifact, sizeof(pr->first_artifact), "%s",
			 artifact->valuestring);
}

int fuzz_read_progress(const char *path, struct fuzz_progress *pr)
{
	cJSON *o = json_read_file(path, PROGRESS_FILE_MAX, "progress file");

	memset(pr, 0, sizeof(*pr));
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return -1;
	}
	pr->execs = count_field(o, "execs");
	pr->failures = count_field(o, "failures");
	pr->answered = count_field(o, "answered");
	read_first_failure(o, pr);
	cJSON_Delete(o);
	return 0;
}

/* afl's final numbers, from the fuzzer_stats it writes as it stops. */
static void print_afl_stats(const char *stats_path)
{
	static const char *const keys[] = {"execs_done",   "execs_per_sec", "stability",
					   "corpus_count", "saved_crashes", "run_time"};
	uint8_t *data;
	size_t len;

	if (file_read_max(stats_path, STATS_FILE_MAX, "afl-fuzz's statistics", &data, &len))
		return;
	for (char *line = strtok((char *)data, "\n"); line; line = strtok(NULL, "\n")) {
		char *colon = strchr(line, ':');
		size_t n;

		if (!colon)
			continue;
		n = strcspn(line, " :");
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (strlen(keys[k]) == n && !strncmp(line, keys[k], n))
				fuzz_say("%-14s %s\n", keys[k], colon + 1 + strspn(colon + 1, " "));
	}
	free(data);
}

int fuzz_afl_ended(const struct fuzz_paths *p, int status)
{
	char stats[PATH_MAX + 32];
	struct fuzz_progress pr;
	bool ok = status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	bool ran = !fuzz_read_progress(p->progress, &pr) && pr.execs;
	const char *how;
	int code;

	snprintf(stats, sizeof(stats), "%s/default/fuzzer_stats", p->out);
	if (ok && !access(stats, R_OK)) {
		print_afl_stats(stats);
		return 0;
	}
	if (fuzz_stop_signal)
		return 0;
	fuzz_tail(p->afl_log, 30);
	/* afl-fuzz stops on a seed that fails every time: the bug was found at once */
	if (ran && pr.first_execution) {
		fuzz_say("afl-fuzz stopped (status %d) after the harness saw a failure\n",
			 status < 0	     ? -1
			 : WIFEXITED(status) ? WEXITSTATUS(status)
					     : 128 + WTERMSIG(status));
		return 0;
	}
	how = status >= 0 && WIFSIGNALED(status) ? "signal" : "status";
	code = status < 0 ? -1 : WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status);
	/* before the job's first run: its options (--afl-opt) or the job; later: the host */
	if (!ran)
		return fuzz_die("afl-fuzz failed before the job's first run (%s %d; log: %s)", how,
				code, p->afl_log);
	return fuzz_host_error("afl-fuzz died during the run (%s %d; log: %s)", how, code,
			       p->afl_log);
}

/*
 * rewind-harness --replay ARTIFACT --trust (this run wrote it, its host
 * paths may be read), whose status is rewind replay's (docs/exit-status.md):
 * 1, the failure reproduces, the same run; 3, it differs; 0, it passes,
 * which a failure's artifact never does unless it differs.
 */
static int replay(const struct fuzz_paths *p, const char *artifact)
{
	char *argv[] = {(char *)p->harness, "--replay", (char *)artifact, "--trust", NULL};
	pid_t pid = spawn_start(argv, NULL, NULL);
	int status = pid < 0 ? -1 : fuzz_wait_child(pid, "the replay");
	int rc = status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;

	if (fuzz_stop_signal)
		return 0;
	if (rc == REWIND_EXIT_DIFFERS || rc == REWIND_EXIT_OK) {
		fuzz_say("its replay is not the run that found it (see above)\n");
		return FUZZ_REPLAY_DIFFERS;
	}
	if (rc != REWIND_EXIT_FOUND)
		return fuzz_host_error("the replay could not run (status %d): rewind replay %s "
				       "--trust says why",
				       rc, artifact);
	fuzz_say("why it fails: rewind explain %s --trust\n", artifact);
	return FUZZ_FOUND;
}

int fuzz_verdict(const struct fuzz_options *o, const struct fuzz_paths *p)
{
	struct fuzz_progress pr;

	if (fuzz_read_progress(p->progress, &pr) || !pr.first_execution) {
		fuzz_say("no failure found in %us\n", o->seconds);
		return FUZZ_NOTHING;
	}
	if (!pr.first_artifact[0])
		return fuzz_host_error("a failure at execution %llu, but its artifact was not "
				       "written (see %s)",
				       pr.first_execution, p->afl_log);
	fuzz_say("first failure at execution %llu: %s; replaying it:\n", pr.first_execution,
		 pr.first_artifact);
	return replay(p, pr.first_artifact);
}

/* SPDX-License-Identifier: MIT */
#include "harness/job.h"

#include "lib/file.h"
#include "lib/install_paths.h"
#include "lib/log.h"
#include "lib/number.h"
#include "lib/size.h"

#include <getopt.h>

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int set_string(char **field, const char *value)
{
	char *copy = strdup(value);

	if (!copy)
		return -ENOMEM;
	free(*field);
	*field = copy;
	return 0;
}

int job_set_kernel(struct harness_job *job, const char *path)
{
	int rc = set_string(&job->kernel, path);

	job->run.kernel_path = job->kernel;
	return rc;
}

int job_set_initramfs(struct harness_job *job, const char *path)
{
	int rc = set_string(&job->initramfs, path);

	job->run.initrd_path = job->initramfs;
	return rc;
}

/* The guest path of an add spec "HOST[:GUEST[:MODE]]" (GUEST defaults to /bin/BASENAME). */
void job_add_guest_path(const char *spec, char *out, size_t out_len)
{
	const char *colon = strchr(spec, ':');
	size_t len;

	if (!colon) {
		const char *slash = strrchr(spec, '/');

		snprintf(out, out_len, "/bin/%s", slash ? slash + 1 : spec);
		return;
	}
	len = strcspn(colon + 1, ":");
	snprintf(out, out_len, "%.*s", (int)len, colon + 1);
}

/* The add that puts a file at the guest path of spec, or add_count. */
static size_t add_to_same_path(const struct harness_job *job, const char *spec)
{
	char want[4096], have[4096];
	size_t i = 0;

	job_add_guest_path(spec, want, sizeof(want));
	for (; i < job->run.add_count; i++) {
		job_add_guest_path(job->adds[i], have, sizeof(have));
		if (!strcmp(want, have))
			break;
	}
	return i;
}

int job_add_file(struct harness_job *job, const char *spec)
{
	size_t i = add_to_same_path(job, spec);
	char *copy;

	if (i == RUN_MAX_ADDS) {
		rw_err("more than %d files to add", RUN_MAX_ADDS);
		return -E2BIG;
	}
	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	if (i == job->run.add_count) /* a new guest path; else a later add replaces */
		job->run.add_count++;
	free(job->adds[i]);
	job->adds[i] = copy;
	job->run.adds[i] = copy;
	return 0;
}

int job_set_user(struct harness_job *job, const char *user)
{
	int rc = set_string(&job->user, user);

	job->run.user = job->user;
	return rc;
}

int job_set_archive(struct harness_job *job, const char *path)
{
	int rc = 0;

	free(job->job_archive);
	job->job_archive = NULL;
	if (path)
		rc = set_string(&job->job_archive, path);
	job->run.job_archive_path = job->job_archive;
	return rc;
}

int job_set_cwd(struct harness_job *job, const char *cwd)
{
	int rc = set_string(&job->cwd, cwd);

	job->run.cwd = job->cwd;
	return rc;
}

int job_add_env(struct harness_job *job, const char *entry)
{
	const char *eq = strchr(entry, '=');
	size_t i = 0;

	if (!eq || eq == entry) {
		rw_err("--env %s: expected NAME=VALUE", entry);
		return -EINVAL;
	}
	while (i < job->run.env_count && strncmp(job->envs[i], entry, (size_t)(eq - entry) + 1))
		i++;
	if (i == RUN_MAX_ENVS) {
		rw_err("more than %d environment entries", RUN_MAX_ENVS);
		return -E2BIG;
	}
	if (i == job->run.env_count)
		job->run.env_count++;
	if (set_string(&job->envs[i], entry) < 0)
		return -ENOMEM;
	job->run.envs[i] = job->envs[i];
	return 0;
}

int job_set_command(struct harness_job *job, char *const *argv, size_t argc)
{
	if (argc == 0 || argc > JOB_MAX_ARGS) {
		rw_err("the command needs 1 to %d words, not %zu", JOB_MAX_ARGS, argc);
		return -EINVAL;
	}
	for (size_t i = 0; i < JOB_MAX_ARGS; i++) {
		free(job->argv[i]);
		job->argv[i] = NULL;
	}
	for (size_t i = 0; i < argc; i++)
		if (!(job->argv[i] = strdup(argv[i])))
			return -ENOMEM;
	job->run.argv = job->argv;
	job->run.argc = argc;
	return 0;
}

/* The folder holding guest/ (install_paths.h): BUILD (BUILD/bin/..), or PREFIX/lib/rewind. */
static int build_dir(char *out)
{
	struct install_paths where;
	int rc = install_paths_get(&where);
	char *guest;

	if (rc < 0) {
		rw_err_errno(-rc, "cannot find this executable (/proc/self/exe)");
		return rc;
	}
	guest = strrchr(where.guest, '/'); /* both layouts: .../guest */
	if (guest)
		*guest = '\0';
	if (!realpath(where.guest, out)) {
		rw_err_errno(errno, "cannot resolve %s", where.guest);
		return -errno;
	}
	return 0;
}

static int set_default_path(struct harness_job *job, const char *dir, const char *name,
			    int (*set)(struct harness_job *, const char *))
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/guest/%s", dir, name);
	return set(job, path);
}

int job_init_defaults(struct harness_job *job)
{
	char dir[PATH_MAX];
	int rc;

	memset(job, 0, sizeof(*job));
	job->run = (struct run_options){.epoch_s = JOB_DEFAULT_EPOCH_S,
					.mem_bytes = JOB_DEFAULT_MEM,
					.step_budget = JOB_DEFAULT_STEP_BUDGET,
					.stuck_ms = JOB_DEFAULT_STUCK_MS};
	job->wall_ms = JOB_DEFAULT_WALL_MS;
	job->slice_blocks = JOB_DEFAULT_SLICE_BLOCKS;
	job->block_ns = JOB_DEFAULT_BLOCK_NS;
	rc = build_dir(dir);
	if (!rc)
		rc = set_default_path(job, dir, "bzImage", job_set_kernel);
	if (!rc)
		rc = set_default_path(job, dir, "initramfs.cpio", job_set_initramfs);
	if (!rc) {
		char *command[] = {(char *)JOB_DEFAULT_COMMAND};

		rc = job_set_command(job, command, 1);
	}
	return rc;
}

static int json_u64(const cJSON *obj, const char *key, const char *what, uint64_t min, uint64_t max,
		    uint64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!v)
		return 0;
	if (!cJSON_IsNumber(v) || v->valuedouble < (double)min || v->valuedouble > (double)max ||
	    v->valuedouble != (double)(uint64_t)v->valuedouble) {
		rw_err("%s: \"%s\" must be an integer in %llu..%llu", what, key,
		       (unsigned long long)min, (unsigned long long)max);
		return -EINVAL;
	}
	*out = (uint64_t)v->valuedouble;
	return 0;
}

static int json_string(const cJSON *obj, const char *key, const char *what,
		       int (*set)(struct harness_job *, const char *), struct harness_job *job)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!v)
		return 0;
	if (!cJSON_IsString(v) || !v->valuestring[0]) {
		rw_err("%s: \"%s\" must be a non-empty string", what, key);
		return -EINVAL;
	}
	return set(job, v->valuestring);
}

static int json_strings(const cJSON *obj, const char *key, const char *what, char **out, size_t max,
			size_t *count)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key), *item;

	*count = 0;
	if (!v)
		return 1; /* absent */
	if (!cJSON_IsArray(v)) {
		rw_err("%s: \"%s\" must be an array of strings", what, key);
		return -EINVAL;
	}
	cJSON_ArrayForEach(item, v)
	{
		if (!cJSON_IsString(item) || *count >= max) {
			rw_err("%s: \"%s\" must hold at most %zu strings", what, key, max);
			return -EINVAL;
		}
		out[(*count)++] = item->valuestring;
	}
	return 0;
}

/* An integer field: its key, its option, its range, where it is in struct harness_job. */
#define U64_FIELD(key_, flag_, min_, max_, member)                                                 \
	{                                                                                          \
		.key = (key_), .flag = (flag_), .kind = JOB_FIELD_U64, .min = (min_),              \
		.max = (max_), .offset = offsetof(struct harness_job, member)                      \
	}

/*
 * Every field of a job, declared once: its key in a job file (and an
 * artifact's "job"), its option on rewind-harness's command line, and its
 * range. A job object is applied in this order (the first error wins).
 */
const struct job_field job_fields[] = {
	{.key = "kernel", .flag = "kernel", .kind = JOB_FIELD_PATH, .set = job_set_kernel},
	{.key = "initramfs",
	 .flag = "initramfs",
	 .alias = "initrd", /* rewind run's older name */
	 .kind = JOB_FIELD_PATH,
	 .set = job_set_initramfs},
	{.key = "command", .kind = JOB_FIELD_COMMAND}, /* after -- on the command line */
	{.key = "add", .flag = "add", .kind = JOB_FIELD_ADD},
	{.key = "user", .flag = "user", .kind = JOB_FIELD_STRING, .set = job_set_user},
	{.key = "cwd", .flag = "cwd", .kind = JOB_FIELD_STRING, .set = job_set_cwd},
	{.key = "env", .flag = "env", .kind = JOB_FIELD_ENV},
	{.key = "mem_mib",
	 .flag = "mem",
	 .kind = JOB_FIELD_MEM,
	 .min = 64ull << 20,
	 .max = 3072ull << 20},
	U64_FIELD("epoch_s", NULL, 0, 1ull << 40, run.epoch_s),
	U64_FIELD("step_budget", "step-budget", 1, 1ull << 40, run.step_budget),
	U64_FIELD("stuck_ms", "stuck-ms", 10, 3600000, run.stuck_ms),
	U64_FIELD("wall_ms", "wall-ms", 1, 86400000, wall_ms),
	U64_FIELD("slice_blocks", "slice-blocks", 0, 1u << 30, slice_blocks),
	U64_FIELD("block_ns", "block-ns", 0, 1000, block_ns),
	U64_FIELD("skip_status", "skip-status", 0, 255, skip_status),
	{.flag = "job", .kind = JOB_FIELD_FILE}, /* a job file, applied where it stands */
	{.key = NULL, .flag = NULL},
};

static uint64_t *job_field_u64(struct harness_job *job, const struct job_field *f)
{
	return (uint64_t *)((char *)job + f->offset);
}

/* The field of a job file's key, or NULL. */
static const struct job_field *field_of_key(const char *key)
{
	for (const struct job_field *f = job_fields; f->key || f->flag; f++)
		if (f->key && !strcmp(f->key, key))
			return f;
	return NULL;
}

static int check_keys(const cJSON *obj, const char *what)
{
	const cJSON *item;

	if (!cJSON_IsObject(obj)) {
		rw_err("%s: a job must be a JSON object", what);
		return -EINVAL;
	}
	cJSON_ArrayForEach(item, obj)
	{
		if (!field_of_key(item->string)) {
			rw_err("%s: unknown job field \"%s\"", what, item->string);
			return -EINVAL;
		}
	}
	return 0;
}

static int apply_lists(struct harness_job *job, const cJSON *obj, const char *what)
{
	/* NOLINTNEXTLINE(bugprone-branch-clone): the two limits are equal today, not by design */
	char *words[JOB_MAX_ARGS > RUN_MAX_ADDS ? JOB_MAX_ARGS : RUN_MAX_ADDS];
	size_t n;
	int rc = json_strings(obj, "command", what, words, JOB_MAX_ARGS, &n);

	if (rc < 0)
		return rc;
	if (rc == 0 && (rc = job_set_command(job, words, n)) < 0)
		return rc;
	rc = json_strings(obj, "add", what, words, RUN_MAX_ADDS, &n);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		for (size_t i = 0; i < job->run.add_count; i++) {
			free(job->adds[i]);
			job->adds[i] = NULL;
		}
		job->run.add_count = 0;
		for (size_t i = 0; i < n; i++)
			if ((rc = job_add_file(job, words[i])) < 0)
				return rc;
	}
	rc = json_strings(obj, "env", what, words, RUN_MAX_ENVS, &n);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		for (size_t i = 0; i < job->run.env_count; i++) {
			free(job->envs[i]);
			job->envs[i] = NULL;
		}
		job->run.env_count = 0;
		for (size_t i = 0; i < n; i++)
			if ((rc = job_add_env(job, words[i])) < 0)
				return rc;
	}
	return 0;
}

/* One field of a job object, if present. */
static int apply_json_field(struct harness_job *job, const struct job_field *f, const cJSON *obj,
			    const char *what)
{
	uint64_t v;
	int rc;

	switch (f->kind) {
	case JOB_FIELD_PATH:
	case JOB_FIELD_STRING:
		return json_string(obj, f->key, what, f->set, job);
	case JOB_FIELD_COMMAND:
	case JOB_FIELD_ADD:
	case JOB_FIELD_ENV:
		return 0; /* apply_lists, together */
	case JOB_FIELD_MEM:
		v = job->run.mem_bytes >> 20;
		rc = json_u64(obj, f->key, what, f->min >> 20, f->max >> 20, &v);
		job->run.mem_bytes = v << 20;
		return rc;
	case JOB_FIELD_U64:
		return json_u64(obj, f->key, what, f->min, f->max, job_field_u64(job, f));
	case JOB_FIELD_FILE:
	default:
		return 0;
	}
}

int job_apply_json(struct harness_job *job, const cJSON *obj, const char *what)
{
	int rc = check_keys(obj, what);

	for (const struct job_field *f = job_fields; !rc && (f->key || f->flag); f++) {
		if (!f->key)
			continue;
		rc = apply_json_field(job, f, obj, what);
		if (!rc && f->kind == JOB_FIELD_COMMAND)
			rc = apply_lists(job, obj, what);
	}
	return rc;
}

int job_load_file(struct harness_job *job, const char *path)
{
	uint8_t *data;
	size_t len;
	cJSON *obj;
	int rc;

	if (file_read_max(path, 1u << 20, "job file", &data, &len) < 0)
		return -ENOENT;
	obj = cJSON_ParseWithLength((const char *)data, len);
	if (!obj) {
		rw_err("%s: not valid JSON (near byte %td)", path,
		       cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() - (const char *)data : 0);
		free(data);
		return -EINVAL;
	}
	free(data);
	rc = job_apply_json(job, obj, path);
	cJSON_Delete(obj);
	return rc;
}

cJSON *job_to_json(const struct harness_job *job)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *cmd = cJSON_AddArrayToObject(o, "command"), *adds;

	cJSON_AddStringToObject(o, "kernel", job->run.kernel_path);
	cJSON_AddStringToObject(o, "initramfs", job->run.initrd_path);
	for (size_t i = 0; i < job->run.argc; i++)
		cJSON_AddItemToArray(cmd, cJSON_CreateString(job->run.argv[i]));
	adds = cJSON_AddArrayToObject(o, "add");
	for (size_t i = 0; i < job->run.add_count; i++)
		cJSON_AddItemToArray(adds, cJSON_CreateString(job->run.adds[i]));
	cJSON_AddNumberToObject(o, "mem_mib", (double)(job->run.mem_bytes >> 20));
	cJSON_AddNumberToObject(o, "epoch_s", (double)job->run.epoch_s);
	cJSON_AddNumberToObject(o, "step_budget", (double)job->run.step_budget);
	cJSON_AddNumberToObject(o, "stuck_ms", (double)job->run.stuck_ms);
	cJSON_AddNumberToObject(o, "wall_ms", (double)job->wall_ms);
	cJSON_AddNumberToObject(o, "slice_blocks", (double)job->slice_blocks);
	cJSON_AddNumberToObject(o, "block_ns", (double)job->block_ns);
	/* only when set: a job without them reads as before they existed */
	if (job->user)
		cJSON_AddStringToObject(o, "user", job->user);
	if (job->cwd)
		cJSON_AddStringToObject(o, "cwd", job->cwd);
	if (job->run.env_count) {
		cJSON *env = cJSON_AddArrayToObject(o, "env");

		for (size_t i = 0; i < job->run.env_count; i++)
			cJSON_AddItemToArray(env, cJSON_CreateString(job->envs[i]));
	}
	if (job->skip_status)
		cJSON_AddNumberToObject(o, "skip_status", (double)job->skip_status);
	return o;
}

void job_free(struct harness_job *job)
{
	free(job->kernel);
	free(job->initramfs);
	free(job->user);
	free(job->cwd);
	free(job->job_archive);
	for (size_t i = 0; i < JOB_MAX_ARGS; i++)
		free(job->argv[i]);
	for (size_t i = 0; i < job->run.add_count; i++)
		free(job->adds[i]);
	for (size_t i = 0; i < job->run.env_count; i++)
		free(job->envs[i]);
	memset(job, 0, sizeof(*job));
}

/* --mem: 64M..3G in whole MiB (artifacts record mem_mib); a bare number is MiB. */
static int parse_mem(const char *text, uint64_t *bytes)
{
	uint64_t v;

	if (size_parse(text, 1ull << 20, &v, NULL) < 0 || v < (64ull << 20) ||
	    v > (3072ull << 20) || v % (1ull << 20)) {
		rw_err("--mem must be a whole number of MiB from 64M to 3G (e.g. 128M, 1G; a bare "
		       "number is MiB), not '%s'",
		       text);
		return -EINVAL;
	}
	*bytes = v;
	return 0;
}

const struct job_field *job_field_of_flag(const char *flag)
{
	for (const struct job_field *f = job_fields; f->key || f->flag; f++)
		if (f->flag && (!strcmp(f->flag, flag) || (f->alias && !strcmp(f->alias, flag))))
			return f;
	return NULL;
}

int job_apply_option(struct harness_job *job, const char *option, const char *arg)
{
	const struct job_field *f = job_field_of_flag(option);
	char what[64];

	if (!f) {
		rw_err("--%s is not a job option", option);
		return -EINVAL;
	}
	snprintf(what, sizeof(what), "--%s", f->flag);
	switch (f->kind) {
	case JOB_FIELD_FILE:
		return job_load_file(job, arg);
	case JOB_FIELD_PATH:
	case JOB_FIELD_STRING:
		return f->set(job, arg);
	case JOB_FIELD_ADD:
		return job_add_file(job, arg);
	case JOB_FIELD_ENV:
		return job_add_env(job, arg);
	case JOB_FIELD_MEM:
		return parse_mem(arg, &job->run.mem_bytes);
	case JOB_FIELD_U64:
		return number_parse_u64(arg, what, f->min, f->max, job_field_u64(job, f));
	case JOB_FIELD_COMMAND:
	default:
		rw_err("--%s is not a job option", option);
		return -EINVAL;
	}
}

size_t job_getopt_options(struct option *out, int base)
{
	size_t n = 0;

	for (int i = 0; job_fields[i].key || job_fields[i].flag; i++) {
		const struct job_field *f = &job_fields[i];

		if (!f->flag)
			continue;
		out[n++] = (struct option){f->flag, required_argument, NULL, base + i};
		if (f->alias)
			out[n++] = (struct option){f->alias, required_argument, NULL, base + i};
	}
	return n;
}

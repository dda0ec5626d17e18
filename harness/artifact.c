/* SPDX-License-Identifier: MIT */
#include "harness/artifact.h"

#include "harness/guest_output.h"
#include "image/guest_files.h"
#include "lib/file.h"
#include "lib/hex.h"
#include "lib/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

size_t artifact_files_of(const struct executor *ex, struct artifact_file *out, size_t max)
{
	struct guest_file f;
	size_t n = 0;

	for (size_t at = 0;
	     n < max && guest_files_next(ex->in.job_archive, ex->in.job_archive_len, &at, &f);) {
		if (!strcmp(f.path, "/rewind/job"))
			continue;
		out[n] = (struct artifact_file){.mode = f.mode & 07777,
						.xxh3 = XXH3_64bits(f.data, f.size)};
		snprintf(out[n].guest, sizeof(out[n].guest), "%s", f.path);
		n++;
	}
	return n;
}

static cJSON *files_json(const struct executor *ex)
{
	struct artifact_file files[RUN_MAX_ADDS];
	size_t n = artifact_files_of(ex, files, RUN_MAX_ADDS);
	cJSON *list = cJSON_CreateArray();

	for (size_t i = 0; list && i < n; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "guest", files[i].guest);
		cJSON_AddNumberToObject(o, "mode", files[i].mode);
		json_add_hex(o, "xxh3", files[i].xxh3, JSON_HEX_HASH);
		cJSON_AddItemToArray(list, o);
	}
	return list;
}

static cJSON *outcome_json(const struct exec_result *res)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "class", exec_class_name(res->cls));
	cJSON_AddStringToObject(o, "detail", res->detail);
	if (res->has_job_status)
		cJSON_AddNumberToObject(o, "job_wait_status", res->job_status);
	cJSON_AddNumberToObject(o, "step", (double)res->job_steps);
	cJSON_AddNumberToObject(o, "injections_applied", (double)res->injected);
	return o;
}

static char *hex_bytes(const uint8_t *raw, size_t len)
{
	char *hex = malloc(2 * len + 1);

	for (size_t i = 0; hex && i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", raw[i]);
	if (hex)
		hex[2 * len] = '\0';
	return hex;
}

/* A racy-events input's site map: its count and sites, or null (it counted every event). */
static cJSON *racy_json(const struct racy_map *m)
{
	cJSON *o;
	char *hex;

	if (!m || !m->ok)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	hex = hex_bytes(m->sites, sizeof(m->sites));
	cJSON_AddNumberToObject(o, "events", (double)m->events);
	cJSON_AddStringToObject(o, "sites", hex ? hex : "");
	free(hex);
	return o;
}

/*
 * What the execution of input read of the job's profile runs (pct mode):
 * k, a walk's weights, a racy input's site map. NULL outside pct mode.
 */
static cJSON *profile_json(const struct executor *ex, const struct exec_input *input)
{
	const struct pct_walk_profile *w = &ex->walk_profile;
	cJSON *o;

	if (input->mode != INPUT_MODE_PCT || !ex->pct_events)
		return NULL;
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "events", (double)ex->pct_events);
	if (input->flags & INPUT_FLAG_WALK) {
		cJSON *walk = cJSON_AddArrayToObject(o, "walk");

		for (uint32_t i = 0; walk && i < w->threads && i < REWIND_WALK_THREADS; i++)
			cJSON_AddItemToArray(walk, cJSON_CreateNumber(w->events[i]));
	}
	if (input->flags & INPUT_FLAG_RACY)
		cJSON_AddItemToObject(o, "racy", racy_json(ex->racy_map));
	return o;
}

static cJSON *artifact_json(const struct harness_job *job, const struct executor *ex,
			    const uint8_t *raw, size_t raw_len, const struct exec_input *input,
			    const struct exec_result *res)
{
	cJSON *o = cJSON_CreateObject();
	struct run_identity id;
	char *hex = hex_bytes(raw, raw_len);
	char *tail =
		guest_output_tail(&ex->vm.trace, ex->job_trace_from, ARTIFACT_OUTPUT_TAIL_LINES);
	cJSON *profile = profile_json(ex, input);

	run_identity_of(ex, &id);
	cJSON_AddStringToObject(o, "format", ARTIFACT_FORMAT);
	/* what an old artifact's replay learned its sites from, it still does (its
	 * profile is recorded all the same: version 3 and before ignore it) */
	cJSON_AddNumberToObject(o, "version",
				ex->cfg.racy_profiles_unperturbed ? 2 : ARTIFACT_VERSION);
	cJSON_AddItemToObject(o, "input", input_to_json(input));
	cJSON_AddStringToObject(o, "input_hex", hex ? hex : "");
	cJSON_AddItemToObject(o, "job", job_to_json(job));
	cJSON_AddItemToObject(o, "added_files", files_json(ex));
	cJSON_AddItemToObject(o, "identity", run_identity_to_json(&id));
	cJSON_AddItemToObject(o, "outcome", outcome_json(res));
	if (profile)
		cJSON_AddItemToObject(o, "profile", profile);
	json_add_hex(o, "trace_xxh3", res->trace_hash, JSON_HEX_HASH);
	cJSON_AddStringToObject(o, "output_tail", tail ? tail : "");
	free(hex);
	free(tail);
	return o;
}

int artifact_write_to(const char *path, const struct harness_job *job, const struct executor *ex,
		      const uint8_t *raw, size_t raw_len, const struct exec_input *input,
		      const struct exec_result *res)
{
	cJSON *json = artifact_json(job, ex, raw, raw_len, input, res);
	int rc = json_write_atomic(path, json);

	cJSON_Delete(json);
	return rc;
}

int artifact_write(const char *dir, const struct harness_job *job, const struct executor *ex,
		   const uint8_t *raw, size_t raw_len, const struct exec_input *input,
		   const struct exec_result *res, char *path, size_t path_len)
{
	int rc;

	snprintf(path, path_len, "%s/%s-%016" PRIx64 ".json", dir, exec_class_name(res->cls),
		 res->trace_hash);
	if (access(path, F_OK) == 0)
		return 0;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		rw_err_errno(errno, "cannot create the artifact directory %s", dir);
		return -errno;
	}
	rc = artifact_write_to(path, job, ex, raw, raw_len, input, res);
	return rc < 0 ? rc : 1;
}

static int hex_field(const cJSON *o, const char *key, const char *what, uint64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	char *end;

	if (!cJSON_IsString(v)) {
		rw_err("%s: missing hex string \"%s\"", what, key);
		return -EINVAL;
	}
	errno = 0;
	*out = strtoull(v->valuestring, &end, 16);
	if (errno || *end || end == v->valuestring) {
		rw_err("%s: \"%s\" is not a hex number: %s", what, key, v->valuestring);
		return -EINVAL;
	}
	return 0;
}

/* Whether v is an integer in min..max (into *out). */
static bool u64_value(const cJSON *v, uint64_t min, uint64_t max, uint64_t *out)
{
	double d = cJSON_IsNumber(v) ? v->valuedouble : -1;

	/* the range check comes first: casting an out-of-range double is undefined */
	if (!cJSON_IsNumber(v) || !(d >= (double)min && d <= (double)max) ||
	    d != (double)(uint64_t)d)
		return false;
	*out = (uint64_t)d;
	return true;
}

int artifact_u64_field(const cJSON *o, const char *key, const char *what, uint64_t min,
		       uint64_t max, uint64_t *out)
{
	if (!u64_value(cJSON_GetObjectItemCaseSensitive(o, key), min, max, out)) {
		rw_err("%s: \"%s\" must be an integer in %llu..%llu", what, key,
		       (unsigned long long)min, (unsigned long long)max);
		return -EINVAL;
	}
	return 0;
}

static int parse_identity(const cJSON *o, const char *what, struct run_identity *id)
{
	const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(o, "cpu_model");
	const cJSON *abi = cJSON_GetObjectItemCaseSensitive(o, "abi_version");
	const cJSON *quantum = cJSON_GetObjectItemCaseSensitive(o, "quantum_ns");
	int rc = hex_field(o, "kernel_xxh3", what, &id->kernel_xxh3);

	if (!rc)
		rc = hex_field(o, "initramfs_xxh3", what, &id->initramfs_xxh3);
	if (!rc)
		rc = hex_field(o, "job_xxh3", what, &id->job_xxh3);
	if (rc)
		return rc;
	if (!cJSON_IsString(cpu) || !abi || !quantum) {
		rw_err("%s: identity needs cpu_model, abi_version and quantum_ns", what);
		return -EINVAL;
	}
	snprintf(id->cpu_model, sizeof(id->cpu_model), "%s", cpu->valuestring);
	if (artifact_u64_field(o, "abi_version", what, 1, 1u << 20, &id->abi_version) < 0 ||
	    artifact_u64_field(o, "quantum_ns", what, 1, 1ull << 40, &id->quantum_ns) < 0)
		return -EINVAL;
	return 0;
}

static int parse_outcome(const cJSON *o, const char *what, struct artifact_expect *e)
{
	const cJSON *cls = cJSON_GetObjectItemCaseSensitive(o, "class");
	const cJSON *step = cJSON_GetObjectItemCaseSensitive(o, "step");
	const cJSON *detail = cJSON_GetObjectItemCaseSensitive(o, "detail");

	if (!cJSON_IsString(cls) || !step) {
		rw_err("%s: outcome needs \"class\" and \"step\"", what);
		return -EINVAL;
	}
	e->cls = exec_class_from_name(cls->valuestring);
	if (e->cls == CLASS_COUNT) {
		rw_err("%s: unknown outcome class \"%s\"", what, cls->valuestring);
		return -EINVAL;
	}
	if (artifact_u64_field(o, "step", what, 0, 1ull << 40, &e->job_steps) < 0)
		return -EINVAL;
	snprintf(e->detail, sizeof(e->detail), "%s",
		 cJSON_IsString(detail) ? detail->valuestring : "");
	return 0;
}

static int parse_file(const cJSON *o, const char *what, struct artifact_file *f)
{
	const cJSON *guest = cJSON_GetObjectItemCaseSensitive(o, "guest");
	uint64_t mode;

	if (!cJSON_IsString(guest) || guest->valuestring[0] != '/' ||
	    strlen(guest->valuestring) >= sizeof(f->guest)) {
		rw_err("%s: added_files: \"guest\" must be an absolute guest path", what);
		return -EINVAL;
	}
	snprintf(f->guest, sizeof(f->guest), "%s", guest->valuestring);
	if (artifact_u64_field(o, "mode", what, 0, 07777, &mode) < 0 ||
	    hex_field(o, "xxh3", what, &f->xxh3) < 0)
		return -EINVAL;
	f->mode = (uint32_t)mode;
	return 0;
}

/* "added_files" (absent in version 1 artifacts). */
static int parse_files(const cJSON *list, const char *what, struct artifact_expect *e)
{
	const cJSON *item;

	e->file_count = 0;
	if (!list)
		return 0;
	if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) > RUN_MAX_ADDS) {
		rw_err("%s: \"added_files\" must be an array of at most %d files", what,
		       RUN_MAX_ADDS);
		return -EINVAL;
	}
	cJSON_ArrayForEach(item, list)
	{
		if (parse_file(item, what, &e->files[e->file_count]) < 0)
			return -EINVAL;
		e->file_count++;
	}
	return 0;
}

/* "walk": each thread's events in the profile, at most REWIND_WALK_THREADS of them. */
static int parse_walk(const cJSON *list, const char *what, struct profile_record *p)
{
	const cJSON *item;
	uint64_t n;

	p->has_walk = true;
	p->walk.threads = 0;
	if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) > (int)REWIND_WALK_THREADS)
		goto bad;
	cJSON_ArrayForEach(item, list)
	{
		if (!u64_value(item, 0, UINT32_MAX, &n))
			goto bad;
		p->walk.events[p->walk.threads++] = (uint32_t)n;
	}
	return 0;
bad:
	rw_err("%s: \"walk\" must be an array of at most %u integers in 0..%u", what,
	       REWIND_WALK_THREADS, UINT32_MAX);
	return -EINVAL;
}

/* "sites": the site map, REWIND_SITE_BYTES bytes in lowercase hex (as hex_bytes writes it). */
static int parse_sites(const cJSON *o, const char *what, uint8_t *sites)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "sites");
	bool ok = cJSON_IsString(v) && strlen(v->valuestring) == 2 * REWIND_SITE_BYTES &&
		  strspn(v->valuestring, "0123456789abcdef") == 2 * REWIND_SITE_BYTES;

	for (size_t i = 0; ok && i < REWIND_SITE_BYTES; i++) {
		int hi = hex_digit_value(v->valuestring[2 * i]),
		    lo = hex_digit_value(v->valuestring[2 * i + 1]);

		ok = hi >= 0 && lo >= 0; /* strspn said so; the decoder checks again */
		sites[i] = (uint8_t)((unsigned)hi << 4 | (unsigned)lo);
	}
	if (!ok)
		rw_err("%s: \"sites\" must be %u lowercase hex digits (the site map's %u bytes)",
		       what, 2 * REWIND_SITE_BYTES, REWIND_SITE_BYTES);
	return ok ? 0 : -EINVAL;
}

/* "racy": a racy-events input's site map, or null (its execution counted every event). */
static int parse_racy(const cJSON *o, const char *what, struct profile_record *p)
{
	p->has_racy = true;
	p->racy_ok = !cJSON_IsNull(o);
	if (!p->racy_ok)
		return 0;
	if (!cJSON_IsObject(o)) {
		rw_err("%s: \"racy\" must be an object (events, sites) or null", what);
		return -EINVAL;
	}
	if (artifact_u64_field(o, "events", what, 0, UINT32_MAX, &p->racy_events) < 0)
		return -EINVAL;
	return parse_sites(o, what, p->racy_sites);
}

/*
 * "profile" (pct inputs, version 4 on): what the execution read of the
 * job's profile runs. k is at most 2^32 - 1, as a demote's position
 * (a 32-bit fraction) times k must not overflow.
 */
static int parse_profile(const cJSON *o, const char *what, struct profile_record *p)
{
	const cJSON *walk = cJSON_GetObjectItemCaseSensitive(o, "walk");
	const cJSON *racy = cJSON_GetObjectItemCaseSensitive(o, "racy");
	char where[4400];

	if (!o)
		return 0;
	snprintf(where, sizeof(where), "%s: profile", what);
	if (!cJSON_IsObject(o)) {
		rw_err("%s: \"profile\" must be an object", what);
		return -EINVAL;
	}
	if (artifact_u64_field(o, "events", where, 1, UINT32_MAX, &p->events) < 0 ||
	    (walk && parse_walk(walk, where, p) < 0) || (racy && parse_racy(racy, where, p) < 0))
		return -EINVAL;
	return 0;
}

static const cJSON *object_field(const cJSON *o, const char *key, const char *what)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsObject(v))
		rw_err("%s: missing object \"%s\"", what, key);
	return cJSON_IsObject(v) ? v : NULL;
}

static int parse_artifact(const cJSON *root, const char *what, struct harness_job *job,
			  struct exec_input *input, struct artifact_expect *e)
{
	const cJSON *format = cJSON_GetObjectItemCaseSensitive(root, "format");
	const cJSON *in = object_field(root, "input", what), *jb = object_field(root, "job", what);
	const cJSON *id = object_field(root, "identity", what);
	const cJSON *out = object_field(root, "outcome", what);
	char why[256];

	uint64_t v;

	if (!cJSON_IsString(format) || strcmp(format->valuestring, ARTIFACT_FORMAT) != 0) {
		rw_err("%s: not a %s artifact (no \"format\": \"%s\")", what, ARTIFACT_FORMAT,
		       ARTIFACT_FORMAT);
		return -EINVAL;
	}
	if (artifact_u64_field(root, "version", what, 1, ARTIFACT_VERSION, &v) < 0)
		return -EINVAL;
	e->version = v;
	if (!in || !jb || !id || !out)
		return -EINVAL;
	if (input_from_json(in, input, why, sizeof(why)) < 0) {
		rw_err("%s: bad input: %s", what, why);
		return -EINVAL;
	}
	if (job_apply_json(job, jb, what) < 0 || parse_identity(id, what, &e->identity) < 0 ||
	    parse_outcome(out, what, e) < 0 || hex_field(root, "trace_xxh3", what, &e->trace_xxh3))
		return -EINVAL;
	if (parse_profile(cJSON_GetObjectItemCaseSensitive(root, "profile"), what, &e->profile) < 0)
		return -EINVAL;
	return parse_files(cJSON_GetObjectItemCaseSensitive(root, "added_files"), what, e);
}

int artifact_parse(const char *text, size_t len, const char *what, struct harness_job *job,
		   struct exec_input *input, struct artifact_expect *expect)
{
	cJSON *root = cJSON_ParseWithLength(text, len);
	int rc;

	if (!root) {
		rw_err("%s: not valid JSON (near byte %td)", what,
		       cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() - text : 0);
		return -EINVAL;
	}
	memset(expect, 0, sizeof(*expect));
	rc = parse_artifact(root, what, job, input, expect);
	cJSON_Delete(root);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * A suite test's settings (suite_settings.h): each from the most specific
 * layer that gives it, checked, and turned into rewind-harness options.
 */
#include "explore/suite_settings.h"

#include "lib/log.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define USER_MAX	64
#define ENV_MAX		64 /* rewind-harness --env: RUN_MAX_ENVS */
#define SKIP_STATUS_MAX 255

/* Job settings a suite test may give, with the rewind-harness option each becomes. */
static const struct {
	const char *key, *option;
	bool path;
} JOB_KEYS[] = {
	{"kernel", "--kernel", true},
	{"initramfs", "--initramfs", true},
	{"mem_mib", "--mem", false},
	{"step_budget", "--step-budget", false},
	{"stuck_ms", "--stuck-ms", false},
	{"wall_ms", "--wall-ms", false},
	{"slice_blocks", "--slice-blocks", false},
	{"block_ns", "--block-ns", false},
};

/* The other settings of a test; the top level and a runner may give them all as defaults. */
static const char *const SETTING_KEYS[] = {"add", "mode", "share",	"user",
					   "cwd", "env",  "skip_status"};

int suite_fail(const char *what, const char *name, const char *why)
{
	rw_err("%s: test \"%s\": %s", what, name, why);
	return -1;
}

bool suite_is_setting(const char *key)
{
	for (size_t i = 0; i < sizeof(SETTING_KEYS) / sizeof(SETTING_KEYS[0]); i++)
		if (!strcmp(key, SETTING_KEYS[i]))
			return true;
	for (size_t i = 0; i < sizeof(JOB_KEYS) / sizeof(JOB_KEYS[0]); i++)
		if (!strcmp(key, JOB_KEYS[i].key))
			return true;
	return false;
}

static void append(char *out, size_t len, size_t *used, const char *word)
{
	int n = snprintf(out + *used, len - *used, "%s%s", *used ? ", " : "", word);

	if (n > 0)
		*used = *used + (size_t)n < len ? *used + (size_t)n : len - 1;
}

void suite_keys_text(const char *const *own, char *out, size_t len)
{
	size_t used = 0;

	out[0] = 0;
	for (; own && *own; own++)
		append(out, len, &used, *own);
	for (size_t i = 0; i < sizeof(SETTING_KEYS) / sizeof(SETTING_KEYS[0]); i++)
		append(out, len, &used, SETTING_KEYS[i]);
	for (size_t i = 0; i < sizeof(JOB_KEYS) / sizeof(JOB_KEYS[0]); i++)
		append(out, len, &used, JOB_KEYS[i].key);
}

static bool own_key(const char *const *own, const char *key)
{
	for (; own && *own; own++)
		if (!strcmp(*own, key))
			return true;
	return false;
}

int suite_check_keys(const cJSON *obj, const char *const *own, const char *what, const char *where)
{
	const cJSON *item;
	char keys[1024];

	cJSON_ArrayForEach(item, obj)
	{
		if (own_key(own, item->string) || suite_is_setting(item->string))
			continue;
		suite_keys_text(own, keys, sizeof(keys));
		rw_err("%s: %s: unknown key \"%s\"; the keys are %s", what, where, item->string,
		       keys);
		return -1;
	}
	return 0;
}

static const cJSON *setting(const struct suite_layers *l, const char *key)
{
	for (size_t i = l->count; i-- > 0;) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(l->of[i], key);

		if (v)
			return v;
	}
	return NULL;
}

int suite_push(char ***list, size_t *count, const char *text)
{
	char **grown;

	if (*count >= SUITE_MAX_ARGS)
		return -E2BIG;
	grown = realloc(*list, (*count + 1) * sizeof(**list));
	if (!grown)
		return -ENOMEM;
	*list = grown;
	grown[*count] = strdup(text);
	if (!grown[*count])
		return -ENOMEM;
	(*count)++;
	return 0;
}

static int push_option(struct suite_test *t, const char *option, const char *value)
{
	return suite_push(&t->args, &t->arg_count, option) ||
			       suite_push(&t->args, &t->arg_count, value)
		       ? -1
		       : 0;
}

/* HOST made absolute against dir (the suite file's folder), the rest kept. */
static int resolve_path(const char *dir, const char *host, char *out, size_t len)
{
	if (host[0] == '/' || !dir)
		return snprintf(out, len, "%s", host) >= (int)len ? -ENAMETOOLONG : 0;
	return snprintf(out, len, "%s/%s", dir, host) >= (int)len ? -ENAMETOOLONG : 0;
}

static int parse_adds(const cJSON *adds, const char *dir, struct suite_test *t, const char *what)
{
	const cJSON *item;
	char path[PATH_MAX + 256];

	if (!adds)
		return 0;
	if (!cJSON_IsArray(adds))
		return suite_fail(what, t->name,
				  "\"add\" must be a list of \"HOST[:GUEST]\" strings");
	cJSON_ArrayForEach(item, adds)
	{
		if (!cJSON_IsString(item) || !item->valuestring[0] ||
		    resolve_path(dir, item->valuestring, path, sizeof(path)) ||
		    push_option(t, "--add", path))
			return suite_fail(what, t->name, "a bad \"add\" entry (\"HOST[:GUEST]\")");
	}
	return 0;
}

static int parse_job_keys(const struct suite_layers *l, const char *dir, struct suite_test *t,
			  const char *what)
{
	char text[PATH_MAX];

	for (size_t i = 0; i < sizeof(JOB_KEYS) / sizeof(JOB_KEYS[0]); i++) {
		const cJSON *v = setting(l, JOB_KEYS[i].key);

		if (!v)
			continue;
		if (JOB_KEYS[i].path
			    ? !cJSON_IsString(v) ||
				      resolve_path(dir, v->valuestring, text, sizeof(text))
			    : !cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1e15)
			return suite_fail(what, t->name,
					  "a job setting has the wrong type or range");
		if (!JOB_KEYS[i].path)
			snprintf(text, sizeof(text), "%" PRIu64, (uint64_t)v->valuedouble);
		if (push_option(t, JOB_KEYS[i].option, text))
			return suite_fail(what, t->name, "too many job settings");
	}
	return 0;
}

/* A string of 1..max-1 characters, none a control character (nor a space, if !spaces). */
static bool plain_string(const cJSON *v, size_t max, bool spaces)
{
	if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= max)
		return false;
	for (const unsigned char *p = (const unsigned char *)v->valuestring; *p; p++)
		if (*p < 0x20 || *p == 0x7f || (*p == ' ' && !spaces))
			return false;
	return true;
}

/* "user" (rewind, nobody, UID[:GID]) and "cwd" (an absolute guest path). */
static int parse_user_cwd(const struct suite_layers *l, struct suite_test *t, const char *what)
{
	const cJSON *user = setting(l, "user"), *cwd = setting(l, "cwd");

	if (user && !plain_string(user, USER_MAX, false))
		return suite_fail(
			what, t->name,
			"\"user\" must be a user of the guest: rewind, nobody or UID[:GID]");
	if (cwd && (!plain_string(cwd, PATH_MAX, true) || cwd->valuestring[0] != '/'))
		return suite_fail(what, t->name, "\"cwd\" must be an absolute path in the guest");
	if ((user && push_option(t, "--user", user->valuestring)) ||
	    (cwd && push_option(t, "--cwd", cwd->valuestring)))
		return suite_fail(what, t->name, "too many job settings");
	return 0;
}

static bool env_entry_ok(const char *entry)
{
	size_t name =
		strspn(entry, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789");

	return name && entry[name] == '=' && !(entry[0] >= '0' && entry[0] <= '9');
}

/* Puts entry into the merged list: in place of the entry with its NAME, else at the end. */
static int merge_env(const char **env, size_t *count, const char *entry)
{
	size_t name = (size_t)(strchr(entry, '=') - entry) + 1;

	for (size_t i = 0; i < *count; i++)
		if (!strncmp(env[i], entry, name)) {
			env[i] = entry;
			return 0;
		}
	if (*count == ENV_MAX)
		return -E2BIG;
	env[(*count)++] = entry;
	return 0;
}

static int parse_env(const struct suite_layers *l, struct suite_test *t, const char *what)
{
	const char *env[ENV_MAX];
	size_t count = 0;

	for (size_t i = 0; i < l->count; i++) {
		const cJSON *list = cJSON_GetObjectItemCaseSensitive(l->of[i], "env"), *item;

		if (list && !cJSON_IsArray(list))
			return suite_fail(what, t->name,
					  "\"env\" must be a list of \"NAME=VALUE\" strings");
		cJSON_ArrayForEach(item, list)
		{
			if (!cJSON_IsString(item) || !env_entry_ok(item->valuestring))
				return suite_fail(
					what, t->name,
					"an \"env\" entry is not NAME=VALUE (NAME: letters, "
					"digits and _, not starting with a digit)");
			if (merge_env(env, &count, item->valuestring))
				return suite_fail(what, t->name, "more than 64 \"env\" entries");
		}
	}
	for (size_t i = 0; i < count; i++)
		if (push_option(t, "--env", env[i]))
			return suite_fail(what, t->name, "too many job settings");
	return 0;
}

/* "skip_status": the exit status that means the test skipped (1..255; 0: none). */
static int parse_skip_status(const struct suite_layers *l, struct suite_test *t, const char *what)
{
	const cJSON *v = setting(l, "skip_status");
	char text[8];

	if (!v)
		return 0;
	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > SKIP_STATUS_MAX ||
	    v->valuedouble != (double)(int)v->valuedouble)
		return suite_fail(what, t->name,
				  "\"skip_status\" must be an exit status in 1..255 (0: none)");
	if (!v->valueint)
		return 0;
	snprintf(text, sizeof(text), "%d", v->valueint);
	return push_option(t, "--skip-status", text)
		       ? suite_fail(what, t->name, "too many job settings")
		       : 0;
}

/* "mode": rewind-harness's words, and the older "instrumented" (pct) and "plain" (steps). */
static const struct {
	const char *word;
	enum suite_mode mode;
} MODE_WORDS[] = {
	{"pct", SUITE_MODE_PCT},     {"counter", SUITE_MODE_COUNTER},
	{"steps", SUITE_MODE_STEPS}, {"instrumented", SUITE_MODE_PCT},
	{"plain", SUITE_MODE_STEPS},
};

const char *suite_mode_name(enum suite_mode mode)
{
	return mode == SUITE_MODE_COUNTER ? "counter" : mode == SUITE_MODE_STEPS ? "steps" : "pct";
}

static int parse_mode(const cJSON *mode, struct suite_test *t, const char *what)
{
	t->mode = SUITE_MODE_PCT;
	if (!mode)
		return 0;
	for (size_t i = 0; cJSON_IsString(mode) && i < sizeof(MODE_WORDS) / sizeof(MODE_WORDS[0]);
	     i++)
		if (!strcmp(mode->valuestring, MODE_WORDS[i].word)) {
			t->mode = MODE_WORDS[i].mode;
			return 0;
		}
	return suite_fail(what, t->name,
			  "\"mode\" is \"pct\", \"counter\" or \"steps\" (or the older "
			  "\"instrumented\", the same as pct, or \"plain\", the same as steps)");
}

static int parse_share(const cJSON *share, struct suite_test *t, const char *what)
{
	t->share = 1;
	if (!share)
		return 0;
	if (!cJSON_IsNumber(share) || share->valuedouble < 1 || share->valuedouble > 1000 ||
	    share->valuedouble != (double)(unsigned int)share->valuedouble)
		return suite_fail(what, t->name, "\"share\" must be an integer in 1..1000");
	t->share = (unsigned int)share->valuedouble;
	return 0;
}

int suite_settings_parse(const struct suite_layers *l, const char *dir, struct suite_test *t,
			 const char *what)
{
	if (parse_mode(setting(l, "mode"), t, what) || parse_share(setting(l, "share"), t, what))
		return -1;
	for (size_t i = 0; i < l->count; i++)
		if (parse_adds(cJSON_GetObjectItemCaseSensitive(l->of[i], "add"), dir, t, what))
			return -1;
	return parse_job_keys(l, dir, t, what) || parse_user_cwd(l, t, what) ||
			       parse_env(l, t, what) || parse_skip_status(l, t, what)
		       ? -1
		       : 0;
}

/* SPDX-License-Identifier: MIT */
/* The execution input: its JSON form (schedule/input.h, docs/input-format.md). */
#include "schedule/input.h"

#include "lib/hex.h"
#include "schedule/input_reason.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define JSON_FORMAT "rewind-input"
static const char *const mode_names[] = {
	[INPUT_MODE_STEPS] = "steps", [INPUT_MODE_COUNTER] = "counter", [INPUT_MODE_PCT] = "pct"};

/* The JSON name of a kind's argument: "us", "insns", "priority", or NULL for none. */
static const char *arg_key(unsigned int kind)
{
	if (kind == INJECT_STALL || kind == INJECT_TIMER_LATE)
		return "us";
	if (kind == INJECT_PRIORITY || kind == INJECT_DEMOTE)
		return "priority";
	return kind == INJECT_PREEMPT_INSNS ? "insns" : NULL;
}

/* The JSON name of where a kind acts: "step", or "block", "thread", "position". */
static const char *where_key(unsigned int kind)
{
	switch (kind) {
	case INJECT_PREEMPT:
		return "block";
	case INJECT_PRIORITY:
		return "thread";
	case INJECT_DEMOTE:
		return "position";
	default:
		return "step";
	}
}

static bool has_arg(unsigned int kind)
{
	return arg_key(kind) != NULL;
}

static cJSON *injection_to_json(const struct injection *inj)
{
	const char *kind = injection_kind_name(inj->kind);
	cJSON *o;

	if (!kind || (!has_arg(inj->kind) && inj->arg != 0))
		return NULL;
	o = cJSON_CreateObject();
	if (!o || !cJSON_AddNumberToObject(o, where_key(inj->kind), inj->step) ||
	    !cJSON_AddStringToObject(o, "kind", kind) ||
	    (has_arg(inj->kind) && !cJSON_AddNumberToObject(o, arg_key(inj->kind), inj->arg))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/*
 * A header flag of pct mode, as JSON: key's value is on (the flag set) or
 * off (the default, the same as no key): "events": "racy" or "all" (racy
 * events), "priorities": "wide" or "narrow" (wide priorities), "sampler":
 * "walk" or "pct" (a walk).
 */
struct json_flag {
	const char *key, *on, *off;
	uint8_t flag;
};

static const struct json_flag json_flags[] = {
	{"events", "racy", "all", INPUT_FLAG_RACY},
	{"priorities", "wide", "narrow", INPUT_FLAG_WIDE},
	{"sampler", "walk", "pct", INPUT_FLAG_WALK},
};

/* Writes in's pct header flags to o (none when clear); false if out of memory. */
static bool flags_to_json(cJSON *o, const struct exec_input *in)
{
	for (size_t f = 0; f < sizeof(json_flags) / sizeof(json_flags[0]); f++)
		if ((in->flags & json_flags[f].flag) &&
		    !cJSON_AddStringToObject(o, json_flags[f].key, json_flags[f].on))
			return false;
	return true;
}

cJSON *input_to_json(const struct exec_input *in)
{
	char seed[sizeof("0x") + 16];
	cJSON *o, *list;

	if (in->mode >= sizeof(mode_names) / sizeof(mode_names[0]) ||
	    in->schedule.count > SCHEDULE_MAX)
		return NULL;
	snprintf(seed, sizeof(seed), "0x%016" PRIx64, in->seed);
	o = cJSON_CreateObject();
	if (!o || !cJSON_AddStringToObject(o, "format", JSON_FORMAT) ||
	    !cJSON_AddNumberToObject(o, "version", INPUT_VERSION) ||
	    !cJSON_AddStringToObject(o, "mode", mode_names[in->mode]) ||
	    !cJSON_AddStringToObject(o, "seed", seed) || !flags_to_json(o, in) ||
	    !(list = cJSON_AddArrayToObject(o, "injections")))
		goto fail;
	for (uint32_t i = 0; i < in->schedule.count; i++) {
		cJSON *inj = injection_to_json(&in->schedule.at[i]);

		if (!inj || !cJSON_AddItemToArray(list, inj)) {
			cJSON_Delete(inj);
			goto fail;
		}
	}
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

/* Decimal or 0x-hex digits only: no sign, no spaces, no overflow. */
static bool parse_u64(const char *s, uint64_t *out)
{
	unsigned int base = 10;
	uint64_t v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (*s == '\0')
		return false;
	for (; *s; s++) {
		int d = hex_digit_value(*s);

		if (d < 0 || (unsigned int)d >= base || v > (UINT64_MAX - (unsigned int)d) / base)
			return false;
		v = v * base + (unsigned int)d;
	}
	*out = v;
	return true;
}

/* A JSON number that is an integer in 0..max. */
static bool get_uint(const cJSON *item, uint32_t max, uint32_t *out)
{
	double d;

	if (!cJSON_IsNumber(item))
		return false;
	d = item->valuedouble;
	if (!(d >= 0 && d <= (double)max) || (double)(uint32_t)d != d)
		return false;
	*out = (uint32_t)d;
	return true;
}

/* A JSON value as a reason names it: the number itself, or "a string", "null". */
static const char *json_value_text(const cJSON *item, char *buf, size_t len)
{
	if (cJSON_IsNumber(item)) {
		snprintf(buf, len, "%.15g", item->valuedouble);
		return buf;
	}
	if (cJSON_IsString(item))
		return "a string";
	if (cJSON_IsBool(item))
		return cJSON_IsTrue(item) ? "true" : "false";
	if (cJSON_IsNull(item))
		return "null";
	return cJSON_IsArray(item) ? "an array" : "an object";
}

/* Refuses item, which is not an integer in min..max: "where"key" must be ..., not -5". */
static int reject_not_uint(char *why, size_t why_len, const char *where, const char *key,
			   uint32_t min, uint32_t max, const cJSON *item)
{
	char text[32];

	return input_reject(why, why_len,
			    "%s\"%s\" must be an integer in %" PRIu32 "..%" PRIu32 ", not %s",
			    where, key, min, max, json_value_text(item, text, sizeof(text)));
}

/*
 * Checks that every member of the object is one of the names[n] and none is
 * repeated; where names the object in the reason.
 */
static int check_members(const cJSON *obj, const char *const *names, size_t n, const char *where,
			 char *why, size_t why_len)
{
	for (const cJSON *m = obj->child; m; m = m->next) {
		size_t k = 0;

		if (!m->string)
			return input_reject(why, why_len, "%smember without a name", where);
		while (k < n && strcmp(m->string, names[k]) != 0)
			k++;
		if (k == n)
			return input_reject(why, why_len, "%sunknown key \"%s\"", where, m->string);
		for (const cJSON *p = obj->child; p != m; p = p->next) {
			if (strcmp(p->string, m->string) == 0)
				return input_reject(why, why_len, "%skey \"%s\" repeated", where,
						    m->string);
		}
	}
	return 0;
}

/* The argument of inj's kind, under its own key; any other argument key is refused. */
static int arg_from_json(const cJSON *o, struct injection *inj, const cJSON *us, const char *where,
			 char *why, size_t why_len)
{
	const char *key = arg_key(inj->kind);
	const cJSON *insns = cJSON_GetObjectItemCaseSensitive(o, "insns");
	const cJSON *prio = cJSON_GetObjectItemCaseSensitive(o, "priority");
	const cJSON *arg = key ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
	uint32_t min = input_valid_arg(inj->kind, 0), max = UINT16_MAX;
	uint32_t v;

	if (inj->kind == INJECT_PREEMPT_INSNS)
		max = INJECT_INSNS_MAX;
	else if (inj->kind == INJECT_PRIORITY || inj->kind == INJECT_DEMOTE)
		max = INJECT_PRIO_MAX;
	if ((us && us != arg) || (insns && insns != arg) || (prio && prio != arg))
		return input_reject(why, why_len, "%s\"%s\" is not allowed with \"%s\"", where,
				    us && us != arg	    ? "us"
				    : insns && insns != arg ? "insns"
							    : "priority",
				    injection_kind_name(inj->kind));
	if (!key)
		return 0;
	if (!arg)
		return input_reject(why, why_len, "%smissing \"%s\"", where, key);
	if (!get_uint(arg, max, &v) || v < min)
		return reject_not_uint(why, why_len, where, key, min, max, arg);
	inj->arg = (uint16_t)v;
	return 0;
}

/* Where inj acts: the key its kind takes ("step", "block", "thread", "position"), no other. */
static int where_from_json(const cJSON *o, struct injection *inj, const char *where, char *why,
			   size_t why_len)
{
	static const char *const keys[] = {"step", "block", "thread", "position"};
	const char *key = where_key(inj->kind);
	const cJSON *at = cJSON_GetObjectItemCaseSensitive(o, key);
	uint32_t v;

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (strcmp(keys[k], key) != 0 && cJSON_GetObjectItemCaseSensitive(o, keys[k]))
			return input_reject(why, why_len, "%s%s takes \"%s\", not \"%s\"", where,
					    injection_kind_name(inj->kind), key, keys[k]);
	if (!at)
		return input_reject(why, why_len, "%smissing \"%s\"", where, key);
	if (!get_uint(at, UINT32_MAX, &v))
		return reject_not_uint(why, why_len, where, key, 0, UINT32_MAX, at);
	inj->step = v;
	return 0;
}

static int injection_from_json(const cJSON *o, uint32_t i, struct injection *inj, char *why,
			       size_t why_len)
{
	static const char *const keys[] = {"step", "block", "thread", "position",
					   "kind", "us",    "insns",  "priority"};
	const cJSON *kind;
	char where[48];
	int rc;

	snprintf(where, sizeof(where), "injections[%" PRIu32 "]: ", i);
	if (!cJSON_IsObject(o))
		return input_reject(why, why_len, "%snot an object", where);
	rc = check_members(o, keys, sizeof(keys) / sizeof(keys[0]), where, why, why_len);
	if (rc)
		return rc;
	kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
	if (!kind)
		return input_reject(why, why_len, "%smissing \"kind\"", where);
	if (!cJSON_IsString(kind) || !injection_kind_from_name(kind->valuestring))
		return input_reject(why, why_len,
				    "%s\"kind\" must be \"resched\", \"stall\", \"timer-late\", "
				    "\"preempt\", \"preempt-insns\", \"priority\" or \"demote\"",
				    where);
	inj->kind = (uint8_t)injection_kind_from_name(kind->valuestring);
	inj->arg = 0;
	rc = where_from_json(o, inj, where, why, why_len);
	if (rc)
		return rc;
	return arg_from_json(o, inj, cJSON_GetObjectItemCaseSensitive(o, "us"), where, why,
			     why_len);
}

static int flag_from_json(const cJSON *json, const struct json_flag *f, struct exec_input *out,
			  char *why, size_t why_len)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, f->key);

	if (!v)
		return 0;
	if (!cJSON_IsString(v) ||
	    (strcmp(v->valuestring, f->on) != 0 && strcmp(v->valuestring, f->off) != 0))
		return input_reject(why, why_len, "\"%s\" must be \"%s\" or \"%s\"", f->key, f->on,
				    f->off);
	if (strcmp(v->valuestring, f->on) != 0)
		return 0;
	if (out->mode != INPUT_MODE_PCT)
		return input_reject(why, why_len, "\"%s\": \"%s\" needs pct mode", f->key, f->on);
	out->flags |= f->flag;
	return 0;
}

static int header_from_json(const cJSON *json, struct exec_input *out, char *why, size_t why_len)
{
	/* the required keys, then the optional ones */
	static const char *const keys[] = {"format",	 "version", "mode",	  "seed",
					   "injections", "events",  "priorities", "sampler"};
	const size_t required = 5;
	const cJSON *format, *version, *mode, *seed;
	uint32_t v;
	int rc;

	if (!cJSON_IsObject(json))
		return input_reject(why, why_len, "not a JSON object");
	rc = check_members(json, keys, sizeof(keys) / sizeof(keys[0]), "", why, why_len);
	if (rc)
		return rc;
	for (size_t k = 0; k < required; k++) {
		if (!cJSON_GetObjectItemCaseSensitive(json, keys[k]))
			return input_reject(why, why_len, "missing \"%s\"", keys[k]);
	}
	format = cJSON_GetObjectItemCaseSensitive(json, "format");
	version = cJSON_GetObjectItemCaseSensitive(json, "version");
	mode = cJSON_GetObjectItemCaseSensitive(json, "mode");
	seed = cJSON_GetObjectItemCaseSensitive(json, "seed");
	if (!cJSON_IsString(format) || strcmp(format->valuestring, JSON_FORMAT) != 0)
		return input_reject(why, why_len, "\"format\" must be \"" JSON_FORMAT "\"");
	if (!get_uint(version, UINT32_MAX, &v) || v != INPUT_VERSION) {
		char text[32];

		return input_reject(why, why_len, "\"version\" must be %d, not %s", INPUT_VERSION,
				    json_value_text(version, text, sizeof(text)));
	}
	out->mode = INPUT_MODES;
	for (uint8_t m = 0; m < INPUT_MODES && cJSON_IsString(mode); m++)
		if (strcmp(mode->valuestring, mode_names[m]) == 0)
			out->mode = m;
	if (out->mode == INPUT_MODES)
		return input_reject(why, why_len,
				    "\"mode\" must be \"steps\", \"counter\" or \"pct\"");
	if (!cJSON_IsString(seed) || !parse_u64(seed->valuestring, &out->seed))
		return input_reject(why, why_len,
				    "\"seed\" must be a string holding a decimal or 0x-hex u64");
	for (size_t f = 0; f < sizeof(json_flags) / sizeof(json_flags[0]); f++) {
		rc = flag_from_json(json, &json_flags[f], out, why, why_len);
		if (rc)
			return rc;
	}
	return 0;
}

static bool mode_allows(uint8_t mode, uint8_t kind)
{
	uint8_t kinds[INJECT_KIND_END];
	unsigned int n = input_kinds_of_mode(mode, kinds);

	return memchr(kinds, kind, n) != NULL;
}

int input_from_json(const cJSON *json, struct exec_input *in, char *why, size_t why_len)
{
	struct exec_input out = {0};
	const cJSON *list;
	int rc = header_from_json(json, &out, why, why_len);
	int n;

	if (rc)
		return rc;
	list = cJSON_GetObjectItemCaseSensitive(json, "injections");
	if (!cJSON_IsArray(list))
		return input_reject(why, why_len, "\"injections\" must be an array");
	n = cJSON_GetArraySize(list);
	if (n > SCHEDULE_MAX)
		return input_reject(why, why_len, "\"injections\": %d entries, at most %d allowed",
				    n, SCHEDULE_MAX);
	for (const cJSON *o = list->child; o; o = o->next) {
		rc = injection_from_json(o, out.schedule.count,
					 &out.schedule.at[out.schedule.count], why, why_len);
		if (rc)
			return rc;
		if (out.schedule.at[out.schedule.count].kind == INJECT_DEMOTE &&
		    (out.flags & INPUT_FLAG_WALK))
			return input_reject(why, why_len,
					    "injections[%" PRIu32
					    "]: demote in a walk (\"sampler\": "
					    "\"walk\" draws its own switches)",
					    out.schedule.count);
		if (!mode_allows(out.mode, out.schedule.at[out.schedule.count].kind))
			return input_reject(
				why, why_len, "injections[%" PRIu32 "]: %s needs \"mode\": \"%s\"",
				out.schedule.count,
				injection_kind_name(out.schedule.at[out.schedule.count].kind),
				out.schedule.at[out.schedule.count].kind == INJECT_PREEMPT
					? "counter"
					: "pct");
		out.schedule.count++;
	}
	*in = out;
	return 0;
}

/* The execution input: binary and JSON forms (harness/input.h, docs/input-format.md). */
#include "harness/input.h"

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Byte offsets inside the header and inside one record. */
#define HDR_MAGIC    0
#define HDR_VERSION  4
#define HDR_MODE     5
#define HDR_RESERVED 6
#define HDR_SEED     8
#define REC_STEP     0
#define REC_KIND     4
#define REC_RESERVED 5
#define REC_ARG	     6

#define JSON_FORMAT "rewind-input"
static const char *const mode_names[] = {
	[INPUT_MODE_STEPS] = "steps", [INPUT_MODE_COUNTER] = "counter", [INPUT_MODE_PCT] = "pct"};

/* Writes a one-line reason into why (if any) and returns -EINVAL. */
__attribute__((format(printf, 3, 4))) static int reject(char *why, size_t why_len, const char *fmt,
							...)
{
	if (why && why_len) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static uint16_t get_le16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

static uint32_t get_le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static void put_le16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, sizeof(v));
}

static void put_le32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static void put_le64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

static int check_header(const uint8_t *data, size_t len, char *why, size_t why_len)
{
	uint16_t reserved;

	if (len < INPUT_HEADER_SIZE)
		return reject(why, why_len, "offset %zu: input ends inside the %d-byte header", len,
			      INPUT_HEADER_SIZE);
	if (memcmp(data + HDR_MAGIC, INPUT_MAGIC, 4) != 0)
		return reject(why, why_len,
			      "offset 0: bad magic %02x %02x %02x %02x, expected \"" INPUT_MAGIC
			      "\"",
			      data[0], data[1], data[2], data[3]);
	if (data[HDR_VERSION] != INPUT_VERSION)
		return reject(why, why_len, "offset %d: version %u, expected %d", HDR_VERSION,
			      data[HDR_VERSION], INPUT_VERSION);
	if (data[HDR_MODE] >= INPUT_MODES)
		return reject(why, why_len,
			      "offset %d: unknown mode %u, expected %d (steps), %d (counter) or %d "
			      "(pct)",
			      HDR_MODE, data[HDR_MODE], INPUT_MODE_STEPS, INPUT_MODE_COUNTER,
			      INPUT_MODE_PCT);
	reserved = get_le16(data + HDR_RESERVED);
	if (reserved != 0)
		return reject(why, why_len, "offset %d: reserved header bytes are 0x%04x, not 0",
			      HDR_RESERVED, reserved);
	/* A trailing partial record is ignored: afl-tmin shortens inputs from
	 * the end a few bytes at a time, and must be able to drop a record. */
	if ((len - INPUT_HEADER_SIZE) / INPUT_RECORD_SIZE > SCHEDULE_MAX)
		return reject(why, why_len, "offset %d: %zu records, at most %d allowed",
			      INPUT_MAX_SIZE, (len - INPUT_HEADER_SIZE) / INPUT_RECORD_SIZE,
			      SCHEDULE_MAX);
	return 0;
}

/* Checks record i, whose bytes start at rec, in an input of the given mode. */
static int check_record(const uint8_t *rec, size_t i, uint8_t mode, char *why, size_t why_len)
{
	size_t off = INPUT_HEADER_SIZE + i * INPUT_RECORD_SIZE;
	uint8_t kind = rec[REC_KIND];
	uint16_t arg = get_le16(rec + REC_ARG);

	if (!injection_kind_name(kind))
		return reject(why, why_len, "record %zu (offset %zu): unknown kind %u", i,
			      off + REC_KIND, kind);
	if (rec[REC_RESERVED] != 0)
		return reject(why, why_len, "record %zu (offset %zu): reserved byte is %u, not 0",
			      i, off + REC_RESERVED, rec[REC_RESERVED]);
	if ((kind == INJECT_RESCHED || kind == INJECT_PREEMPT) && arg != 0)
		return reject(why, why_len, "record %zu (offset %zu): %s with arg %u, not 0", i,
			      off + REC_ARG, injection_kind_name(kind), arg);
	if (kind == INJECT_PREEMPT_INSNS && (arg == 0 || arg > INJECT_INSNS_MAX))
		return reject(why, why_len,
			      "record %zu (offset %zu): preempt-insns with arg %u, not 1..%u", i,
			      off + REC_ARG, arg, INJECT_INSNS_MAX);
	if (kind == INJECT_PREEMPT && mode != INPUT_MODE_COUNTER)
		return reject(why, why_len, "record %zu (offset %zu): preempt needs counter mode",
			      i, off + REC_KIND);
	if ((kind == INJECT_PRIORITY || kind == INJECT_DEMOTE) && mode != INPUT_MODE_PCT)
		return reject(why, why_len, "record %zu (offset %zu): %s needs pct mode", i,
			      off + REC_KIND, injection_kind_name(kind));
	if ((kind == INJECT_PRIORITY || kind == INJECT_DEMOTE) &&
	    (arg == 0 || arg > INJECT_PRIO_MAX))
		return reject(why, why_len, "record %zu (offset %zu): %s with arg %u, not 1..%u", i,
			      off + REC_ARG, injection_kind_name(kind), arg, INJECT_PRIO_MAX);
	return 0;
}

/* Validates everything first, so *in is only written when the input is accepted. */
int input_parse(const uint8_t *data, size_t len, struct exec_input *in, char *why, size_t why_len)
{
	size_t count;
	int rc = check_header(data, len, why, why_len);

	if (rc)
		return rc;
	count = (len - INPUT_HEADER_SIZE) / INPUT_RECORD_SIZE;
	for (size_t i = 0; i < count; i++) {
		rc = check_record(data + INPUT_HEADER_SIZE + i * INPUT_RECORD_SIZE, i,
				  data[HDR_MODE], why, why_len);
		if (rc)
			return rc;
	}

	in->seed = get_le64(data + HDR_SEED);
	in->mode = data[HDR_MODE];
	in->schedule.count = (uint32_t)count;
	for (size_t i = 0; i < count; i++) {
		const uint8_t *rec = data + INPUT_HEADER_SIZE + i * INPUT_RECORD_SIZE;

		in->schedule.at[i] = (struct injection){
			.step = get_le32(rec + REC_STEP),
			.arg = get_le16(rec + REC_ARG),
			.kind = rec[REC_KIND],
		};
	}
	return 0;
}

/* The kinds a mode allows, in kind order. */
static unsigned int kinds_of_mode(uint8_t mode, uint8_t kinds[INJECT_KIND_END])
{
	unsigned int n = 0;

	for (unsigned int k = 1; k < INJECT_KIND_END; k++) {
		if (k == INJECT_PREEMPT && mode != INPUT_MODE_COUNTER)
			continue;
		if ((k == INJECT_PRIORITY || k == INJECT_DEMOTE) && mode != INPUT_MODE_PCT)
			continue;
		kinds[n++] = (uint8_t)k;
	}
	return n;
}

/* arg brought into the range of kind. */
static uint16_t valid_arg(uint8_t kind, uint16_t arg)
{
	switch (kind) {
	case INJECT_RESCHED:
	case INJECT_PREEMPT:
		return 0;
	case INJECT_PREEMPT_INSNS:
		return (uint16_t)(1 + arg % INJECT_INSNS_MAX);
	case INJECT_PRIORITY:
	case INJECT_DEMOTE:
		return (uint16_t)(1 + arg % INJECT_PRIO_MAX);
	default:
		return arg;
	}
}

int input_decode(const uint8_t *data, size_t len, struct exec_input *in)
{
	uint8_t header[INPUT_HEADER_SIZE] = {0}, kinds[INJECT_KIND_END];
	size_t count = len > INPUT_HEADER_SIZE ? (len - INPUT_HEADER_SIZE) / INPUT_RECORD_SIZE : 0;
	unsigned int nkinds;

	if (input_parse(data, len, in, NULL, 0) == 0)
		return 0;
	if (len)
		memcpy(header, data, len < sizeof(header) ? len : sizeof(header));
	in->mode = header[HDR_MODE] % INPUT_MODES;
	in->seed = get_le64(header + HDR_SEED);
	in->schedule.count = (uint32_t)(count < SCHEDULE_MAX ? count : SCHEDULE_MAX);
	nkinds = kinds_of_mode(in->mode, kinds);
	for (uint32_t i = 0; i < in->schedule.count; i++) {
		const uint8_t *rec = data + INPUT_HEADER_SIZE + (size_t)i * INPUT_RECORD_SIZE;
		uint8_t kind = rec[REC_KIND];

		if (!memchr(kinds, kind, nkinds)) /* a kind the mode allows stays what it is */
			kind = kinds[kind % nkinds];

		in->schedule.at[i] = (struct injection){
			.step = get_le32(rec + REC_STEP),
			.arg = valid_arg(kind, get_le16(rec + REC_ARG)),
			.kind = kind,
		};
	}
	return 1;
}

size_t input_encode(const struct exec_input *in, uint8_t *buf)
{
	uint32_t count = in->schedule.count;

	if (count > SCHEDULE_MAX) /* never for a parsed input; buf holds no more */
		count = SCHEDULE_MAX;
	memcpy(buf + HDR_MAGIC, INPUT_MAGIC, 4);
	buf[HDR_VERSION] = INPUT_VERSION;
	buf[HDR_MODE] = in->mode;
	put_le16(buf + HDR_RESERVED, 0);
	put_le64(buf + HDR_SEED, in->seed);
	for (uint32_t i = 0; i < count; i++) {
		const struct injection *inj = &in->schedule.at[i];
		uint8_t *rec = buf + INPUT_HEADER_SIZE + (size_t)i * INPUT_RECORD_SIZE;

		put_le32(rec + REC_STEP, inj->step);
		rec[REC_KIND] = inj->kind;
		rec[REC_RESERVED] = 0;
		put_le16(rec + REC_ARG, inj->arg);
	}
	return INPUT_HEADER_SIZE + (size_t)count * INPUT_RECORD_SIZE;
}

/* --- JSON ------------------------------------------------------------------ */

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
	    !cJSON_AddStringToObject(o, "seed", seed) ||
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

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
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
		int d = hex_digit(*s);

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

	return reject(why, why_len,
		      "%s\"%s\" must be an integer in %" PRIu32 "..%" PRIu32 ", not %s", where, key,
		      min, max, json_value_text(item, text, sizeof(text)));
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
			return reject(why, why_len, "%smember without a name", where);
		while (k < n && strcmp(m->string, names[k]) != 0)
			k++;
		if (k == n)
			return reject(why, why_len, "%sunknown key \"%s\"", where, m->string);
		for (const cJSON *p = obj->child; p != m; p = p->next) {
			if (strcmp(p->string, m->string) == 0)
				return reject(why, why_len, "%skey \"%s\" repeated", where,
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
	uint32_t min = valid_arg(inj->kind, 0), max = UINT16_MAX;
	uint32_t v;

	if (inj->kind == INJECT_PREEMPT_INSNS)
		max = INJECT_INSNS_MAX;
	else if (inj->kind == INJECT_PRIORITY || inj->kind == INJECT_DEMOTE)
		max = INJECT_PRIO_MAX;
	if ((us && us != arg) || (insns && insns != arg) || (prio && prio != arg))
		return reject(why, why_len, "%s\"%s\" is not allowed with \"%s\"", where,
			      us && us != arg	      ? "us"
			      : insns && insns != arg ? "insns"
						      : "priority",
			      injection_kind_name(inj->kind));
	if (!key)
		return 0;
	if (!arg)
		return reject(why, why_len, "%smissing \"%s\"", where, key);
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
			return reject(why, why_len, "%s%s takes \"%s\", not \"%s\"", where,
				      injection_kind_name(inj->kind), key, keys[k]);
	if (!at)
		return reject(why, why_len, "%smissing \"%s\"", where, key);
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
		return reject(why, why_len, "%snot an object", where);
	rc = check_members(o, keys, sizeof(keys) / sizeof(keys[0]), where, why, why_len);
	if (rc)
		return rc;
	kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
	if (!kind)
		return reject(why, why_len, "%smissing \"kind\"", where);
	if (!cJSON_IsString(kind) || !injection_kind_from_name(kind->valuestring))
		return reject(why, why_len,
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

static int header_from_json(const cJSON *json, struct exec_input *out, char *why, size_t why_len)
{
	static const char *const keys[] = {"format", "version", "mode", "seed", "injections"};
	const cJSON *format, *version, *mode, *seed;
	uint32_t v;
	int rc;

	if (!cJSON_IsObject(json))
		return reject(why, why_len, "not a JSON object");
	rc = check_members(json, keys, sizeof(keys) / sizeof(keys[0]), "", why, why_len);
	if (rc)
		return rc;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		if (!cJSON_GetObjectItemCaseSensitive(json, keys[k]))
			return reject(why, why_len, "missing \"%s\"", keys[k]);
	}
	format = cJSON_GetObjectItemCaseSensitive(json, "format");
	version = cJSON_GetObjectItemCaseSensitive(json, "version");
	mode = cJSON_GetObjectItemCaseSensitive(json, "mode");
	seed = cJSON_GetObjectItemCaseSensitive(json, "seed");
	if (!cJSON_IsString(format) || strcmp(format->valuestring, JSON_FORMAT) != 0)
		return reject(why, why_len, "\"format\" must be \"" JSON_FORMAT "\"");
	if (!get_uint(version, UINT32_MAX, &v) || v != INPUT_VERSION) {
		char text[32];

		return reject(why, why_len, "\"version\" must be %d, not %s", INPUT_VERSION,
			      json_value_text(version, text, sizeof(text)));
	}
	out->mode = INPUT_MODES;
	for (uint8_t m = 0; m < INPUT_MODES && cJSON_IsString(mode); m++)
		if (strcmp(mode->valuestring, mode_names[m]) == 0)
			out->mode = m;
	if (out->mode == INPUT_MODES)
		return reject(why, why_len, "\"mode\" must be \"steps\", \"counter\" or \"pct\"");
	if (!cJSON_IsString(seed) || !parse_u64(seed->valuestring, &out->seed))
		return reject(why, why_len,
			      "\"seed\" must be a string holding a decimal or 0x-hex u64");
	return 0;
}

static bool mode_allows(uint8_t mode, uint8_t kind)
{
	uint8_t kinds[INJECT_KIND_END];
	unsigned int n = kinds_of_mode(mode, kinds);

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
		return reject(why, why_len, "\"injections\" must be an array");
	n = cJSON_GetArraySize(list);
	if (n > SCHEDULE_MAX)
		return reject(why, why_len, "\"injections\": %d entries, at most %d allowed", n,
			      SCHEDULE_MAX);
	for (const cJSON *o = list->child; o; o = o->next) {
		rc = injection_from_json(o, out.schedule.count,
					 &out.schedule.at[out.schedule.count], why, why_len);
		if (rc)
			return rc;
		if (!mode_allows(out.mode, out.schedule.at[out.schedule.count].kind))
			return reject(why, why_len,
				      "injections[%" PRIu32 "]: %s needs \"mode\": \"%s\"",
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

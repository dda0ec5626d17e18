/* SPDX-License-Identifier: MIT */
/* `rewind trace`: an event trace file, every record decoded (cli/trace_dump.h). */
#include "cli/trace_dump.h"

#include "lib/file.h"
#include "lib/json_file.h"
#include "lib/log.h"
#include "lib/utf8.h"
#include "rewind/abi.h"
#include "vmm/schedule.h"
#include "vmm/trace.h"
#include "vmm/vm.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define MAGIC_LEN	 (sizeof(TRACE_MAGIC) - 1)
#define PAYLOAD_MAX	 REWIND_EVENT_MAX /* no writer puts more after one record */
#define TEXT_CUT_CHARS	 60		  /* --text: longer text ends with "..." */
#define JSON_ESCAPED_MAX 6		  /* "\u00XX": the longest a byte becomes */

struct dump {
	const struct trace_dump_options *opt;
	FILE *out;
	const char *path;
	bool has_ready;
	uint64_t ready_step;
};

/* ---- text as JSON string literals ------------------------------------- */

static char *put_ascii(char *p, uint8_t c)
{
	static const char named[] = "\"\"\\\\\bb\ff\nn\rr\tt";
	const char *e = c ? memchr(named, c, sizeof(named) - 1) : NULL;

	if (e && (e - named) % 2 == 0)
		return p + sprintf(p, "\\%c", e[1]);
	if (c < 0x20 || c == 0x7f)
		return p + sprintf(p, "\\u%04x", c);
	*p++ = (char)c;
	return p;
}

/*
 * Bytes from the guest as a JSON string literal (quotes included), safe on a
 * terminal too: control characters (C1 included) escaped, bytes that are
 * not UTF-8 as U+FFFD. NULL when out of memory.
 */
static char *json_literal(const uint8_t *s, size_t len)
{
	char *lit = malloc(len * JSON_ESCAPED_MAX + 3), *p = lit;

	if (!lit)
		return NULL;
	*p++ = '"';
	for (size_t i = 0, n; i < len; i += n) {
		n = utf8_sequence_length(s + i, len - i);
		if (n == 1) {
			p = put_ascii(p, s[i]);
		} else if (n == 0) {
			p = stpcpy(p, "\\ufffd");
			n = 1;
		} else if (s[i] == 0xc2 && s[i + 1] < 0xa0) {
			p += sprintf(p, "\\u%04x", s[i + 1]); /* a C1 control */
		} else {
			memcpy(p, s + i, n);
			p += n;
		}
	}
	*p++ = '"';
	*p = '\0';
	return lit;
}

/*
 * Where to cut a literal from json_literal after max characters (an escape
 * or a UTF-8 sequence counts as one), or 0 where it is short enough.
 */
static size_t literal_cut(const char *lit, size_t max)
{
	size_t end = strlen(lit) - 1, chars = 0;

	for (size_t i = 1, n; i < end; i += n) {
		uint8_t c = (uint8_t)lit[i];

		if (++chars > max)
			return i;
		if (c == '\\')
			n = lit[i + 1] == 'u' ? 6 : 2;
		else
			n = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	}
	return 0;
}

/* ---- fields ----------------------------------------------------------- */

static int add_text(cJSON *to, const char *name, const uint8_t *s, size_t len)
{
	char *lit = json_literal(s, len);
	cJSON *item = lit ? cJSON_CreateRaw(lit) : NULL;

	free(lit);
	if (!item)
		return -ENOMEM;
	if (name)
		cJSON_AddItemToObject(to, name, item);
	else
		cJSON_AddItemToArray(to, item);
	return 0;
}

/* A step as inputs count them: relative to READY (absolute in a trace without one). */
static double relative_step(const struct dump *d, uint64_t step)
{
	return d->has_ready ? (double)(int64_t)(step - d->ready_step) : (double)step;
}

/* Linux's signal numbers (the guest's; x86-64). */
static const char *signal_name(uint64_t signo)
{
	static const char *const names[] = {
		[1] = "SIGHUP",	  [2] = "SIGINT",     [3] = "SIGQUIT",	[4] = "SIGILL",
		[5] = "SIGTRAP",  [6] = "SIGABRT",    [7] = "SIGBUS",	[8] = "SIGFPE",
		[9] = "SIGKILL",  [10] = "SIGUSR1",   [11] = "SIGSEGV", [12] = "SIGUSR2",
		[13] = "SIGPIPE", [14] = "SIGALRM",   [15] = "SIGTERM", [16] = "SIGSTKFLT",
		[17] = "SIGCHLD", [18] = "SIGCONT",   [19] = "SIGSTOP", [20] = "SIGTSTP",
		[21] = "SIGTTIN", [22] = "SIGTTOU",   [23] = "SIGURG",	[24] = "SIGXCPU",
		[25] = "SIGXFSZ", [26] = "SIGVTALRM", [27] = "SIGPROF", [28] = "SIGWINCH",
		[29] = "SIGIO",	  [30] = "SIGPWR",    [31] = "SIGSYS",
	};

	if (signo >= 32 && signo <= 64)
		return "SIGRT"; /* real-time: "signo" says which */
	return signo < sizeof(names) / sizeof(names[0]) && names[signo] ? names[signo] : "unknown";
}

static void add_signal(cJSON *o, uint64_t signo)
{
	cJSON_AddStringToObject(o, "signal", signal_name(signo));
	cJSON_AddNumberToObject(o, "signo", (double)signo);
}

/* A wait status (as from waitpid): the raw value, then the exit code or the signal. */
static void add_wait_status(cJSON *o, uint64_t raw)
{
	int status = (int)(uint32_t)raw;

	cJSON_AddNumberToObject(o, "wait_status", status);
	if (WIFEXITED(status)) {
		cJSON_AddNumberToObject(o, "exit_code", WEXITSTATUS(status));
	} else if (WIFSIGNALED(status)) {
		add_signal(o, (uint64_t)WTERMSIG(status));
		cJSON_AddBoolToObject(o, "core_dump", WCOREDUMP(status));
	}
}

/* ---- one decoder a record type ---------------------------------------- */

struct record {
	const struct dump *d;
	const struct trace_record *rec;
	const uint8_t *payload;
};

/* payload: path NUL argv[0] NUL argv[1] ... (the last NUL may be cut off) */
static int add_exec(cJSON *o, const struct record *r)
{
	const char *s = (const char *)r->payload;
	size_t len = r->rec->len, n = strnlen(s, len);
	cJSON *argv;
	int rc = add_text(o, "path", r->payload, n);

	argv = cJSON_AddArrayToObject(o, "argv");
	for (size_t at = n + 1; !rc && argv && at < len; at += n + 1) {
		n = strnlen(s + at, len - at);
		rc = add_text(argv, NULL, r->payload + at, n);
	}
	if (!rc && (double)r->rec->args[0] > cJSON_GetArraySize(argv))
		cJSON_AddNumberToObject(o, "argc", (double)r->rec->args[0]); /* argv was cut */
	return rc;
}

static int add_fork(cJSON *o, const struct record *r)
{
	cJSON_AddNumberToObject(o, "child_tid", (double)r->rec->args[0]);
	cJSON_AddNumberToObject(o, "child_pid", (double)r->rec->args[1]);
	cJSON_AddBoolToObject(o, "thread", r->rec->args[2] != 0);
	return 0;
}

static int add_exit(cJSON *o, const struct record *r)
{
	add_wait_status(o, r->rec->args[0]);
	cJSON_AddBoolToObject(o, "process", r->rec->args[1] != 0);
	return 0;
}

static int add_signal_record(cJSON *o, const struct record *r)
{
	add_signal(o, r->rec->args[0]);
	cJSON_AddNumberToObject(o, "code", (int32_t)(uint32_t)r->rec->args[1]);
	json_add_hex(o, "address", r->rec->args[2], JSON_HEX_ADDRESS);
	return 0;
}

static int add_payload_text(cJSON *o, const struct record *r)
{
	return add_text(o, "text", r->payload, r->rec->len);
}

static int add_switch(cJSON *o, const struct record *r)
{
	cJSON_AddNumberToObject(o, "prev_tid", (double)r->rec->args[0]);
	cJSON_AddNumberToObject(o, "next_tid", (double)r->rec->args[1]);
	return 0;
}

static int add_nothing(cJSON *o, const struct record *r)
{
	(void)o;
	(void)r;
	return 0;
}

static int add_job_status(cJSON *o, const struct record *r)
{
	add_wait_status(o, r->rec->args[0]);
	return 0;
}

static int add_power(cJSON *o, const struct record *r)
{
	static const char *const names[] = {
		[REWIND_POWER_OFF] = "off",
		[REWIND_POWER_REBOOT] = "reboot",
		[REWIND_POWER_HALT] = "halt",
		[REWIND_POWER_PANIC] = "panic",
	};
	uint64_t how = r->rec->args[0];

	if (how < sizeof(names) / sizeof(names[0])) {
		cJSON_AddStringToObject(o, "power", names[how]);
	} else {
		cJSON_AddStringToObject(o, "power", "unknown");
		cJSON_AddNumberToObject(o, "code", (double)how);
	}
	return 0;
}

static int add_outcome(cJSON *o, const struct record *r)
{
	uint64_t outcome = r->rec->args[0];

	cJSON_AddStringToObject(
		o, "outcome",
		outcome <= VM_WALL_BUDGET ? vm_outcome_name((enum vm_outcome)outcome) : "unknown");
	return add_text(o, "detail", r->payload, r->rec->len);
}

static int add_preempt(cJSON *o, const struct record *r)
{
	static const char *const whys[] = {
		[PREEMPT_WHY_BLOCK] = "block", [PREEMPT_WHY_SLICE] = "slice",
		[PREEMPT_WHY_INSNS] = "insns", [PREEMPT_WHY_DEMOTE] = "demote",
		[PREEMPT_WHY_FAIR] = "fair",
	};
	uint64_t why = r->rec->args[1];

	cJSON_AddStringToObject(o, "why",
				why < sizeof(whys) / sizeof(whys[0]) ? whys[why] : "unknown");
	if (why == PREEMPT_WHY_INSNS)
		cJSON_AddNumberToObject(o, "from_step", relative_step(r->d, r->rec->args[0]));
	else
		cJSON_AddNumberToObject(o, "events", (double)r->rec->args[0]);
	json_add_hex(o, "address", r->rec->args[2], JSON_HEX_ADDRESS);
	return 0;
}

/* Kinds as the input format names them, the argument under its unit. */
static int add_inject(cJSON *o, const struct record *r)
{
	uint64_t kind = r->rec->args[0];
	const char *name = kind < INJECT_KIND_END ? injection_kind_name((unsigned int)kind) : NULL;

	cJSON_AddStringToObject(o, "kind", name ? name : "unknown");
	if (kind == INJECT_STALL || kind == INJECT_TIMER_LATE)
		cJSON_AddNumberToObject(o, "us", (double)r->rec->args[1]);
	else if (kind == INJECT_PREEMPT_INSNS)
		cJSON_AddNumberToObject(o, "insns", (double)r->rec->args[1]);
	else if (kind != INJECT_RESCHED)
		cJSON_AddNumberToObject(o, "arg", (double)r->rec->args[1]);
	if (!name)
		cJSON_AddNumberToObject(o, "kind_code", (double)kind);
	cJSON_AddNumberToObject(o, "index", (double)r->rec->args[2]);
	return 0;
}

/* A pure spin yielded at its fixed point: where, and how long the task sleeps. */
static int add_spin_yield(cJSON *o, const struct record *r)
{
	json_add_hex(o, "address", r->rec->args[0], JSON_HEX_ADDRESS);
	cJSON_AddNumberToObject(o, "sleep_ns", (double)r->rec->args[1]);
	return 0;
}

struct record_type {
	uint32_t type;
	const char *name;
	int (*add_fields)(cJSON *o, const struct record *r);
};

static const struct record_type record_types[] = {
	{REWIND_EV_EXEC, "exec", add_exec},
	{REWIND_EV_FORK, "fork", add_fork},
	{REWIND_EV_EXIT, "exit", add_exit},
	{REWIND_EV_SIGNAL, "signal", add_signal_record},
	{REWIND_EV_OUTPUT, "output", add_payload_text},
	{REWIND_EV_CONSOLE, "console", add_payload_text},
	{REWIND_EV_PANIC, "panic", add_payload_text},
	{REWIND_EV_SWITCH, "switch", add_switch},
	{TRACE_READY, "ready", add_nothing},
	{TRACE_JOB_STATUS, "job_status", add_job_status},
	{TRACE_POWER, "power", add_power},
	{TRACE_OUTCOME, "outcome", add_outcome},
	{TRACE_PREEMPT, "preempt", add_preempt},
	{TRACE_INJECT, "inject", add_inject},
	{TRACE_SPIN_YIELD, "spin_yield", add_spin_yield},
};

static const struct record_type *record_type_of(uint32_t type)
{
	for (size_t i = 0; i < sizeof(record_types) / sizeof(record_types[0]); i++) {
		if (record_types[i].type == type)
			return &record_types[i];
	}
	return NULL;
}

/* step, boot (only if true), pid, tid, type, then the type's own fields. */
static cJSON *record_json(const struct record *r, bool boot)
{
	const struct record_type *rt = record_type_of(r->rec->type);
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "step", relative_step(r->d, r->rec->step));
	if (boot)
		cJSON_AddTrueToObject(o, "boot");
	cJSON_AddNumberToObject(o, "pid", r->rec->pid);
	cJSON_AddNumberToObject(o, "tid", r->rec->tid);
	cJSON_AddStringToObject(o, "type", rt ? rt->name : "unknown");
	if (!rt)
		cJSON_AddNumberToObject(o, "code", r->rec->type);
	if (rt && rt->add_fields(o, r) < 0) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* ---- output ----------------------------------------------------------- */

static void print_text_value(FILE *out, const cJSON *v)
{
	if (cJSON_IsRaw(v)) {
		size_t cut = literal_cut(v->valuestring, TEXT_CUT_CHARS);

		if (cut)
			fprintf(out, "%.*s\"...", (int)cut, v->valuestring);
		else
			fputs(v->valuestring, out);
	} else if (cJSON_IsString(v)) {
		fputs(v->valuestring, out);
	} else if (cJSON_IsBool(v)) {
		fputs(cJSON_IsTrue(v) ? "true" : "false", out);
	} else if (cJSON_IsArray(v)) {
		fputc('[', out);
		for (const cJSON *e = v->child; e; e = e->next) {
			print_text_value(out, e);
			fputs(e->next ? ", " : "", out);
		}
		fputc(']', out);
	} else {
		fprintf(out, "%.0f", cJSON_GetNumberValue(v)); /* integers: exact, any size */
	}
}

/* One row: STEP PID TID WHAT, then the type's fields as name=value (text bare). */
static void print_text_row(FILE *out, const cJSON *o)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "type");

	fprintf(out, "%10.0f %7.0f %7.0f %-*s",
		cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "step")),
		cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "pid")),
		cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "tid")),
		type->next ? 10 : 0, type->valuestring);
	for (const cJSON *f = type->next; f; f = f->next) {
		if (strcmp(f->string, "text") != 0)
			fprintf(out, " %s=", f->string);
		else
			fputc(' ', out);
		print_text_value(out, f);
	}
	fputc('\n', out);
}

static int out_of_memory(const struct dump *d)
{
	rw_err("out of memory decoding a record of %s", d->path);
	return -ENOMEM;
}

static int print_record(const struct dump *d, const struct trace_record *rec,
			const uint8_t *payload, bool boot)
{
	const struct record r = {.d = d, .rec = rec, .payload = payload};
	cJSON *o = record_json(&r, boot);
	char *line;

	if (!o)
		return out_of_memory(d);
	if (d->opt->text) {
		print_text_row(d->out, o);
		cJSON_Delete(o);
		return 0;
	}
	line = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!line)
		return out_of_memory(d);
	fprintf(d->out, "%s\n", line);
	cJSON_free(line);
	return 0;
}

/* ---- the file --------------------------------------------------------- */

/* The step of the first READY record, if there is one. */
static bool find_ready(const uint8_t *records, size_t len, uint64_t *ready_step)
{
	struct trace_iter it;
	struct trace_record rec;

	trace_iter_init(&it, records, len, 0);
	while (trace_iter_next(&it, &rec, NULL)) {
		if (rec.type == TRACE_READY) {
			*ready_step = rec.step;
			return true;
		}
	}
	return false;
}

static int dump_records(const struct dump *d, const uint8_t *records, size_t len)
{
	struct trace_iter it;
	struct trace_record rec;
	const uint8_t *payload;
	bool boot = d->has_ready;
	size_t start = 0;
	int rc = 0;

	if (d->opt->text)
		fprintf(d->out, "%10s %7s %7s %-10s %s\n", "STEP", "PID", "TID", "WHAT", "DETAIL");
	trace_iter_init(&it, records, len, 0);
	for (; !rc && trace_iter_next(&it, &rec, &payload); start = it.at) {
		if (rec.len > PAYLOAD_MAX) {
			rw_err("%s is corrupt: the record at byte offset %zu carries %u bytes, "
			       "more "
			       "than any record does (%u)",
			       d->path, MAGIC_LEN + start, rec.len, PAYLOAD_MAX);
			return -EINVAL;
		}
		if (rec.type == TRACE_READY)
			boot = false;
		if (!boot || d->opt->all)
			rc = print_record(d, &rec, payload, boot);
	}
	if (!rc && !trace_iter_at_end(&it)) {
		rw_err("%s is truncated: the record at byte offset %zu runs past the end of the "
		       "file (%zu bytes)",
		       d->path, MAGIC_LEN + it.at, MAGIC_LEN + len);
		return -EINVAL;
	}
	return rc;
}

int trace_dump_file(const char *path, const struct trace_dump_options *opt, FILE *out)
{
	struct dump d = {.opt = opt, .out = out, .path = path};
	uint8_t *data;
	size_t len;
	int rc = file_read_all(path, &data, &len); /* capped, regular files only */

	if (rc < 0)
		return rc;
	if (len < MAGIC_LEN || memcmp(data, TRACE_MAGIC, MAGIC_LEN) != 0) {
		rw_err("%s is not a Rewind event trace (it does not start with %s)", path,
		       TRACE_MAGIC);
		free(data);
		return -EINVAL;
	}
	d.has_ready = find_ready(data + MAGIC_LEN, len - MAGIC_LEN, &d.ready_step);
	if (!d.has_ready)
		fprintf(stderr, "rewind: %s has no READY record: all records, steps absolute\n",
			path);
	rc = dump_records(&d, data + MAGIC_LEN, len - MAGIC_LEN);
	free(data);
	if (fflush(out) != 0 || ferror(out)) {
		rw_err_errno(errno, "cannot write the decoded trace");
		return rc ? rc : -EIO;
	}
	return rc;
}

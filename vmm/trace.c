#include "vmm/trace.h"

#include "vmm/file.h"
#include "vmm/log.h"

#include <stdlib.h>
#include <string.h>

int trace_init(struct trace *t)
{
	*t = (struct trace){0};
	t->hash = XXH3_createState();
	if (!t->hash || XXH3_64bits_reset(t->hash) == XXH_ERROR) {
		rw_err("cannot create the trace hash state");
		return -ENOMEM;
	}
	return 0;
}

void trace_free(struct trace *t)
{
	free(t->buf);
	XXH3_freeState(t->hash);
	*t = (struct trace){0};
}

void trace_reserve(struct trace *t, size_t more)
{
	size_t cap = t->cap ? t->cap : 1 << 16;

	if (t->len + more <= t->cap)
		return;
	while (cap < t->len + more)
		cap *= 2;
	t->buf = realloc(t->buf, cap);
	if (!t->buf) {
		rw_err("out of memory for a trace of %zu bytes", cap);
		abort();
	}
	t->cap = cap;
}

void trace_append(struct trace *t, const struct trace_record *rec, const void *payload)
{
	trace_reserve(t, sizeof(*rec) + rec->len);
	memcpy(t->buf + t->len, rec, sizeof(*rec));
	if (rec->len)
		memcpy(t->buf + t->len + sizeof(*rec), payload, rec->len);
	XXH3_64bits_update(t->hash, t->buf + t->len, sizeof(*rec) + rec->len);
	t->len += sizeof(*rec) + rec->len;
	t->count++;
}

void trace_restore(struct trace *t, const void *data, size_t len, uint64_t count)
{
	t->len = 0;
	trace_reserve(t, len);
	if (len)
		memcpy(t->buf, data, len);
	t->len = len;
	t->count = count;
	XXH3_64bits_reset(t->hash);
	XXH3_64bits_update(t->hash, t->buf, len);
}

uint64_t trace_hash(const struct trace *t)
{
	return XXH3_64bits_digest(t->hash);
}

int trace_write(const struct trace *t, const char *path)
{
	const struct file_part parts[] = {
		{TRACE_MAGIC, strlen(TRACE_MAGIC)},
		{t->buf, t->len},
	};

	return file_write_atomic(path, parts, 2);
}

bool trace_next(const struct trace *t, size_t *at, struct trace_record *rec,
		const uint8_t **payload)
{
	if (*at > t->len || t->len - *at < sizeof(*rec))
		return false;
	memcpy(rec, t->buf + *at, sizeof(*rec));
	if (rec->len > t->len - *at - sizeof(*rec))
		return false;
	if (payload)
		*payload = t->buf + *at + sizeof(*rec);
	*at += sizeof(*rec) + rec->len;
	return true;
}

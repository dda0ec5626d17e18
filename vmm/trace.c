/* SPDX-License-Identifier: MIT */
#include "vmm/trace.h"

#include "lib/file.h"
#include "lib/log.h"

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

void trace_iter_init(struct trace_iter *it, const void *buf, size_t len, size_t from)
{
	*it = (struct trace_iter){.buf = buf, .len = len, .at = from};
}

bool trace_iter_next(struct trace_iter *it, struct trace_record *rec, const uint8_t **payload)
{
	/* subtractions only: at + rec->len could wrap for a hostile length */
	if (it->at > it->len || it->len - it->at < sizeof(*rec))
		return false;
	memcpy(rec, it->buf + it->at, sizeof(*rec));
	if (rec->len > it->len - it->at - sizeof(*rec))
		return false;
	if (payload)
		*payload = it->buf + it->at + sizeof(*rec);
	it->at += sizeof(*rec) + rec->len;
	return true;
}

bool trace_iter_at_end(const struct trace_iter *it)
{
	return it->at == it->len;
}

bool trace_next(const struct trace *t, size_t *at, struct trace_record *rec,
		const uint8_t **payload)
{
	struct trace_iter it;
	bool more;

	trace_iter_init(&it, t->buf, t->len, *at);
	more = trace_iter_next(&it, rec, payload);
	*at = it.at;
	return more;
}

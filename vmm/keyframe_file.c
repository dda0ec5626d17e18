/* SPDX-License-Identifier: MIT */
#include "vmm/keyframe_file.h"

#include "vmm/guest_mem.h"

#include "lib/file.h"
#include "lib/log.h"
#include "vmm/seed.h"

#include <stdlib.h>
#include <string.h>

static int page_is_zero(const uint8_t *page)
{
	static const uint8_t zero[MEM_PAGE_SIZE];

	return memcmp(page, zero, MEM_PAGE_SIZE) == 0;
}

static void put(FILE *f, const void *data, size_t len)
{
	fwrite(data, 1, len, f);
}

/* Payload as described in keyframe_file.h; returns the page count. */
static uint64_t write_payload(FILE *f, const struct keyframe *kf, const struct vm *vm)
{
	const struct mem_snapshot *mem = &kf->mem;
	struct keyframe_file_vmm v = {
		.clock = kf->vmm.clock,
		.steps = kf->vmm.steps,
		.shared_gpa = kf->vmm.shared_gpa,
		.ready_step = kf->vmm.ready_step,
		.seed_gpa = kf->vmm.seed_gpa,
		.trace_len = kf->vmm.trace.len,
		.trace_count = kf->vmm.trace.count,
	};
	uint64_t pages = 0, total = mem->size / MEM_PAGE_SIZE;

	put(f, &kf->vcpu, sizeof(kf->vcpu));
	put(f, &v, sizeof(v));
	put(f, vm->trace.buf, kf->vmm.trace.len);
	for (uint64_t i = 0; i < total; i++)
		pages += !page_is_zero(mem->copy + i * MEM_PAGE_SIZE);
	put(f, &pages, sizeof(pages));
	for (uint64_t i = 0; i < total; i++) {
		if (!page_is_zero(mem->copy + i * MEM_PAGE_SIZE))
			put(f, &i, sizeof(i));
	}
	for (uint64_t i = 0; i < total; i++) {
		if (!page_is_zero(mem->copy + i * MEM_PAGE_SIZE))
			put(f, mem->copy + i * MEM_PAGE_SIZE, MEM_PAGE_SIZE);
	}
	return pages;
}

static void seal_header(struct keyframe_file_header *h, const void *payload, size_t len)
{
	h->payload_len = len;
	h->payload_xxh3 = XXH3_64bits(payload, len);
	h->header_xxh3 = XXH3_64bits(h, offsetof(struct keyframe_file_header, header_xxh3));
}

int keyframe_file_write(const char *path, const struct keyframe *kf, const struct vm *vm,
			const struct keyframe_identity *id)
{
	struct keyframe_file_header h = {.version = KEYFRAME_VERSION,
					 .vcpu_state_size = sizeof(struct vcpu_state),
					 .id = *id,
					 .step = kf->vmm.steps,
					 .virtual_ns = kf->vmm.clock.now_ns};
	char *payload = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&payload, &len);
	int rc;

	if (!f)
		return -ENOMEM;
	memcpy(h.magic, KEYFRAME_MAGIC, sizeof(h.magic));
	h.page_count = write_payload(f, kf, vm);
	if (fclose(f) != 0) {
		free(payload);
		return -ENOMEM;
	}
	seal_header(&h, payload, len);
	{
		struct file_part parts[] = {{&h, sizeof(h)}, {payload, len}};

		rc = file_write_atomic(path, parts, 2);
	}
	free(payload);
	return rc;
}

/* Checks magic, version, sizes and both checksums. */
static int check_file(const char *path, const uint8_t *data, size_t len,
		      const struct keyframe_file_header **out)
{
	const struct keyframe_file_header *h = (const void *)data;

	if (len < sizeof(*h) || memcmp(h->magic, KEYFRAME_MAGIC, sizeof(h->magic)) != 0) {
		rw_err("%s is not a Rewind keyframe file", path);
		return -EINVAL;
	}
	if (h->version != KEYFRAME_VERSION || h->vcpu_state_size != sizeof(struct vcpu_state)) {
		rw_err("%s is keyframe version %u (vCPU state %u bytes); this rewind reads "
		       "version %u (%zu bytes)",
		       path, h->version, h->vcpu_state_size, KEYFRAME_VERSION,
		       sizeof(struct vcpu_state));
		return -EINVAL;
	}
	if (XXH3_64bits(h, offsetof(struct keyframe_file_header, header_xxh3)) != h->header_xxh3 ||
	    h->payload_len != len - sizeof(*h) ||
	    XXH3_64bits(data + sizeof(*h), h->payload_len) != h->payload_xxh3) {
		rw_err("%s is corrupt or truncated (checksum or length mismatch)", path);
		return -EINVAL;
	}
	*out = h;
	return 0;
}

#define CHECK_FIELD(field, fmt)                                                                    \
	do {                                                                                       \
		if (file->field != want->field) {                                                  \
			rw_err("%s belongs to other inputs: " #field " is " fmt " there, " fmt     \
			       " here",                                                            \
			       path, file->field, want->field);                                    \
			return -EINVAL;                                                            \
		}                                                                                  \
	} while (0)

static int check_identity(const char *path, const struct keyframe_identity *file,
			  const struct keyframe_identity *want)
{
	CHECK_FIELD(kernel_xxh3, "%016lx");
	CHECK_FIELD(initrd_xxh3, "%016lx");
	CHECK_FIELD(mem_bytes, "%lu");
	CHECK_FIELD(epoch_ns, "%lu");
	CHECK_FIELD(quantum_ns, "%lu");
	if (strncmp(file->cpu_model, want->cpu_model, sizeof(file->cpu_model)) != 0) {
		rw_err("%s belongs to other inputs: CPU model %.32s there, %.32s here", path,
		       file->cpu_model, want->cpu_model);
		return -EINVAL;
	}
	return 0;
}

/* A bounds-checked reader over the payload; nothing in it is aligned. */
struct cursor {
	const uint8_t *p;
	size_t left;
};

static const uint8_t *take(struct cursor *c, size_t len)
{
	const uint8_t *at = c->p;

	if (len > c->left)
		return NULL;
	c->p += len;
	c->left -= len;
	return at;
}

static int take_copy(struct cursor *c, void *to, size_t len)
{
	const uint8_t *at = take(c, len);

	if (!at)
		return -EINVAL;
	memcpy(to, at, len);
	return 0;
}

static int load_pages(struct vm *vm, struct cursor *c, uint64_t count)
{
	uint64_t ram_pages = vm->km.ram_size / MEM_PAGE_SIZE;
	const uint8_t *index = count <= ram_pages ? take(c, count * sizeof(uint64_t)) : NULL;

	if (!index)
		return -EINVAL;
	for (uint64_t i = 0; i < count; i++) {
		const uint8_t *page = take(c, MEM_PAGE_SIZE);
		uint64_t n;

		memcpy(&n, index + i * sizeof(n), sizeof(n));
		if (!page || n >= ram_pages)
			return -EINVAL;
		memcpy(vm->km.ram + n * MEM_PAGE_SIZE, page, MEM_PAGE_SIZE);
	}
	return c->left == 0 ? 0 : -EINVAL;
}

/* Whether trace holds exactly count records and ends with READY at ready_step. */
static bool trace_adds_up(const uint8_t *trace, uint64_t len, uint64_t count, uint64_t ready_step)
{
	struct trace t = {.buf = (uint8_t *)trace, .len = len};
	struct trace_record rec = {0};
	uint64_t n = 0;
	size_t at = 0;

	while (trace_next(&t, &at, &rec, NULL))
		n++;
	return at == len && n == count && rec.type == TRACE_READY && rec.step == ready_step;
}

/*
 * Every field against what the VMM could have written: a checksum only says
 * the file is as its writer sealed it, and a keyframe may come from anyone.
 */
static bool vmm_fields_valid(const struct vm *vm, const struct keyframe_file_vmm *v,
			     const uint8_t *trace)
{
	const char *bad = NULL;

	if (!v->shared_gpa || v->shared_gpa % MEM_PAGE_SIZE ||
	    !guest_mem_ptr(&vm->km, v->shared_gpa, MEM_PAGE_SIZE))
		bad = "its shared page is not a page of guest RAM";
	else if (!v->ready_step || v->ready_step != v->steps)
		bad = "it was not taken at READY";
	else if (!seed_gpa_valid(&vm->km, v->seed_gpa, v->shared_gpa))
		bad = "its seed buffer is not in one page of guest RAM";
	else if (v->clock.quantum_ns != vm->clock.quantum_ns)
		bad = "its clock runs at another quantum";
	else if (v->trace_len > VM_TRACE_MAX_DEFAULT ||
		 !trace_adds_up(trace, v->trace_len, v->trace_count, v->ready_step))
		bad = "its trace does not add up (or does not end at READY)";
	if (bad)
		rw_err("the keyframe's state is not one the VMM writes: %s", bad);
	return !bad;
}

/* Everything up to the vCPU: vcpu is only filled in, vm gets RAM and VMM state. */
static int load_payload(struct vm *vm, struct cursor *c, struct vcpu_state *vcpu)
{
	struct keyframe_file_vmm v;
	const uint8_t *trace;
	uint64_t pages;

	if (take_copy(c, vcpu, sizeof(*vcpu)) < 0 || take_copy(c, &v, sizeof(v)) < 0 ||
	    !(trace = take(c, v.trace_len)) || take_copy(c, &pages, sizeof(pages)) < 0 ||
	    !vmm_fields_valid(vm, &v, trace) || load_pages(vm, c, pages) < 0)
		return -EINVAL;
	trace_restore(&vm->trace, trace, v.trace_len, v.trace_count);
	vm->clock = v.clock;
	vm->steps = v.steps;
	vm->shared_gpa = v.shared_gpa;
	vm->ready_step = v.ready_step;
	vm->seed_gpa = v.seed_gpa;
	return 0;
}

/* Reads path whole and checks it; on success the caller frees *data. */
static int read_checked(const char *path, uint8_t **data, size_t *len,
			const struct keyframe_file_header **h)
{
	int rc = file_read_max(path, KEYFRAME_FILE_MAX, "keyframe", data, len);

	if (rc)
		return rc;
	rc = check_file(path, *data, *len, h);
	if (rc)
		free(*data);
	return rc;
}

int keyframe_file_parse(const char *path, const uint8_t *data, size_t len, struct vm *vm,
			const struct keyframe_identity *id, struct vcpu_state *vcpu)
{
	const struct keyframe_file_header *h;
	int rc = check_file(path, data, len, &h);

	if (!rc)
		rc = check_identity(path, &h->id, id);
	if (!rc) {
		struct cursor c = {data + sizeof(*h), h->payload_len};

		rc = load_payload(vm, &c, vcpu);
		if (rc == -EINVAL)
			rw_err("%s: its contents do not add up (a bug in the writer?)", path);
	}
	return rc;
}

int keyframe_file_load(const char *path, struct vm *vm, const struct keyframe_identity *id)
{
	static struct vcpu_state vcpu; /* large; loading is not reentrant anyway */
	uint8_t *data;
	size_t len;
	int rc = file_read_max(path, KEYFRAME_FILE_MAX, "keyframe", &data, &len);

	if (rc)
		return rc;
	rc = keyframe_file_parse(path, data, len, vm, id, &vcpu);
	free(data);
	if (rc)
		return rc;
	return vcpu_state_load(&vm->km, &vcpu) < 0 ? -EIO : 0;
}

int keyframe_file_describe(const char *path, FILE *to)
{
	const struct keyframe_file_header *h;
	uint8_t *data;
	size_t len;
	int rc = read_checked(path, &data, &len, &h);

	if (rc)
		return rc;
	fprintf(to,
		"keyframe %s\n  version %u\n  kernel_xxh3 %016llx\n  initrd_xxh3 %016llx\n"
		"  cpu_model %.32s\n  mem_bytes %llu\n  epoch_ns %llu\n  quantum_ns %llu\n"
		"  step %llu\n  virtual_ns %llu\n  pages %llu (%llu bytes in the file)\n",
		path, h->version, (unsigned long long)h->id.kernel_xxh3,
		(unsigned long long)h->id.initrd_xxh3, h->id.cpu_model,
		(unsigned long long)h->id.mem_bytes, (unsigned long long)h->id.epoch_ns,
		(unsigned long long)h->id.quantum_ns, (unsigned long long)h->step,
		(unsigned long long)h->virtual_ns, (unsigned long long)h->page_count,
		(unsigned long long)len);
	free(data);
	return 0;
}

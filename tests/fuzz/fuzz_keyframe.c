/* SPDX-License-Identifier: MIT */
/*
 * AFL++ target for reading a keyframe file (vmm/keyframe_file.c), without
 * KVM: keyframe_file_parse (everything keyframe_file_load does up to, not
 * including, loading the vCPU) into a small guest RAM, and
 * keyframe_file_describe (`rewind keyframe FILE`).
 *
 *   fuzz_keyframe [--fix-checksums] FILE  checks FILE (stdin without FILE)
 *   fuzz_keyframe --write-seeds DIR       writes a few valid keyframes into DIR
 *
 * The bytes as they are: refused (-EINVAL, message on stderr) or accepted,
 * never crashed on or read out of bounds; describe accepts whatever parse
 * accepts. A fuzzer rarely gets past the XXH3 checksums, so with
 * --fix-checksums the target then parses a second copy whose header says
 * the real payload length and carries the real payload and header XXH3:
 * what the checksums guard (identity, vCPU, VMM fields, trace, page index,
 * pages) gets fuzzed too. An accepted keyframe must have put exactly what
 * the file holds into the vm: the vCPU state handed back, the clock, steps,
 * shared page, READY step, the trace (adding up, ending at READY) and every
 * page (the last copy of a page number wins; RAM not in the index stays
 * zero). Persistent mode as in tests/fuzz/fuzz.h. Planted bug
 * (-DFUZZ_PLANTED_BUG): an accepted keyframe whose guest RAM holds a byte
 * of 0x80 or more (no seed's page does).
 */
#define FUZZ_NAME "fuzz_keyframe"

#include "tests/fuzz/fuzz.h"
#include "vmm/keyframe_file.h"
#include "vmm/seed.h"

#include <stdbool.h>
#include <stddef.h>

#define RAM_PAGES 16
#define QUANTUM	  5000

static uint8_t ram[RAM_PAGES * MEM_PAGE_SIZE];
static struct vm vm;
static int fix_checksums;

static const struct keyframe_identity identity = {
	.kernel_xxh3 = 0x682dfe81e849febcull,
	.initrd_xxh3 = 0xbfee06af635a33ddull,
	.mem_bytes = sizeof(ram),
	.epoch_ns = 1767225600ull * 1000000000ull,
	.quantum_ns = QUANTUM,
	.cpu_model = "rewind-amd-v1",
};

/*
 * keyframe_file_load's last step, which this target never takes (it calls
 * keyframe_file_parse): a stand-in for vmm/vcpu_state.c, which needs KVM.
 */
int vcpu_state_load(struct kvm_machine *m, const struct vcpu_state *s)
{
	(void)m;
	(void)s;
	fuzz_die("vcpu_state_load", "called without KVM");
}

/* The vm the loader fills: RAM zero, VMM state cleared, the trace kept (its buffer reused). */
static void vm_reset(void)
{
	if (!vm.trace.hash && trace_init(&vm.trace) < 0)
		fuzz_die("trace_init", "failed");
	memset(ram, 0, sizeof(ram));
	vm.km.ram = ram;
	vm.km.ram_size = sizeof(ram);
	vm.km.vcpu_fd = -1;
	vm.clock = (struct vclock){.quantum_ns = QUANTUM};
	vm.steps = vm.shared_gpa = vm.ready_step = vm.seed_gpa = 0;
	trace_restore(&vm.trace, NULL, 0, 0);
}

static uint64_t get_u64(const uint8_t *at)
{
	uint64_t v;

	memcpy(&v, at, sizeof(v));
	return v;
}

/* The trace the vm holds: the file's bytes, count records, the last READY at ready_step. */
static void check_trace(const uint8_t *trace, const struct keyframe_file_vmm *v)
{
	struct trace_record rec = {0};
	uint64_t n = 0;
	size_t at = 0;

	if (vm.trace.len != v->trace_len || vm.trace.count != v->trace_count ||
	    (v->trace_len && memcmp(vm.trace.buf, trace, v->trace_len) != 0) ||
	    trace_hash(&vm.trace) != XXH3_64bits(trace, v->trace_len))
		fuzz_die("keyframe_file_parse", "the trace differs from the file's");
	while (trace_next(&vm.trace, &at, &rec, NULL))
		n++;
	if (at != vm.trace.len || n != v->trace_count || rec.type != TRACE_READY ||
	    rec.step != v->ready_step)
		fuzz_die("keyframe_file_parse", "accepted a trace that does not add up");
}

/* Guest RAM: each indexed page as the last copy of it in the file, the rest zero. */
static void check_pages(const uint8_t *index, const uint8_t *pages, uint64_t count)
{
	static const uint8_t zero[MEM_PAGE_SIZE];
	int64_t last[RAM_PAGES];

	for (size_t i = 0; i < RAM_PAGES; i++)
		last[i] = -1;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t n = get_u64(index + i * sizeof(uint64_t));

		if (n >= RAM_PAGES)
			fuzz_die("keyframe_file_parse", "accepted a page outside guest RAM");
		last[n] = (int64_t)i;
	}
	for (size_t n = 0; n < RAM_PAGES; n++) {
		const uint8_t *want = last[n] < 0 ? zero : pages + (size_t)last[n] * MEM_PAGE_SIZE;

		if (memcmp(ram + n * MEM_PAGE_SIZE, want, MEM_PAGE_SIZE) != 0)
			fuzz_die("keyframe_file_parse", "guest RAM differs from the file's pages");
	}
}

#ifdef FUZZ_PLANTED_BUG
static bool ram_holds_from(uint8_t min)
{
	for (size_t i = 0; i < sizeof(ram); i++) {
		if (ram[i] >= min)
			return true;
	}
	return false;
}
#endif

/* What an accepted keyframe must have loaded (data: the file, len bytes). */
static void check_loaded(const uint8_t *data, size_t len, const struct vcpu_state *vcpu)
{
	struct keyframe_file_header h;
	struct keyframe_file_vmm v;
	size_t at = sizeof(h) + sizeof(*vcpu) + sizeof(v);
	uint64_t count;

	memcpy(&h, data, sizeof(h));
	if (h.payload_len != len - sizeof(h) || memcmp(vcpu, data + sizeof(h), sizeof(*vcpu)) != 0)
		fuzz_die("keyframe_file_parse", "the vCPU state differs from the file's");
	memcpy(&v, data + sizeof(h) + sizeof(*vcpu), sizeof(v));
	if (vm.clock.now_ns != v.clock.now_ns || vm.clock.quantum_ns != QUANTUM ||
	    v.clock.quantum_ns != QUANTUM || vm.steps != v.steps || vm.ready_step != v.ready_step ||
	    !vm.ready_step || vm.steps != vm.ready_step || vm.shared_gpa != v.shared_gpa ||
	    !vm.shared_gpa || vm.shared_gpa % MEM_PAGE_SIZE || vm.shared_gpa >= sizeof(ram) ||
	    vm.seed_gpa != v.seed_gpa || !seed_gpa_valid(&vm.km, vm.seed_gpa, vm.shared_gpa))
		fuzz_die("keyframe_file_parse",
			 "the VMM state differs from the file's or is invalid");
	if (v.trace_len > len - at)
		fuzz_die("keyframe_file_parse", "accepted a trace past the end of the file");
	check_trace(data + at, &v);
	at += v.trace_len;
	if (len - at < sizeof(count))
		fuzz_die("keyframe_file_parse", "accepted a file without its page count");
	count = get_u64(data + at);
	at += sizeof(count);
	if (count > RAM_PAGES || len - at != count * (sizeof(uint64_t) + MEM_PAGE_SIZE))
		fuzz_die("keyframe_file_parse", "accepted a page count the file does not hold");
	check_pages(data + at, data + at + count * sizeof(uint64_t), count);
	FUZZ_PLANTED(ram_holds_from(0x80), "guest RAM holds a byte of 0x80 or more");
}

/* Parses an exact-size copy of the bytes; 0 if accepted (and checked). */
static int parse(const uint8_t *data, size_t len)
{
	static struct vcpu_state vcpu;
	int rc;

	vm_reset();
	rc = keyframe_file_parse("fuzzed keyframe", data, len, &vm, &identity, &vcpu);
	if (rc == 0)
		check_loaded(data, len, &vcpu);
	else if (rc != -EINVAL)
		fuzz_die("keyframe_file_parse", "returned neither 0 nor -EINVAL");
	return rc;
}

/* The header's payload_len, payload_xxh3 and header_xxh3 made right for the bytes. */
static void fix_up(uint8_t *data, size_t len)
{
	struct keyframe_file_header h;

	memcpy(&h, data, sizeof(h));
	h.payload_len = len - sizeof(h);
	h.payload_xxh3 = XXH3_64bits(data + sizeof(h), len - sizeof(h));
	h.header_xxh3 = XXH3_64bits(&h, offsetof(struct keyframe_file_header, header_xxh3));
	memcpy(data, &h, sizeof(h));
}

static void check(const uint8_t *bytes, size_t len, const char *path)
{
	/* an exact-size copy, so ASan catches a read past the end */
	uint8_t *data = fuzz_copy(bytes, len);
	int rc = parse(data, len);

	if (path) { /* describe reads the file itself: the bytes as they are */
		FILE *out = fopen("/dev/null", "w");

		if (!out)
			fuzz_die("/dev/null", strerror(errno));
		if (keyframe_file_describe(path, out) != 0 && rc == 0)
			fuzz_die("keyframe_file_describe", "refused a keyframe the loader accepts");
		fclose(out);
	}
	if (fix_checksums && len >= sizeof(struct keyframe_file_header)) {
		fix_up(data, len);
		parse(data, len);
	}
	free(data);
}

/* A keyframe as keyframe_file_write writes it: the shared page 1, pages as given. */
static int write_keyframe(const char *dir, const char *name, const uint8_t *pages_set,
			  size_t npages, size_t trace_records)
{
	static struct keyframe kf;
	static uint8_t copy[sizeof(ram)];
	static struct vm writer;
	struct trace_record rec = {.type = 1, .pid = 1, .tid = 1};
	char path[4096], text[64];
	uint64_t step = 0;

	if (!writer.trace.hash && trace_init(&writer.trace) < 0)
		return -1;
	trace_restore(&writer.trace, NULL, 0, 0);
	for (size_t i = 0; i < trace_records; i++) {
		step += 3;
		rec.step = step;
		rec.len = (uint32_t)snprintf(text, sizeof(text), "line %zu\n", i);
		rec.args[0] = i;
		trace_append(&writer.trace, &rec, text);
	}
	step++;
	rec = (struct trace_record){.step = step, .type = TRACE_READY};
	trace_append(&writer.trace, &rec, NULL);

	memset(&kf, 0, sizeof(kf));
	for (size_t i = 0; i < sizeof(kf.vcpu); i++) /* a pattern; nothing reads it */
		((uint8_t *)&kf.vcpu)[i] = (uint8_t)(i * 13);
	memset(copy, 0, sizeof(copy));
	for (size_t i = 0; i < npages; i++) { /* bytes 0..0x7f only */
		for (size_t j = 0; j < MEM_PAGE_SIZE; j++)
			copy[pages_set[i] * MEM_PAGE_SIZE + j] = (uint8_t)((j * 7 + i) & 0x7f);
	}
	kf.mem = (struct mem_snapshot){.copy = copy, .size = sizeof(copy)};
	kf.vmm = (struct keyframe_vmm){
		.clock = {.now_ns = step * QUANTUM, .quantum_ns = QUANTUM},
		.steps = step,
		.shared_gpa = MEM_PAGE_SIZE,
		.ready_step = step,
		.seed_gpa = 2 * MEM_PAGE_SIZE + 0x48,
		.trace = {.len = writer.trace.len, .count = writer.trace.count}};
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return keyframe_file_write(path, &kf, &writer, &identity) < 0 ? -1 : 0;
}

static int write_seeds(const char *dir)
{
	/* every seed has a page, so that the planted bug is a mutation away in each */
	static const uint8_t one[] = {1}, two[] = {1, 5}, three[] = {0, 1, RAM_PAGES - 1};
	int rc = write_keyframe(dir, "one-page", one, 1, 0);

	rc |= write_keyframe(dir, "two-pages", two, 2, 1);
	rc |= write_keyframe(dir, "three-pages", three, 3, 4);
	return rc ? -1 : 0;
}

int main(int argc, char **argv)
{
	return fuzz_main(argc, argv, check, write_seeds, "--fix-checksums", &fix_checksums);
}

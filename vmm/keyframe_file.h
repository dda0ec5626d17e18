/* SPDX-License-Identifier: MIT */
/*
 * Keyframe files: a keyframe on disk, so a new process restores the booted
 * guest without booting. Versioned and checksummed; each file names the
 * inputs it belongs to (kernel, initramfs, CPU model, memory, clock) and is
 * refused, naming the difference, when loaded for other inputs. Written
 * atomically. Guest RAM is stored as its non-zero pages only.
 *
 * Layout (little-endian): struct keyframe_file_header, then the payload:
 * struct vcpu_state, struct keyframe_file_vmm, the trace bytes up to the
 * keyframe, the page count N, N page numbers (u64), N pages of 4096 bytes.
 */
#ifndef REWIND_KEYFRAME_FILE_H
#define REWIND_KEYFRAME_FILE_H

#include "vmm/keyframe.h"

#define KEYFRAME_MAGIC	  "RWKEYFR1"
#define KEYFRAME_VERSION  2	       /* 2: the seed buffer (seed_gpa) */
#define KEYFRAME_FILE_MAX (4ull << 30) /* the guest's RAM (3 GiB at most) and its trace */

/* What a keyframe belongs to: a restore with other inputs would be another run. */
struct keyframe_identity {
	uint64_t kernel_xxh3;
	uint64_t initrd_xxh3;
	uint64_t mem_bytes;
	uint64_t epoch_ns;
	uint64_t quantum_ns;
	char cpu_model[32];
};

struct keyframe_file_header {
	char magic[8];
	uint32_t version;
	uint32_t vcpu_state_size; /* sizeof(struct vcpu_state) of the writer */
	struct keyframe_identity id;
	uint64_t step;	      /* the step the keyframe was taken at */
	uint64_t virtual_ns;  /* virtual time then */
	uint64_t page_count;  /* non-zero pages stored */
	uint64_t payload_len; /* bytes after the header */
	uint64_t payload_xxh3;
	uint64_t header_xxh3; /* of everything above */
};

struct keyframe_file_vmm {
	struct vclock clock;
	uint64_t steps;
	uint64_t shared_gpa;
	uint64_t ready_step;
	uint64_t seed_gpa;
	uint64_t trace_len;
	uint64_t trace_count;
};

/* Writes vm's keyframe kf (taken with keyframe_capture) to path. */
int keyframe_file_write(const char *path, const struct keyframe *kf, const struct vm *vm,
			const struct keyframe_identity *id);

/*
 * Loads path into vm (created, with nothing run yet) for the inputs id:
 * guest RAM, vCPU and VMM state. Refuses a corrupt, truncated, foreign or
 * mismatched file with a message naming what is wrong (-EINVAL).
 */
int keyframe_file_load(const char *path, struct vm *vm, const struct keyframe_identity *id);

/*
 * keyframe_file_load's checks and parsing of a file's len bytes at data (as
 * malloc returns them: the header is read in place), up to but not including
 * the vCPU: fills vcpu, and vm's guest RAM and VMM state (of vm it needs only
 * km.ram, km.ram_size, clock.quantum_ns and an initialised trace). What
 * keyframe_file_load adds is reading the file and vcpu_state_load. 0 or
 * -EINVAL (reported, path naming the file); tests/fuzz/fuzz_keyframe.c fuzzes
 * it without KVM.
 */
int keyframe_file_parse(const char *path, const uint8_t *data, size_t len, struct vm *vm,
			const struct keyframe_identity *id, struct vcpu_state *vcpu);

/* Prints a keyframe file's header (for `rewind keyframe FILE`); 0 if the file is sound. */
int keyframe_file_describe(const char *path, FILE *to);

#endif

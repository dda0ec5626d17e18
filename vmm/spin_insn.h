/* SPDX-License-Identifier: MIT */
/* The instructions a pure spin may run, decoded (vmm/spin_insn.c). */
#ifndef REWIND_SPIN_INSN_H
#define REWIND_SPIN_INSN_H

#include <linux/kvm.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An instruction a pure spin may run, decoded (64-bit user mode). */
struct spin_insn {
	uint8_t len;	   /* bytes */
	bool mem;	   /* it reads memory: ModRM's operand */
	bool rip_relative; /* the operand is disp from the next instruction */
	bool op16, addr32; /* 0x66, 0x67 prefixes */
	uint8_t rex, modrm, sib;
	uint8_t segment; /* 0x64 (FS), 0x65 (GS), or 0 */
	int32_t disp;
};

/*
 * Whether the instruction at code (len bytes readable) writes no memory and
 * no FPU/SSE state: register loads, compares, tests, jumps, PAUSE, NOP,
 * LEA, and arithmetic into registers; no LOCK, no DIV (it may fault).
 * Decodes it into insn if so.
 */
bool spin_insn_decode(const uint8_t *code, size_t len, struct spin_insn *insn);

/* The linear address insn reads, with registers r (RIP at insn) and segment bases sregs. */
uint64_t spin_insn_address(const struct spin_insn *insn, const struct kvm_regs *r,
			   const struct kvm_sregs *sregs);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The instructions a pure spin may run (vmm/spin_rescue.c): a decoder for
 * the few x86-64 user instructions that write no memory and no FPU/SSE
 * state, with their length and the address they read.
 */
#include "vmm/spin_insn.h"

#include <string.h>

/* ModRM's fields. */
#define MODRM_MOD(m) ((m) >> 6)
#define MODRM_REG(m) (((m) >> 3) & 7)

/* Group 1 (0x80, 0x81, 0x83), 2 (shifts), 3 (0xf6, 0xf7), 4/5 (0xfe, 0xff): by ModRM.reg. */
static bool group_is_pure(uint8_t op, uint8_t modrm)
{
	bool to_reg = MODRM_MOD(modrm) == 3;
	unsigned reg = MODRM_REG(modrm);

	switch (op) {
	case 0x80:
	case 0x81:
	case 0x83:
		return reg == 7 || to_reg; /* CMP writes nothing */
	case 0xc0:
	case 0xc1:
	case 0xd0:
	case 0xd1:
	case 0xd2:
	case 0xd3:
		return to_reg;
	case 0xf6:
	case 0xf7:
		/* TEST; NOT, NEG into a register; MUL, IMUL write RAX, RDX (DIV may fault) */
		return reg <= 1 || reg == 4 || reg == 5 || ((reg == 2 || reg == 3) && to_reg);
	case 0xfe:
		return reg <= 1 && to_reg; /* INC, DEC */
	case 0xff:
		return (reg <= 1 && to_reg) || reg == 4; /* INC, DEC; JMP r/m (CALL, PUSH: no) */
	default:
		return false;
	}
}

/* Two-byte opcodes (0x0f op). */
static bool twobyte_is_pure(uint8_t op, const uint8_t *modrm)
{
	if (op == 0x1f || (op >= 0x80 && op <= 0x8f) || (op >= 0x40 && op <= 0x4f))
		return true; /* NOP r/m, Jcc rel32, CMOVcc */
	switch (op) {
	case 0xb6:
	case 0xb7:
	case 0xbe:
	case 0xbf: /* MOVZX, MOVSX */
	case 0xa3:
	case 0xaf:
	case 0xb8:
	case 0xbc:
	case 0xbd: /* BT, IMUL, POPCNT, BSF, BSR */
		return true;
	case 0xba: /* BT r/m, imm: only /4 writes nothing */
		return modrm && MODRM_REG(*modrm) == 4;
	default:
		break;
	}
	if (op >= 0x90 && op <= 0x9f) /* SETcc into a register */
		return modrm && MODRM_MOD(*modrm) == 3;
	return false;
}

/* One-byte ALU forms, 0x00..0x3f: r/m op= reg, reg op= r/m, AL/eAX op= imm. */
static bool alu_is_pure(uint8_t op, const uint8_t *modrm)
{
	unsigned form = op & 7;

	if (form == 4 || form == 5 || form == 2 || form == 3)
		return true; /* into AL/eAX or into a register */
	if (form > 5)
		return false; /* segment pushes and pops, prefixes, BCD */
	/* into r/m: CMP (0x38, 0x39) writes nothing, the rest only a register */
	return (op & 0xf8) == 0x38 || (modrm && MODRM_MOD(*modrm) == 3);
}

/* Immediate bytes of a whitelisted opcode (op16: a 0x66 prefix, rex_w: REX.W). */
static unsigned imm_bytes(bool twobyte, uint8_t op, uint8_t reg, bool op16, bool rex_w)
{
	unsigned full = op16 ? 2 : 4; /* imm16 / imm32 */

	if (twobyte)
		return op == 0xba ? 1 : (op >= 0x80 && op <= 0x8f) ? 4 : 0;
	if (op < 0x40)
		return (op & 7) == 4 ? 1 : (op & 7) == 5 ? full : 0;
	if ((op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3) || op == 0xeb || op == 0x6b ||
	    op == 0x80 || op == 0x83 || op == 0xa8 || op == 0xc0 || op == 0xc1 ||
	    (op >= 0xb0 && op <= 0xb7) || (op == 0xf6 && reg <= 1))
		return 1;
	if (op >= 0xb8 && op <= 0xbf)
		return rex_w ? 8 : full;
	if (op == 0xe9)
		return 4;
	if (op == 0x69 || op == 0x81 || op == 0xa9 || (op == 0xf7 && reg <= 1))
		return full;
	return 0;
}

/* Whether a whitelisted opcode has a ModRM byte. */
static bool has_modrm(bool twobyte, uint8_t op)
{
	if (twobyte)
		return !(op >= 0x80 && op <= 0x8f);
	if (op < 0x40)
		return (op & 7) <= 3;
	return op == 0x63 || op == 0x69 || op == 0x6b || (op >= 0x80 && op <= 0x8d) || op == 0xc0 ||
	       op == 0xc1 || (op >= 0xd0 && op <= 0xd3) || op == 0xf6 || op == 0xf7 || op == 0xfe ||
	       op == 0xff;
}

/* Whether a one-byte opcode writes no memory and no FPU/SSE state. */
static bool onebyte_is_pure(uint8_t op, const uint8_t *modrm)
{
	if (op < 0x40)
		return alu_is_pure(op, modrm);
	if ((op >= 0x70 && op <= 0x7f) || (op >= 0x90 && op <= 0x99) || (op >= 0xb0 && op <= 0xbf))
		return true; /* Jcc; NOP, PAUSE, XCHG eAX, CBW..CQO; MOV reg, imm */
	switch (op) {
	case 0x63:
	case 0x69:
	case 0x6b:
	case 0x84:
	case 0x85:
	case 0x8a:
	case 0x8b:
	case 0x8d:
	case 0xa8:
	case 0xa9:
	case 0xe0:
	case 0xe1:
	case 0xe2:
	case 0xe3:
	case 0xe9:
	case 0xeb:
	case 0xf5:
	case 0xf8:
	case 0xf9:
	case 0xfc:
	case 0xfd:
		return true; /* MOVSXD, IMUL, TEST, MOV reg, LEA, TEST imm, LOOP, JMP, flags */
	case 0x86:
	case 0x87:
	case 0x88:
	case 0x89:
		return modrm && MODRM_MOD(*modrm) == 3; /* XCHG, MOV between registers */
	default:
		return modrm && group_is_pure(op, *modrm);
	}
}

/* ModRM's memory operand: SIB and displacement; false if the bytes run out. */
static bool decode_memory(const uint8_t *code, size_t len, size_t *at, struct spin_insn *insn)
{
	unsigned mod = MODRM_MOD(insn->modrm), rm = insn->modrm & 7;
	unsigned disp = mod == 1 ? 1 : mod == 2 ? 4 : 0;

	insn->mem = mod != 3;
	if (!insn->mem)
		return true;
	if (rm == 4) {
		if (*at >= len)
			return false;
		insn->sib = code[(*at)++];
		if (mod == 0 && (insn->sib & 7) == 5)
			disp = 4; /* no base */
	} else if (mod == 0 && rm == 5) {
		insn->rip_relative = true;
		disp = 4;
	}
	if (*at + disp > len)
		return false;
	if (disp == 1)
		insn->disp = code[*at] < 0x80 ? code[*at] : (int32_t)code[*at] - 256; /* disp8 */
	else if (disp == 4)
		insn->disp =
			(int32_t)((uint32_t)code[*at] | (uint32_t)code[*at + 1] << 8 |
				  (uint32_t)code[*at + 2] << 16 | (uint32_t)code[*at + 3] << 24);
	*at += disp;
	return true;
}

/* Legacy and REX prefixes into insn; false at LOCK (a write) or where the bytes run out. */
static bool decode_prefixes(const uint8_t *code, size_t len, size_t *at, struct spin_insn *insn)
{
	for (; *at < len; (*at)++) {
		uint8_t b = code[*at];

		if (b == 0xf0)
			return false;
		if (b >= 0x40 && b <= 0x4f) {
			insn->rex = b;
			continue;
		}
		if (b != 0x26 && b != 0x2e && b != 0x36 && b != 0x3e && b != 0x64 && b != 0x65 &&
		    b != 0x66 && b != 0x67 && b != 0xf2 && b != 0xf3)
			return true;
		insn->rex = 0; /* REX counts only right before the opcode */
		if (b == 0x66)
			insn->op16 = true;
		else if (b == 0x67)
			insn->addr32 = true;
		else if (b == 0x64 || b == 0x65)
			insn->segment = b;
	}
	return false;
}

bool spin_insn_decode(const uint8_t *code, size_t len, struct spin_insn *insn)
{
	size_t at = 0;
	bool twobyte;
	uint8_t op;

	memset(insn, 0, sizeof(*insn));
	if (!decode_prefixes(code, len, &at, insn))
		return false;
	twobyte = code[at] == 0x0f;
	at += twobyte;
	if (at >= len)
		return false;
	op = code[at++];
	if (has_modrm(twobyte, op)) {
		if (at >= len)
			return false;
		insn->modrm = code[at++];
	}
	if (twobyte ? !twobyte_is_pure(op, has_modrm(true, op) ? &insn->modrm : NULL)
		    : !onebyte_is_pure(op, has_modrm(false, op) ? &insn->modrm : NULL))
		return false;
	if (has_modrm(twobyte, op) && !decode_memory(code, len, &at, insn))
		return false;
	/* LEA and NOP r/m name memory without touching it */
	if ((!twobyte && op == 0x8d) || (twobyte && op == 0x1f))
		insn->mem = false;
	at += imm_bytes(twobyte, op, MODRM_REG(insn->modrm), insn->op16, insn->rex & 8);
	if (at > len)
		return false;
	insn->len = (uint8_t)at;
	return true;
}

/* General register n as ModRM numbers it (RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8..R15). */
static uint64_t gpr(const struct kvm_regs *r, unsigned n)
{
	const __u64 *regs[16] = {&r->rax, &r->rcx, &r->rdx, &r->rbx, &r->rsp, &r->rbp,
				 &r->rsi, &r->rdi, &r->r8,  &r->r9,  &r->r10, &r->r11,
				 &r->r12, &r->r13, &r->r14, &r->r15};

	return *regs[n & 15];
}

uint64_t spin_insn_address(const struct spin_insn *insn, const struct kvm_regs *r,
			   const struct kvm_sregs *sregs)
{
	unsigned rex_b = insn->rex & 1 ? 8 : 0, rex_x = insn->rex & 2 ? 8 : 0;
	uint64_t ea = (uint64_t)(int64_t)insn->disp;

	if (insn->rip_relative) {
		ea += r->rip + insn->len;
	} else if ((insn->modrm & 7) == 4) {
		unsigned index = ((insn->sib >> 3) & 7) | rex_x;

		if (!(MODRM_MOD(insn->modrm) == 0 && (insn->sib & 7) == 5))
			ea += gpr(r, (insn->sib & 7) | rex_b);
		if (index != 4)
			ea += gpr(r, index) << (insn->sib >> 6);
	} else {
		ea += gpr(r, (insn->modrm & 7) | rex_b);
	}
	if (insn->addr32)
		ea &= 0xffffffffull;
	if (insn->segment == 0x64)
		ea += sregs->fs.base;
	else if (insn->segment == 0x65)
		ea += sregs->gs.base;
	return ea;
}

/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the spin rescue's decoder (vmm/spin_insn.c): which x86-64
 * user instructions a pure spin may run (nothing that writes memory, no
 * LOCK, no call, no vector state, no DIV), their length, and the address
 * each reads, as the loops compilers emit for a busy-wait have them.
 */
#include "vmm/spin_insn.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

/* Decodes code (n bytes, padded with NOPs as the next instruction would be). */
static bool decode(const uint8_t *code, size_t n, struct spin_insn *insn)
{
	uint8_t buf[15];

	memset(buf, 0x90, sizeof(buf));
	memcpy(buf, code, n);
	return spin_insn_decode(buf, sizeof(buf), insn);
}

#define PURE(bytes, ...)                                                                           \
	do {                                                                                       \
		const uint8_t code_[] = {__VA_ARGS__};                                             \
		struct spin_insn insn_;                                                            \
		assert_true(decode(code_, sizeof(code_), &insn_));                                 \
		assert_int_equal(insn_.len, (bytes));                                              \
	} while (0)
#define NOT_PURE(...)                                                                              \
	do {                                                                                       \
		const uint8_t code_[] = {__VA_ARGS__};                                             \
		struct spin_insn insn_;                                                            \
		assert_false(decode(code_, sizeof(code_), &insn_));                                \
	} while (0)

/* GLib's `while (g_atomic_int_get (&n) == 0);` and its kind, as gcc -O2 emits them. */
static void test_a_busy_wait_is_pure(void **state)
{
	(void)state;
	PURE(4, 0x8b, 0x44, 0x24, 0x04);		      /* mov eax, [rsp+4] */
	PURE(2, 0x39, 0xd8);				      /* cmp eax, ebx */
	PURE(2, 0x7c, 0xf8);				      /* jl */
	PURE(2, 0xf3, 0x90);				      /* pause */
	PURE(2, 0x85, 0xc0);				      /* test eax, eax */
	PURE(6, 0x0f, 0x84, 0x00, 0x01, 0x00, 0x00);	      /* je rel32 */
	PURE(5, 0x83, 0x7c, 0x24, 0x08, 0x01);		      /* cmp dword [rsp+8], 1 */
	PURE(5, 0x0f, 0x1f, 0x44, 0x00, 0x00);		      /* nopl */
	PURE(10, 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8);	      /* movabs rax, imm64 */
	PURE(9, 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0); /* mov rax, fs:0x28 */
	PURE(4, 0x0f, 0xb6, 0x47, 0x01);		      /* movzx eax, byte [rdi+1] */
	PURE(3, 0x48, 0x63, 0xd0);			      /* movsxd rdx, eax */
	PURE(4, 0x48, 0x8d, 0x47, 0x08);		      /* lea rax, [rdi+8] */
	PURE(3, 0x48, 0x01, 0xc8);			      /* add rax, rcx */
	PURE(2, 0xeb, 0xfe);				      /* jmp $ */
}

static void test_a_write_or_a_trap_is_not_pure(void **state)
{
	(void)state;
	NOT_PURE(0x89, 0x44, 0x24, 0x04);	      /* mov [rsp+4], eax */
	NOT_PURE(0x83, 0x44, 0x24, 0x08, 0x01);	      /* add dword [rsp+8], 1 */
	NOT_PURE(0x48, 0x83, 0x05, 0, 0, 0, 0, 0x01); /* add qword [rip], 1 */
	NOT_PURE(0xe8, 0, 0, 0, 0);		      /* call */
	NOT_PURE(0xc3);				      /* ret */
	NOT_PURE(0x50);				      /* push rax */
	NOT_PURE(0xf0, 0x0f, 0xc1, 0x07);	      /* lock xadd [rdi], eax */
	NOT_PURE(0x87, 0x07);			      /* xchg [rdi], eax (a locked write) */
	NOT_PURE(0x0f, 0x05);			      /* syscall */
	NOT_PURE(0xf7, 0xf1);			      /* div ecx (may fault) */
	NOT_PURE(0xc5, 0xf8, 0x77);		      /* vzeroupper */
	NOT_PURE(0x66, 0x0f, 0x6f, 0x07);	      /* movdqa xmm0, [rdi] */
	NOT_PURE(0xf3, 0xa5);			      /* rep movsd */
	NOT_PURE(0x0f, 0x94, 0x07);		      /* sete [rdi] */
	NOT_PURE(0xff, 0x14, 0x25, 0, 0, 0, 0);	      /* call [abs] */
}

static void test_the_address_read_is_the_operands(void **state)
{
	const uint8_t rip_rel[] = {0x8b, 0x05, 0x10, 0x00, 0x00, 0x00}; /* mov eax, [rip+0x10] */
	const uint8_t sib[] = {0x42, 0x8b, 0x04, 0x88};			/* mov eax, [rax+r9*4] */
	const uint8_t fs[] = {0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0};
	const uint8_t disp8[] = {0x8b, 0x44, 0x24, 0xfc}; /* mov eax, [rsp-4] */
	struct kvm_regs r = {.rip = 0x401000, .rax = 0x1000, .r9 = 3, .rsp = 0x7ffff000};
	struct kvm_sregs sregs = {.fs = {.base = 0x7f0000000000ull}};
	struct spin_insn insn;

	(void)state;
	assert_true(decode(rip_rel, sizeof(rip_rel), &insn));
	assert_true(insn.mem && insn.rip_relative);
	assert_int_equal(spin_insn_address(&insn, &r, &sregs), 0x401000 + 6 + 0x10);
	assert_true(decode(sib, sizeof(sib), &insn));
	assert_int_equal(spin_insn_address(&insn, &r, &sregs), 0x1000 + 3 * 4);
	assert_true(decode(fs, sizeof(fs), &insn));
	assert_int_equal(spin_insn_address(&insn, &r, &sregs), 0x7f0000000028ull);
	assert_true(decode(disp8, sizeof(disp8), &insn));
	assert_int_equal(spin_insn_address(&insn, &r, &sregs), 0x7ffff000 - 4);
	assert_true(decode((const uint8_t[]){0x48, 0x8d, 0x47, 0x08}, 4, &insn));
	assert_false(insn.mem); /* LEA reads nothing */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_busy_wait_is_pure),
		cmocka_unit_test(test_a_write_or_a_trap_is_not_pure),
		cmocka_unit_test(test_the_address_read_is_the_operands),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

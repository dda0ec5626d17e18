/* SPDX-License-Identifier: MIT */
/*
 * KVM smoke test: a real VM with one vCPU runs a few real-mode instructions
 * that do port I/O and halt; every exit is checked. Runs natively or inside
 * the KVM box (tests/box/run).
 */
#include "vmm/kvm.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>

#include <cmocka.h>

#define CODE_GPA  0x1000
#define TEST_PORT 0x10

/* Real-mode program; the comments give the exit each instruction causes. */
static const uint8_t program[] = {
	0xba, TEST_PORT, 0x00,			 /* mov dx, TEST_PORT */
	0xb0, 'A',				 /* mov al, 'A' */
	0xee,					 /* out dx, al      -> exit 1 */
	0xb0, 'B',				 /* mov al, 'B' */
	0xee,					 /* out dx, al      -> exit 2 */
	0xec,					 /* in al, dx       -> exit 3 */
	0xfe, 0xc0,				 /* inc al */
	0xee,					 /* out dx, al      -> exit 4 */
	0x66, 0xb8,	 0x44, 0x33, 0x22, 0x11, /* mov eax, 0x11223344 */
	0x66, 0xef,				 /* out dx, eax     -> exit 5 */
	0xf4,					 /* hlt             -> exit 6 */
};

static int setup_machine(void **state)
{
	static struct kvm_machine m;
	struct kvm_sregs sregs;
	struct kvm_regs regs = {.rip = CODE_GPA, .rflags = 0x2};

	if (kvm_machine_open(&m) < 0 || kvm_machine_add_ram(&m, 0x10000) < 0 ||
	    kvm_machine_create_vcpu(&m) < 0)
		return -1;
	memcpy(m.ram + CODE_GPA, program, sizeof(program));
	if (ioctl(m.vcpu_fd, KVM_GET_SREGS, &sregs) < 0)
		return -1;
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(m.vcpu_fd, KVM_SET_SREGS, &sregs) < 0 ||
	    ioctl(m.vcpu_fd, KVM_SET_REGS, &regs) < 0)
		return -1;
	*state = &m;
	return 0;
}

static int teardown_machine(void **state)
{
	kvm_machine_close(*state);
	return 0;
}

/* Runs to the next exit and checks it is port I/O of the expected shape. */
static uint8_t *expect_io(struct kvm_machine *m, uint8_t direction, uint8_t size)
{
	assert_int_equal(kvm_machine_run(m), KVM_EXIT_IO);
	assert_int_equal(m->run->io.direction, direction);
	assert_int_equal(m->run->io.port, TEST_PORT);
	assert_int_equal(m->run->io.size, size);
	assert_int_equal(m->run->io.count, 1);
	return (uint8_t *)m->run + m->run->io.data_offset;
}

static void test_port_io_and_hlt_exits(void **state)
{
	struct kvm_machine *m = *state;
	struct kvm_regs regs;
	uint32_t wide;

	assert_int_equal(*expect_io(m, KVM_EXIT_IO_OUT, 1), 'A');
	assert_int_equal(*expect_io(m, KVM_EXIT_IO_OUT, 1), 'B');
	*expect_io(m, KVM_EXIT_IO_IN, 1) = 0x60; /* the VMM answers the IN */
	assert_int_equal(*expect_io(m, KVM_EXIT_IO_OUT, 1), 0x61);
	memcpy(&wide, expect_io(m, KVM_EXIT_IO_OUT, 4), sizeof(wide));
	assert_int_equal(wide, 0x11223344);
	assert_int_equal(kvm_machine_run(m), KVM_EXIT_HLT);

	assert_int_equal(ioctl(m->vcpu_fd, KVM_GET_REGS, &regs), 0);
	assert_int_equal(regs.rip, CODE_GPA + sizeof(program));
}

/* Keyframes rely on immediate_exit to complete a pending port instruction. */
static void test_immediate_exit_returns_eintr(void **state)
{
	struct kvm_machine *m = *state;

	m->run->immediate_exit = 1;
	assert_int_equal(kvm_machine_run(m), -EINTR);
	m->run->immediate_exit = 0;
}

static void test_required_capabilities(void **state)
{
	struct kvm_machine *m = *state;
	static const long caps[] = {
		KVM_CAP_USER_MEMORY,
		KVM_CAP_IMMEDIATE_EXIT,
		KVM_CAP_SET_GUEST_DEBUG,
		KVM_CAP_EXT_CPUID,
		KVM_CAP_XSAVE,
		KVM_CAP_XCRS,
		KVM_CAP_VCPU_EVENTS,
		KVM_CAP_SPLIT_IRQCHIP,
		KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2,
		KVM_CAP_X86_USER_SPACE_MSR,
	};

	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		if (!kvm_machine_has_cap(m, caps[i]))
			fail_msg("KVM capability %ld is missing", caps[i]);
	}
}

static void test_ram_size_must_be_page_multiple(void **state)
{
	struct kvm_machine m;

	(void)state;
	assert_int_equal(kvm_machine_open(&m), 0);
	assert_int_equal(kvm_machine_add_ram(&m, 100), -EINVAL);
	assert_int_equal(kvm_machine_add_ram(&m, 0), -EINVAL);
	kvm_machine_close(&m);
	assert_int_equal(m.vm_fd, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_port_io_and_hlt_exits, setup_machine,
						teardown_machine),
		cmocka_unit_test_setup_teardown(test_immediate_exit_returns_eintr, setup_machine,
						teardown_machine),
		cmocka_unit_test_setup_teardown(test_required_capabilities, setup_machine,
						teardown_machine),
		cmocka_unit_test(test_ram_size_must_be_page_multiple),
	};

	return cmocka_run_group_tests_name("kvm_smoke", tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * Where the running user task is, read at an exit without changing
 * anything: its user-mode RIP and RSP and the top of its user stack. An
 * exit in user mode (a counter read, say) has them in the vCPU registers;
 * an exit in the kernel on behalf of a task (a system call writing an
 * event) has them in the task's entry frame (struct pt_regs) at the top of
 * its kernel stack. For explaining a failure (where did an injection land);
 * never on the fuzzing path.
 */
#ifndef REWIND_USER_CONTEXT_H
#define REWIND_USER_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#define USER_CONTEXT_STACK_WORDS 512 /* 4 KiB of the user stack, enough for a few frames */

struct user_context {
	bool valid;	/* a user task's context was found */
	bool in_kernel; /* the exit came from the kernel, on the task's behalf */
	uint64_t rip, rsp;
	uint64_t stack[USER_CONTEXT_STACK_WORDS]; /* words from rsp up */
	uint32_t stack_words;
};

struct vm;

/* Fills uc (uc->valid false if no user task context is found). Reads only. */
void user_context_read(struct vm *vm, struct user_context *uc);

/* Copies len bytes at guest-virtual gva (the current address space). False if unmapped. */
bool guest_virt_copy(struct vm *vm, uint64_t gva, void *out, uint64_t len);

/* Copies len bytes to guest-virtual gva; false (part may be written) if unmapped or read-only. */
bool guest_virt_write(struct vm *vm, uint64_t gva, const void *from, uint64_t len);

#endif

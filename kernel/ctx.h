/*
 * Saved execution contexts (kernel/ctx.asm): ctx_save/ctx_resume are a
 * setjmp/longjmp pair for the test runner, and call_on_stack runs a
 * function on a stack of its own.
 */
#ifndef KERNEL_CTX_H
#define KERNEL_CTX_H

#include <stdint.h>

struct ctx {
	uint64_t rbx, rbp, r12, r13, r14, r15, rsp, rip;
};

/* Returns 0 when saving, and val (non-zero) when resumed. */
int ctx_save(struct ctx *c) __attribute__((returns_twice));
__attribute__((noreturn)) void ctx_resume(const struct ctx *c, int val);
void call_on_stack(void (*fn)(void *), void *arg, void *stack_top);

#endif

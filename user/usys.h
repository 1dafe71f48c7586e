/*
 * The user side of the system-call interface (kernel/user.h). User code
 * is built position independent and linked into the .user section; it
 * may call nothing outside it (the build checks for undefined symbols).
 */
#ifndef USER_USYS_H
#define USER_USYS_H

#include <stdint.h>

#include "user/abi.h"


static inline int64_t usys(uint64_t nr, uint64_t a0)
{
	int64_t ret;

	asm volatile("syscall"
		     : "=a"(ret)
		     : "a"(nr), "D"(a0)
		     : "rcx", "r11", "memory");
	return ret;
}

static inline __attribute__((noreturn)) void usys_exit(int64_t code)
{
	usys(SYS_EXIT, (uint64_t)code);
	for (;;)
		;
}

/* Entry points the kernel starts threads in (user/programs.c). */
typedef int64_t (*user_fn)(uint64_t arg);

int64_t uprog_exit(uint64_t code);
int64_t uprog_syscalls(uint64_t n);
int64_t uprog_regs(uint64_t seed);
int64_t uprog_fault_kernel_read(uint64_t addr);
int64_t uprog_fault_ud(uint64_t arg);
int64_t uprog_fault_gp(uint64_t arg);
int64_t uprog_fault_write_text(uint64_t arg);
int64_t uprog_spin(uint64_t loops);
int64_t uprog_yield_loop(uint64_t n);
int64_t uprog_mixed(uint64_t rounds);

#endif

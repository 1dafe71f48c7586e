/*
 * User programs the tests run in threads. Each returns a value the test
 * checks (the thread's exit code), computed so that a wrong result is
 * visible: a lost register, a syscall that returned the wrong value.
 */
#include "user/usys.h"

int64_t uprog_exit(uint64_t code)
{
	return (int64_t)code;
}

/* n getid calls; returns the id if every call returned the same one,
 * -1 otherwise; an unknown call must fail with -38 (ENOSYS). */
int64_t uprog_syscalls(uint64_t n)
{
	int64_t id = usys(SYS_GETTID, 0);

	for (uint64_t i = 0; i < n; i++)
		if (usys(SYS_GETTID, 0) != id)
			return -1;
	if (usys(999, 0) != SYS_ENOSYS)
		return -2;
	return id;
}

/* Callee-saved registers survive system calls and interrupts: keep
 * values in many registers across yields and check them afterwards. */
int64_t uprog_regs(uint64_t seed)
{
	uint64_t a = seed, b = seed * 3, c = seed * 5, d = seed * 7,
		 e = seed * 11, f = seed * 13;

	for (int i = 0; i < 50; i++) {
		asm volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e),
			     "+r"(f));
		usys(SYS_YIELD, 0);
		a += 1;
		b += 3;
		c += 5;
		d += 7;
		e += 11;
		f += 13;
	}
	return (int64_t)((a - seed - 50) | (b - seed * 3 - 150) |
			 (c - seed * 5 - 250) | (d - seed * 7 - 350) |
			 (e - seed * 11 - 550) | (f - seed * 13 - 650));
}

int64_t uprog_fault_kernel_read(uint64_t addr)
{
	return *(volatile int64_t *)addr; /* supervisor page: #PF */
}

int64_t uprog_fault_ud(uint64_t arg)
{
	(void)arg;
	asm volatile("ud2");
	return 0;
}

int64_t uprog_fault_gp(uint64_t arg)
{
	(void)arg;
	asm volatile("cli"); /* IOPL 0: privileged in ring 3 */
	return 0;
}

int64_t uprog_fault_write_text(uint64_t arg)
{
	/* The code pages are mapped read-only: a protection #PF. */
	*(volatile uint8_t *)(uintptr_t)&uprog_exit = (uint8_t)arg;
	return 0;
}

/* Pure user branches, no system call: only the timer can preempt it. */
int64_t uprog_spin(uint64_t loops)
{
	uint64_t x = loops | 1;

	for (uint64_t i = 0; i < loops; i++) {
		if (x & 1)
			x = x * 3 + 1;
		else
			x >>= 1;
		asm volatile("" : "+r"(x));
	}
	return (int64_t)(x & 0xffff);
}

int64_t uprog_yield_loop(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		usys(SYS_YIELD, 0);
	return (int64_t)n;
}

/* A branchy mix: user loops, kernel work, yields. */
int64_t uprog_mixed(uint64_t rounds)
{
	int64_t sum = 0;

	for (uint64_t r = 0; r < rounds; r++) {
		sum += uprog_spin(200 + (r & 63));
		usys(SYS_WORK, 100);
		if (r % 4 == 3)
			usys(SYS_YIELD, 0);
	}
	return sum >= 0 ? (int64_t)rounds : -1;
}

/*
 * A branchy workload built with -fsanitize-coverage=trace-pc (see the
 * Makefile): the compiler calls __sanitizer_cov_trace_pc at every basic
 * block, and the BTS model turns consecutive blocks into (from, to)
 * records. Every record is then a real address in build/btslab.elf, inside
 * one of these functions, in the order they run.
 */
#include "tests/kernel/workload_branches.h"

__attribute__((noinline)) unsigned wl_alpha(unsigned x)
{
	return x & 1 ? x * 3 + 1 : x / 2;
}

__attribute__((noinline)) unsigned wl_beta(unsigned x)
{
	return x > 100 ? x - 7 : x + 11;
}

__attribute__((noinline)) unsigned wl_gamma(unsigned x)
{
	return x % 3 ? x ^ 0x55 : x;
}

unsigned wl_run(unsigned rounds)
{
	unsigned x = 27;

	for (unsigned i = 0; i < rounds; i++) {
		x = wl_alpha(x);
		x = wl_beta(x);
		x = wl_gamma(x);
	}
	return x;
}

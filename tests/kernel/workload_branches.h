/* The trace-pc workload (tests/kernel/workload_branches.c). */
#ifndef TESTS_KERNEL_WORKLOAD_BRANCHES_H
#define TESTS_KERNEL_WORKLOAD_BRANCHES_H

unsigned wl_alpha(unsigned x);
unsigned wl_beta(unsigned x);
unsigned wl_gamma(unsigned x);
/* Calls alpha, beta, gamma in turn, 'rounds' times. */
unsigned wl_run(unsigned rounds);

#endif

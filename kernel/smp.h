/*
 * Multiprocessor bring-up and cross-CPU calls (kernel/smp.c).
 *
 * Application processors are started with INIT-SIPI-SIPI from the MADT's
 * list, each on its own stack, GDT, TSS and IST stacks, in the boot CPU's
 * APIC mode. They then wait, halted, for calls. A call that does not
 * complete in time returns an error naming the CPU: never a hang.
 */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include <stdbool.h>
#include <stdint.h>

struct smp_info {
	unsigned listed; /* enabled CPUs in the MADT */
	unsigned online; /* including the boot CPU */
	unsigned failed; /* listed but did not come up */
	unsigned capped; /* listed beyond MAX_CPUS */
	uint32_t failed_ids[8];
	const char *note;    /* why no AP was started, or "" */
	uint32_t trampoline; /* physical page of the start-up code */
};

extern struct smp_info smp_info;

void smp_init(void);
unsigned smp_cpus_online(void);
/* The index of the n-th online CPU (0 = the boot CPU), or -1. */
int smp_cpu_by_rank(unsigned n);

enum smp_call_result {
	SMP_CALL_OK = 0,
	SMP_CALL_TIMEOUT = -1, /* sent, not completed in time */
	SMP_CALL_BUSY = -2,    /* an earlier call to that CPU never ended */
	SMP_CALL_OFFLINE = -3, /* no such CPU online */
};

/* Run fn(arg) on CPU 'cpu' (its index) and wait up to timeout_ms. */
enum smp_call_result smp_call(unsigned cpu, void (*fn)(void *), void *arg,
			      uint64_t timeout_ms);
/*
 * Start fn(arg) on CPU 'cpu' without waiting; smp_call_wait() then waits
 * for it. For experiments where the caller has other work meanwhile.
 */
enum smp_call_result smp_call_post(unsigned cpu, void (*fn)(void *), void *arg,
				   uint64_t *seq);
enum smp_call_result smp_call_wait(unsigned cpu, uint64_t seq,
				   uint64_t timeout_ms);

/* Run fn(arg) on every online CPU; returns the number that failed. */
unsigned on_each_cpu(void (*fn)(void *), void *arg, uint64_t timeout_ms);
const char *smp_call_result_name(enum smp_call_result r);

#endif

/*
 * Time keeping: the TSC frequency and where it came from.
 */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include <stdint.h>

struct tsc_info {
	uint64_t hz;
	const char *source; /* "cpuid15", "cpuid16", "pit" or "none" */
	uint64_t other_hz;  /* a second estimate where there is one, or 0 */
	const char *other_source;
	int invariant; /* CPUID.80000007H:EDX[8] */
};

extern struct tsc_info tsc;

void time_init(void);
/* Cycles to microseconds/milliseconds with the measured frequency. */
uint64_t tsc_to_us(uint64_t cycles);
uint64_t ms_to_tsc(uint64_t ms);
/* Busy-wait; returns early never. */
void tsc_delay_us(uint64_t us);

#endif

/*
 * Time keeping (kernel/time.c): the TSC frequency, where it came from and
 * how well a second source agrees, plus the helpers every timed test uses.
 */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include <stdint.h>

/* One calibration of the TSC against a reference clock. */
struct tsc_calibration {
	const char *source;  /* "hpet" or "pit" */
	uint64_t hz;	     /* the estimate kept (0: the clock failed) */
	unsigned runs;	     /* short runs made; the least disturbed is kept */
	uint64_t spread_ppm; /* (max - min) / hz over the runs */
	/*
	 * Worst-case error of the kept run from the width of the TSC
	 * brackets around the reference clock's reads; 0 when unknown
	 * (the PIT is polled inside drivers/pit.c).
	 */
	uint64_t bound_ppm;
	uint64_t cycles; /* TSC cycles the calibration took */
};

struct tsc_info {
	uint64_t hz;
	const char *source; /* "cpuid15", "cpuid16", "hpet", "pit" or "none" */
	uint64_t other_hz;  /* a second estimate where there is one, or 0 */
	const char *other_source;
	int invariant; /* CPUID.80000007H:EDX[8] */
	/* The reference clocks measured at boot (none, one or two). */
	struct tsc_calibration cal[2];
	unsigned ncal;
};

extern struct tsc_info tsc;

/*
 * Choose the TSC frequency: CPUID leaf 0x15 when complete, else leaf
 * 0x16, else calibrated against the HPET, else against the PIT. Where a
 * second source exists it is measured too (into other_hz). Needs the
 * ACPI tables (for the HPET); takes up to about 75 ms.
 */
void time_init(void);
/* Cycles to microseconds/milliseconds with the measured frequency. */
uint64_t tsc_to_us(uint64_t cycles);
uint64_t ms_to_tsc(uint64_t ms);
uint64_t us_to_tsc(uint64_t us);
/* Busy-wait; returns early never. */
void tsc_delay_us(uint64_t us);

/*
 * A read of a slow clock (a device register) bracketed by two TSC reads:
 * the value was sampled somewhere between tsc - width / 2 and
 * tsc + width / 2. Under a hypervisor every device access exits, and the
 * exit's cost lands between the brackets rather than in the estimate.
 */
struct tsc_stamp {
	uint64_t tsc;	/* midpoint of the bracket */
	uint64_t width; /* cycles between the two TSC reads */
	uint32_t value;
};

/* The tightest bracket of 'tries' reads (interrupts should be off). */
struct tsc_stamp tsc_stamp(uint32_t (*read)(void), unsigned tries);

#endif

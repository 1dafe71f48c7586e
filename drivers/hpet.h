/*
 * HPET main counter (drivers/hpet.c): found through the ACPI HPET table,
 * enabled, and read as a clock. Only the main counter is used; the
 * comparators (event timers) stay off.
 */
#ifndef DRIVERS_HPET_H
#define DRIVERS_HPET_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Check the ACPI description and the capabilities register, enable the
 * main counter and see it advance. Idempotent. Returns hpet_usable().
 */
bool hpet_init(void);
bool hpet_usable(void);
/* Why the HPET is not used, for skip messages and the log ("" if it is). */
const char *hpet_reason(void);

/* Counter tick period (capabilities bits 63:32) and counter width. */
uint32_t hpet_period_fs(void);
bool hpet_counter_64bit(void);
/* Number of comparators, physical base. */
unsigned hpet_comparators(void);
uint64_t hpet_base(void);

/*
 * The low 32 bits of the main counter: one 32-bit MMIO read, the cheapest
 * access (each one exits to the hypervisor under KVM). Differences of two
 * reads are good for intervals shorter than 2^32 ticks (43 s at 100 MHz,
 * 300 s at 14.318 MHz).
 */
uint32_t hpet_read32(void);
/*
 * The full counter as 64 bits: read high, low, high with 32-bit accesses
 * and retry if the high half moved. A 32-bit counter is extended in
 * software, which needs a call at least once per wrap (see above).
 */
uint64_t hpet_read(void);

uint64_t hpet_ticks_to_ns(uint64_t ticks);
/* Femtoseconds saturate at UINT64_MAX (about 5 hours). */
uint64_t hpet_ticks_to_fs(uint64_t ticks);

#endif

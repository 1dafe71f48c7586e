/* The 8254 programmable interval timer (drivers/pit.c). */
#ifndef DRIVERS_PIT_H
#define DRIVERS_PIT_H

#include <stdint.h>

#define PIT_HZ 1193182u

/*
 * Measure TSC cycles over a PIT interval of 'ms' milliseconds, polling
 * channel 2 (no interrupts needed). Returns 0 when the PIT does not count.
 */
uint64_t pit_measure_tsc(unsigned ms);
/* Channel 0 as a periodic IRQ 0 at about hz. */
void pit_start_periodic(unsigned hz);

#endif

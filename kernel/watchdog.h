/*
 * The periodic tick behind the per-test watchdog (kernel/watchdog.c).
 * Preferred: the PIT routed through the I/O APIC as an NMI, which also
 * stops a test hung with interrupts disabled. Fallback: the PIT through
 * the 8259 as a maskable interrupt.
 */
#ifndef KERNEL_WATCHDOG_H
#define KERNEL_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>

#define WATCHDOG_HZ 100

void watchdog_init(void);
uint64_t watchdog_ticks(void);
unsigned watchdog_hz(void);
/* "pit-ioapic-nmi" or "pit-8259-irq0". */
const char *watchdog_source(void);
/* Whether a hang with interrupts disabled is caught; if not, why. */
bool watchdog_catches_cli(void);
const char *watchdog_no_nmi_reason(void);

#endif

/*
 * The local APIC timer (drivers/apic_timer.c): one-shot, periodic and
 * TSC-deadline modes, in whichever APIC mode (xAPIC or x2APIC) is current,
 * always with the divider at 1. Interrupts arrive on VEC_APIC_TIMER; a
 * caller may hook them with apic_timer_set_callback().
 *
 * The timer is per CPU; this driver keeps one set of state and is meant
 * for the boot CPU. A mode change (lapic_set_mode) masks the timer
 * (x2APIC to xAPIC also resets it): re-arm after one.
 */
#ifndef DRIVERS_APIC_TIMER_H
#define DRIVERS_APIC_TIMER_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Calibrate the timer's rate against the TSC (needs time_init) and take
 * VEC_APIC_TIMER. Idempotent: later calls return the first result.
 * Returns 0, or -1 with apic_timer_reason() saying why.
 */
int apic_timer_init(void);
const char *apic_timer_reason(void);
/* Ticks per second at divide-by-1 (0 before or without init). */
uint64_t apic_timer_hz(void);
/* Worst-case calibration error from the TSC brackets, in ppm. */
uint64_t apic_timer_bound_ppm(void);
/* TSC-deadline mode exists (CPUID.1:ECX[24]). */
bool apic_timer_has_deadline(void);

/*
 * Called in the interrupt handler, before the EOI, with the TSC read on
 * entry. fn NULL: the handler only counts. Keep arg in static storage: a
 * test stopped by its watchdog can leave a periodic timer running.
 */
typedef void (*apic_timer_fn)(uint64_t entry_tsc, void *arg);
void apic_timer_set_callback(apic_timer_fn fn, void *arg);
/* Timer interrupts taken since boot, and the entry TSC of the last one. */
uint64_t apic_timer_count(void);
uint64_t apic_timer_last_tsc(void);

/* The calls below need a successful apic_timer_init(). */

/* Fire once after 'ticks' (1..2^32-1) timer ticks. */
void apic_timer_oneshot(uint32_t ticks);
/* Fire every 'ticks' until stopped. */
void apic_timer_periodic(uint32_t ticks);
/*
 * Fire when the TSC reaches 'deadline'; 0 disarms. Returns 0, or -1 when
 * the CPU has no TSC-deadline mode or the IA32_TSC_DEADLINE write faulted.
 */
int apic_timer_deadline(uint64_t deadline);
/* Mask the timer and stop whatever mode was armed. */
void apic_timer_stop(void);

/* IA32_TSC_DEADLINE as read back (0: disarmed or fired); -1 on a fault. */
int apic_timer_read_deadline(uint64_t *v);

/* Conversions with the calibrated rate. */
uint64_t apic_timer_ticks_to_tsc(uint64_t ticks);
uint64_t apic_timer_us_to_ticks(uint64_t us);

#endif

/*
 * Local APIC timer (SDM Vol. 3, "APIC Timer").
 *
 * The timer counts down from the initial-count register at the APIC's
 * timer clock (bus or crystal clock, divided by the divide-configuration
 * register) and interrupts through the LVT timer entry at zero: once in
 * one-shot mode, reloading in periodic mode. In TSC-deadline mode (when
 * CPUID.1:ECX[24]) the counter is unused: the interrupt comes when the TSC
 * reaches IA32_TSC_DEADLINE, which then clears itself.
 *
 * The timer's clock is not architecturally known, so it is calibrated
 * against the TSC with the same bracketed reads as the TSC calibration.
 */
#include "drivers/apic_timer.h"

#include "drivers/lapic.h"
#include "kernel/arch.h"
#include "kernel/cpuinfo.h"
#include "kernel/fixup.h"
#include "kernel/time.h"
#include "kernel/trap.h"
#include "kernel/vectors.h"

#define MSR_IA32_TSC_DEADLINE 0x6E0

/* Divide configuration: bits 0, 1 and 3; 1011b is divide by 1. */
#define APIC_DIVIDE_BY_1 0xB

/* Calibration: 3 runs of about 5 ms, tightest brackets kept. */
#define CAL_RUNS	3
#define CAL_RUN_US	5000
#define CAL_STAMP_TRIES 4

static int init_result = 1; /* 1: not tried */
static const char *reason = "apic_timer_init() not called";
static uint64_t timer_hz, bound_ppm;

static apic_timer_fn callback;
static void *callback_arg;
static uint64_t fired, last_tsc;

static void timer_interrupt(struct trap_frame *f)
{
	uint64_t now = rdtsc();
	apic_timer_fn fn = callback;

	(void)f;
	__atomic_store_n(&last_tsc, now, __ATOMIC_RELAXED);
	__atomic_add_fetch(&fired, 1, __ATOMIC_RELAXED);
	if (fn)
		fn(now, callback_arg);
	lapic_eoi();
}

static uint32_t read_current(void)
{
	return apic->read(APIC_TIMER_CURRENT);
}

/*
 * A masked one-shot count from 2^32 - 1 is a free-running clock for a
 * few seconds (about 4 s at 1 GHz): stamp it, let about CAL_RUN_US pass,
 * stamp it again, and keep the run with the tightest brackets.
 */
static int calibrate(void)
{
	uint64_t best = UINT64_MAX, flags = irq_save();

	apic->write(APIC_TIMER_DIVIDE, APIC_DIVIDE_BY_1);
	apic->write(APIC_LVT_TIMER, APIC_LVT_MASKED | VEC_APIC_TIMER);
	apic->write(APIC_TIMER_INITIAL, 0xFFFFFFFFu);
	for (int r = 0; r < CAL_RUNS; r++) {
		struct tsc_stamp a, b;
		uint64_t cycles, ticks, bound;

		a = tsc_stamp(read_current, CAL_STAMP_TRIES);
		tsc_delay_us(CAL_RUN_US);
		b = tsc_stamp(read_current, CAL_STAMP_TRIES);
		if (b.value >= a.value || b.tsc <= a.tsc)
			continue; /* not counting, or ran out */
		cycles = b.tsc - a.tsc;
		ticks = a.value - b.value;
		bound = muldiv64((a.width + b.width) / 2, 1000000, cycles) +
			muldiv64(1, 1000000, ticks);
		if (bound < best) {
			best = bound;
			timer_hz = muldiv64(ticks, tsc.hz, cycles);
			bound_ppm = bound;
		}
	}
	apic->write(APIC_TIMER_INITIAL, 0);
	irq_restore(flags);
	return timer_hz ? 0 : -1;
}

int apic_timer_init(void)
{
	if (init_result != 1)
		return init_result;
	if (!apic) {
		reason = "no local APIC (CPUID.1:EDX[9]=0)";
		init_result = -1;
	} else if (!tsc.hz) {
		reason = "TSC frequency unknown (tsc_source=none)";
		init_result = -1;
	} else if (calibrate()) {
		reason = "the APIC timer's current count does not decrease";
		init_result = -1;
	} else {
		reason = "";
		trap_set_handler(VEC_APIC_TIMER, timer_interrupt);
		init_result = 0;
	}
	return init_result;
}

const char *apic_timer_reason(void)
{
	return reason;
}

uint64_t apic_timer_hz(void)
{
	return timer_hz;
}

uint64_t apic_timer_bound_ppm(void)
{
	return bound_ppm;
}

bool apic_timer_has_deadline(void)
{
	return cpu_info.tsc_deadline;
}

void apic_timer_set_callback(apic_timer_fn fn, void *arg)
{
	uint64_t flags = irq_save();

	callback = fn;
	callback_arg = arg;
	irq_restore(flags);
}

uint64_t apic_timer_count(void)
{
	return __atomic_load_n(&fired, __ATOMIC_RELAXED);
}

uint64_t apic_timer_last_tsc(void)
{
	return __atomic_load_n(&last_tsc, __ATOMIC_RELAXED);
}

/* The count starts with the initial-count write, so that comes last. */
static void arm(uint32_t mode, uint32_t ticks)
{
	apic->write(APIC_TIMER_DIVIDE, APIC_DIVIDE_BY_1);
	apic->write(APIC_LVT_TIMER, mode | VEC_APIC_TIMER);
	apic->write(APIC_TIMER_INITIAL, ticks);
}

void apic_timer_oneshot(uint32_t ticks)
{
	arm(0, ticks);
}

void apic_timer_periodic(uint32_t ticks)
{
	arm(APIC_TIMER_PERIODIC, ticks);
}

int apic_timer_deadline(uint64_t deadline)
{
	if (!apic_timer_has_deadline())
		return -1;
	apic->write(APIC_LVT_TIMER, APIC_TIMER_TSC_DEADLINE | VEC_APIC_TIMER);
	/*
	 * SDM Vol. 3, "TSC-Deadline Mode": in xAPIC mode the LVT write is a
	 * memory-mapped store, which a following WRMSR may overtake; a
	 * write to IA32_TSC_DEADLINE while the LVT is not yet in
	 * TSC-deadline mode is ignored. Software orders the two with
	 * MFENCE. (In x2APIC mode both are WRMSRs, which the processor
	 * orders itself; the fence costs little there.)
	 */
	asm volatile("mfence" : : : "memory");
	return wrmsr_safe(MSR_IA32_TSC_DEADLINE, deadline) ? -1 : 0;
}

int apic_timer_read_deadline(uint64_t *v)
{
	*v = 0;
	if (!apic_timer_has_deadline())
		return -1;
	return rdmsr_safe(MSR_IA32_TSC_DEADLINE, v);
}

void apic_timer_stop(void)
{
	uint64_t flags = irq_save();

	/* Disarm a deadline while still in TSC-deadline mode, if we are. */
	if (apic_timer_has_deadline() &&
	    (apic->read(APIC_LVT_TIMER) & (3u << 17)) ==
		    APIC_TIMER_TSC_DEADLINE)
		wrmsr_safe(MSR_IA32_TSC_DEADLINE, 0);
	/* Back to masked one-shot; a zero initial count stops the counter. */
	apic->write(APIC_LVT_TIMER, APIC_LVT_MASKED | VEC_APIC_TIMER);
	apic->write(APIC_TIMER_INITIAL, 0);
	irq_restore(flags);
}

uint64_t apic_timer_ticks_to_tsc(uint64_t ticks)
{
	return muldiv64(ticks, tsc.hz, timer_hz);
}

uint64_t apic_timer_us_to_ticks(uint64_t us)
{
	return muldiv64(timer_hz, us, 1000000);
}

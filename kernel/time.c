/*
 * TSC frequency and the periodic tick.
 *
 * The frequency comes from CPUID leaf 0x15 (crystal ratio) where it is
 * complete, else leaf 0x16 (nominal MHz), else the PIT. When CPUID gives
 * one, the PIT measures too and the log shows how far they are apart.
 * (The HPET and the APIC timer come with the APIC work.) The watchdog
 * tick is in kernel/watchdog.c.
 */
#include "kernel/time.h"

#include "drivers/pit.h"
#include "kernel/arch.h"

#define CALIBRATION_MS	 20
#define CALIBRATION_RUNS 3

struct tsc_info tsc;


static uint64_t tsc_from_cpuid(const char **source)
{
	uint32_t max = cpuid(0, 0).eax;
	struct cpuid_regs r;

	if (max >= 0x15) {
		r = cpuid(0x15, 0);
		/* EAX denominator, EBX numerator, ECX crystal Hz (0: unknown) */
		if (r.eax && r.ebx && r.ecx) {
			*source = "cpuid15";
			return (uint64_t)r.ecx * r.ebx / r.eax;
		}
	}
	if (max >= 0x16) {
		r = cpuid(0x16, 0);
		if (r.eax & 0xFFFF) {
			*source = "cpuid16";
			return (uint64_t)(r.eax & 0xFFFF) * 1000000;
		}
	}
	return 0;
}

/* The smallest of a few runs: an interruption only makes a run longer. */
static uint64_t tsc_from_pit(void)
{
	uint64_t best = 0;

	for (int i = 0; i < CALIBRATION_RUNS; i++) {
		uint64_t c = pit_measure_tsc(CALIBRATION_MS);

		if (c && (!best || c < best))
			best = c;
	}
	return best * 1000 / CALIBRATION_MS;
}

void time_init(void)
{
	const char *src = "none";
	uint64_t cpuid_hz = tsc_from_cpuid(&src);
	uint64_t pit_hz = tsc_from_pit();

	tsc.invariant = cpuid(0x80000000, 0).eax >= 0x80000007 &&
			(cpuid(0x80000007, 0).edx & (1u << 8));
	if (cpuid_hz) {
		tsc.hz = cpuid_hz;
		tsc.source = src;
		tsc.other_hz = pit_hz;
		tsc.other_source = pit_hz ? "pit" : 0;
	} else {
		tsc.hz = pit_hz;
		tsc.source = pit_hz ? "pit" : "none";
	}
}

uint64_t tsc_to_us(uint64_t cycles)
{
	if (!tsc.hz)
		return 0;
	return muldiv64(cycles, 1000000, tsc.hz);
}

uint64_t ms_to_tsc(uint64_t ms)
{
	return muldiv64(tsc.hz, ms, 1000);
}

void tsc_delay_us(uint64_t us)
{
	uint64_t end = rdtsc() + muldiv64(tsc.hz, us, 1000000);

	while (rdtsc() < end)
		cpu_relax();
}

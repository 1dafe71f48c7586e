/*
 * TSC frequency: which source gives it, and how far a second one agrees.
 *
 * In order of trust: CPUID leaf 0x15 (crystal frequency and TSC/crystal
 * ratio, when all three numbers are there), leaf 0x16 (nominal base
 * frequency in MHz), a calibration against the HPET main counter, and one
 * against the PIT. When the frequency comes from CPUID, the HPET (else
 * the PIT) is measured as a cross-check; when it comes from the HPET, the
 * PIT is. The watchdog tick is in kernel/watchdog.c, the APIC timer in
 * drivers/apic_timer.c.
 */
#include "kernel/time.h"

#include "drivers/hpet.h"
#include "drivers/pit.h"
#include "kernel/arch.h"

/*
 * Boot time matters (every QEMU test boots), so the runs are short and
 * few: 3 x 10 ms against the HPET, 3 x 15 ms against the PIT, whose
 * polling loop is coarser.
 */
#define HPET_RUNS      3
#define HPET_RUN_MS    10
#define PIT_RUNS       3
#define PIT_RUN_MS     15
/* Reads per end of an HPET run; the tightest TSC bracket is kept. */
#define STAMP_TRIES    4
/* Polls of the HPET within one run before it is declared stuck. */
#define HPET_MAX_POLLS 10000000u

#define FS_PER_MS 1000000000000ull
#define FS_PER_S  1000000000000000ull

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

/*
 * RDTSC fenced on both sides: LFENCE before waits for earlier
 * instructions (the device read) to complete, LFENCE after keeps later
 * ones from starting before the TSC is read.
 */
static inline uint64_t tsc_fenced(void)
{
	uint32_t lo, hi;

	asm volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

struct tsc_stamp tsc_stamp(uint32_t (*read)(void), unsigned tries)
{
	struct tsc_stamp best = { 0, UINT64_MAX, 0 };

	for (unsigned i = 0; i < tries; i++) {
		uint64_t t0 = tsc_fenced();
		uint32_t v = read();
		uint64_t t1 = tsc_fenced();

		if (t1 - t0 < best.width) {
			best.tsc = t0 + (t1 - t0) / 2;
			best.width = t1 - t0;
			best.value = v;
		}
	}
	return best;
}

static uint64_t ppm(uint64_t part, uint64_t whole)
{
	return whole ? muldiv64(part, 1000000, whole) : 0;
}

static void note_run(struct tsc_calibration *c, uint64_t hz, uint64_t *lo,
		     uint64_t *hi)
{
	c->runs++;
	if (hz < *lo)
		*lo = hz;
	if (hz > *hi)
		*hi = hz;
}

/*
 * Each run stamps the HPET counter (tightest of a few TSC brackets),
 * waits about HPET_RUN_MS by the HPET, and stamps it again. The run whose
 * brackets were tightest (least disturbed by exits, SMIs or NMIs) is
 * kept; how long the wait in between took does not matter.
 */
static void calibrate_hpet(struct tsc_calibration *c)
{
	uint32_t want =
		(uint32_t)muldiv64(HPET_RUN_MS, FS_PER_MS, hpet_period_fs());
	uint64_t start = rdtsc(), lo = UINT64_MAX, hi = 0;
	uint64_t best_bound = UINT64_MAX;
	uint64_t flags = irq_save();

	c->source = "hpet";
	for (int r = 0; r < HPET_RUNS; r++) {
		struct tsc_stamp a, b;
		uint32_t ticks, polls = 0;
		uint64_t cycles, hz, bound;

		a = tsc_stamp(hpet_read32, STAMP_TRIES);
		while ((uint32_t)(hpet_read32() - a.value) < want &&
		       ++polls < HPET_MAX_POLLS)
			;
		b = tsc_stamp(hpet_read32, STAMP_TRIES);
		ticks = b.value - a.value;
		if (polls >= HPET_MAX_POLLS || !ticks || b.tsc <= a.tsc)
			continue;
		cycles = b.tsc - a.tsc;
		hz = muldiv64(cycles, FS_PER_S, hpet_ticks_to_fs(ticks));
		/* Half of each bracket on the TSC side, a tick on the HPET's. */
		bound = ppm((a.width + b.width) / 2, cycles) + ppm(1, ticks);
		note_run(c, hz, &lo, &hi);
		if (bound < best_bound) {
			best_bound = bound;
			c->hz = hz;
			c->bound_ppm = bound;
		}
	}
	irq_restore(flags);
	c->spread_ppm = c->hz ? ppm(hi - lo, c->hz) : 0;
	c->cycles = rdtsc() - start;
}

/* The shortest of a few runs: an interruption only makes a run longer. */
static void calibrate_pit(struct tsc_calibration *c)
{
	uint64_t start = rdtsc(), best = 0, lo = UINT64_MAX, hi = 0;

	c->source = "pit";
	for (int r = 0; r < PIT_RUNS; r++) {
		uint64_t cycles = pit_measure_tsc(PIT_RUN_MS);

		if (!cycles)
			continue;
		note_run(c, cycles * 1000 / PIT_RUN_MS, &lo, &hi);
		if (!best || cycles < best)
			best = cycles;
	}
	c->hz = best * 1000 / PIT_RUN_MS;
	c->spread_ppm = c->hz ? ppm(hi - lo, c->hz) : 0;
	c->cycles = rdtsc() - start;
}

void time_init(void)
{
	const char *src = "none";
	uint64_t cpuid_hz = tsc_from_cpuid(&src);
	uint64_t hpet_hz = 0;
	struct tsc_calibration *c;

	tsc.invariant = cpuid(0x80000000, 0).eax >= 0x80000007 &&
			(cpuid(0x80000007, 0).edx & (1u << 8));
	tsc.ncal = 0;
	if (hpet_init()) {
		c = &tsc.cal[tsc.ncal++];
		calibrate_hpet(c);
		hpet_hz = c->hz;
	}
	/* The PIT is needed as the source, or as the only second opinion. */
	if (!cpuid_hz || !hpet_hz)
		calibrate_pit(&tsc.cal[tsc.ncal++]);

	tsc.hz = cpuid_hz;
	tsc.source = src;
	tsc.other_hz = 0;
	tsc.other_source = 0;
	for (unsigned i = 0; i < tsc.ncal; i++) {
		c = &tsc.cal[i];
		if (!c->hz)
			continue;
		if (!tsc.hz) {
			tsc.hz = c->hz;
			tsc.source = c->source;
		} else if (!tsc.other_hz) {
			tsc.other_hz = c->hz;
			tsc.other_source = c->source;
		}
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

uint64_t us_to_tsc(uint64_t us)
{
	return muldiv64(tsc.hz, us, 1000000);
}

void tsc_delay_us(uint64_t us)
{
	uint64_t end = rdtsc() + us_to_tsc(us);

	while (rdtsc() < end)
		cpu_relax();
}

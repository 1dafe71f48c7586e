/*
 * HPET (IA-PC HPET specification 1.0a) as a clock: the main counter only.
 *
 * The ACPI HPET table gives the base of the event timer block; the
 * block's own capabilities register gives the tick period in femtoseconds
 * and the counter width. Every access here is 32 bits wide: the
 * specification allows it on every implementation, while 64-bit accesses
 * are optional (and some emulations refuse them).
 */
#include "drivers/hpet.h"

#include "kernel/acpi_tables.h"
#include "kernel/arch.h"

/* Register offsets (HPET 1.0a, 2.3.1). */
#define HPET_CAP	  0x000 /* low: rev, #timers, width; high: period */
#define HPET_CAP_PERIOD	  0x004
#define HPET_CONFIG	  0x010
#define HPET_COUNTER_LO	  0x0F0
#define HPET_COUNTER_HI	  0x0F4
#define HPET_TIMER_CFG(n) (0x100 + 0x20 * (n))

#define CAP_TIMERS(c)	(((c) >> 8) & 0x1F) /* number of comparators - 1 */
#define CAP_COUNT_64BIT (1u << 13)
#define CONFIG_ENABLE	(1u << 0)
#define CONFIG_LEGACY	(1u << 1)
#define TIMER_INT_ENB	(1u << 2)

#define HPET_BLOCK_SIZE	   0x400
/* The specification's bound: a tick of at most 100 ns (10 MHz or more). */
#define HPET_MAX_PERIOD_FS 100000000u
#define FS_PER_NS	   1000000u
/* Reads of the counter before we decide it does not count. */
#define ADVANCE_POLLS	   100000

static bool tried, usable;
static const char *reason = "hpet_init() not called";
static uint64_t base;
static uint32_t period_fs;
static bool wide;
static unsigned ncomparators;
static uint64_t extended; /* last hpet_read() of a 32-bit counter */

static uint32_t hpet_rd(unsigned reg)
{
	return *(volatile uint32_t *)phys_ptr(base + reg);
}

static void hpet_wr(unsigned reg, uint32_t v)
{
	*(volatile uint32_t *)phys_ptr(base + reg) = v;
}

static bool counter_advances(void)
{
	uint32_t first = hpet_read32();

	for (unsigned i = 0; i < ADVANCE_POLLS; i++)
		if (hpet_read32() != first)
			return true;
	return false;
}

static bool probe(void)
{
	const struct acpi_hpet *h = &acpi_info.hpet;
	uint32_t cap, cfg;

	if (!h->present) {
		reason = "no ACPI HPET table";
		return false;
	}
	if (h->address_space != 0) {
		reason = "the ACPI HPET table puts the block outside memory "
			 "space";
		return false;
	}
	if (!h->usable || !h->address) {
		reason = "the ACPI HPET table gives a zero base address";
		return false;
	}
	if (h->address > (4ull << 30) - HPET_BLOCK_SIZE) {
		reason = "the HPET block is above 4 GiB (not identity-mapped)";
		return false;
	}
	base = h->address;
	cap = hpet_rd(HPET_CAP);
	period_fs = hpet_rd(HPET_CAP_PERIOD);
	if (cap == 0xFFFFFFFFu) {
		/* Nothing decodes the address: the bus floats to all ones. */
		reason = "the HPET capabilities register reads all ones";
		return false;
	}
	if (!period_fs || period_fs > HPET_MAX_PERIOD_FS) {
		reason = "the HPET tick period is 0 or above 100 ns";
		return false;
	}
	wide = cap & CAP_COUNT_64BIT;
	ncomparators = CAP_TIMERS(cap) + 1;

	/*
	 * Only the main counter is used. Comparator interrupts left on by
	 * the firmware would arrive on vectors nobody handles, and legacy
	 * replacement routing would take IRQ 0 from the PIT, which drives
	 * the watchdog tick: turn both off. The counter itself keeps its
	 * value (it may only be written while halted, and need not be).
	 */
	for (unsigned n = 0; n < ncomparators; n++) {
		uint32_t tc = hpet_rd(HPET_TIMER_CFG(n));

		if (tc & TIMER_INT_ENB)
			hpet_wr(HPET_TIMER_CFG(n), tc & ~TIMER_INT_ENB);
	}
	cfg = hpet_rd(HPET_CONFIG);
	if ((cfg & (CONFIG_ENABLE | CONFIG_LEGACY)) != CONFIG_ENABLE)
		hpet_wr(HPET_CONFIG, (cfg & ~CONFIG_LEGACY) | CONFIG_ENABLE);
	if (!counter_advances()) {
		reason = "the HPET main counter does not advance when enabled";
		return false;
	}
	extended = hpet_read32();
	reason = "";
	return true;
}

bool hpet_init(void)
{
	if (!tried) {
		tried = true;
		usable = probe();
	}
	return usable;
}

bool hpet_usable(void)
{
	return usable;
}

const char *hpet_reason(void)
{
	return reason;
}

uint32_t hpet_period_fs(void)
{
	return usable ? period_fs : 0;
}

bool hpet_counter_64bit(void)
{
	return wide;
}

unsigned hpet_comparators(void)
{
	return ncomparators;
}

uint64_t hpet_base(void)
{
	return base;
}

uint32_t hpet_read32(void)
{
	return hpet_rd(HPET_COUNTER_LO);
}

uint64_t hpet_read(void)
{
	uint32_t hi, lo;

	if (wide) {
		/* A carry between the two halves shows as a change of hi. */
		do {
			hi = hpet_rd(HPET_COUNTER_HI);
			lo = hpet_rd(HPET_COUNTER_LO);
		} while (hpet_rd(HPET_COUNTER_HI) != hi);
		return ((uint64_t)hi << 32) | lo;
	}
	lo = hpet_read32();
	if (lo < (uint32_t)extended)
		extended += 1ull << 32;
	extended = (extended & ~0xFFFFFFFFull) | lo;
	return extended;
}

uint64_t hpet_ticks_to_ns(uint64_t ticks)
{
	return muldiv64(ticks, period_fs, FS_PER_NS);
}

uint64_t hpet_ticks_to_fs(uint64_t ticks)
{
	return muldiv64(ticks, period_fs, 1);
}

/*
 * time.* and apic.timer.*: the clocks every measurement rests on.
 *
 * time.hpet checks that the HPET main counter counts forward at the period
 * it claims; time.tsc.sources reports where the TSC frequency came from
 * and how far a second source disagrees. apic.timer.* check the local APIC
 * timer in each APIC mode: one-shot fires once and never early, periodic
 * fires once per period and stops when told, TSC-deadline fires at the
 * deadline and writing 0 disarms it. The timer tests report the lateness
 * of the interrupt (handler entry minus the programmed time) as a metric;
 * under a hypervisor that is the hypervisor's lateness.
 *
 * This machine is shared and noisy: the only timed assertions are lower
 * bounds (a timer must never fire early) and generous upper bounds.
 */
#include "kernel/time.h"
#include "drivers/apic_timer.h"
#include "drivers/hpet.h"
#include "drivers/lapic.h"
#include "kernel/arch.h"
#include "kernel/measure.h"
#include "kernel/test.h"
#include "lib/json.h"
#include "lib/stats.h"
#include "lib/string.h"
#include "tests/kernel/apic_mode.h"

/* HPET reads timed, and the interval checked against the TSC. */
#define HPET_READS	 200
#define HPET_INTERVAL_MS 20
/* A clock off by more than this factor from the TSC has a wrong period. */
#define RATE_FACTOR	 2

/* Timer runs: SAMPLES arms, intervals cycling through 100..800 us. */
#define SAMPLES	     32
#define MIN_US	     100
#define STEP_US	     100
#define STEPS	     8
#define PERIOD_US    500
#define PERIOD_FIRES 20
#define DISARM_US    5000
/* Upper bound on a fire: LATE_FACTOR times the interval plus LATE_MS. */
#define LATE_FACTOR  20
#define LATE_MS	     50

/* Generous: the structural check is "not zero, not absurd". */
#define TSC_MIN_HZ 1000000ull	   /* 1 MHz */
#define TSC_MAX_HZ 100000000000ull /* 100 GHz */

/* Samples for the metrics (one set at a time). */
static uint64_t samples[HPET_READS];

/* --- time.hpet ------------------------------------------------------------ */

static uint64_t ns_of_tsc(uint64_t cycles)
{
	return muldiv64(cycles, 1000000000, tsc.hz);
}

/*
 * The main counter never goes back (64-bit reads and their low halves),
 * and over HPET_INTERVAL_MS it advances, at its claimed period, the same
 * time as the TSC within a factor of RATE_FACTOR: a wrong period field or
 * a misread register shows as a factor of 7 (14.318 vs 100 MHz) or worse.
 */
static void time_hpet(struct test_run *t)
{
	struct sample_set reads;
	struct json j;
	char buf[320];
	uint64_t prev, h0, h1, c0, c1, hpet_ns, tsc_ns;

	if (!hpet_usable())
		return t_skip(t, "no usable HPET (%s)", hpet_reason());
	if (!tsc.hz)
		return t_skip(t, "TSC frequency unknown (tsc_source=none)");
	T_ASSERT(t, hpet_period_fs() > 0 && hpet_period_fs() <= 100000000);

	samples_init(&reads, samples, HPET_READS);
	prev = hpet_read();
	for (int i = 0; i < HPET_READS; i++) {
		struct tsc_stamp s = tsc_stamp(hpet_read32, 1);
		uint64_t now = hpet_read();

		samples_add(&reads, s.width);
		if (now < prev)
			return t_fail(t,
				      "HPET counter went back from %lu to "
				      "%lu",
				      prev, now);
		/* The low half read first lies between the two full reads. */
		if ((uint32_t)(now - s.value) > (uint32_t)(now - prev))
			return t_fail(t,
				      "32-bit read 0x%x is outside the "
				      "64-bit reads 0x%lx..0x%lx",
				      s.value, prev, now);
		prev = now;
	}

	h0 = hpet_read();
	c0 = rdtsc_ordered();
	tsc_delay_us(HPET_INTERVAL_MS * 1000);
	h1 = hpet_read();
	c1 = rdtsc_ordered();
	hpet_ns = hpet_ticks_to_ns(h1 - h0);
	tsc_ns = ns_of_tsc(c1 - c0);
	if (hpet_ns * RATE_FACTOR < tsc_ns || hpet_ns > tsc_ns * RATE_FACTOR)
		t_fail(t,
		       "over %lu ns of TSC the HPET counted %lu ticks of "
		       "%u fs = %lu ns",
		       tsc_ns, h1 - h0, hpet_period_fs(), hpet_ns);

	json_init(&j, buf, sizeof(buf));
	json_begin(&j, NULL);
	json_str(&j, "name", "time.hpet.rate");
	json_str(&j, "unit", "ns");
	json_u64(&j, "value", hpet_ns);
	json_u64(&j, "tsc_ns", tsc_ns);
	json_u64(&j, "period_fs", hpet_period_fs());
	json_bool(&j, "counter_64bit", hpet_counter_64bit());
	json_u64(&j, "comparators", hpet_comparators());
	json_u64(&j, "base", hpet_base());
	json_end(&j);
	t_metric(t, buf);
	/* The cost of one 32-bit counter read between two fenced RDTSCs. */
	report_samples(t, "time.hpet.read", NULL, &reads, 0, 0);
}
TEST_CASE(hpet, .name = "time.hpet", .fn = time_hpet);

/* --- time.tsc.sources ----------------------------------------------------- */

static bool known_source(const char *s)
{
	static const char *const names[] = { "cpuid15", "cpuid16", "hpet",
					     "pit" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (s && !strcmp(s, names[i]))
			return true;
	return false;
}

/*
 * Where the frequency came from and how far a second source disagrees.
 * Disagreement is reported, not judged (a PIT polled through hypervisor
 * exits is coarse); only structural faults fail: no frequency, an
 * absurd one, an unknown source name, a second opinion from the same
 * source.
 */
static void time_tsc_sources(struct test_run *t)
{
	struct json j;
	char buf[640];

	if (!tsc.hz || !known_source(tsc.source))
		return t_fail(t, "no TSC frequency (source %s)",
			      tsc.source ? tsc.source : "null");
	if (tsc.hz < TSC_MIN_HZ || tsc.hz > TSC_MAX_HZ)
		t_fail(t, "TSC frequency %lu Hz (source %s) is absurd", tsc.hz,
		       tsc.source);
	if (tsc.other_hz) {
		if (!known_source(tsc.other_source) ||
		    !strcmp(tsc.other_source, tsc.source))
			t_fail(t, "second source %s for %s",
			       tsc.other_source ? tsc.other_source : "null",
			       tsc.source);
		if (tsc.other_hz < TSC_MIN_HZ || tsc.other_hz > TSC_MAX_HZ)
			t_fail(t, "second estimate %lu Hz (%s) is absurd",
			       tsc.other_hz, tsc.other_source);
	}
	for (unsigned i = 0; i < tsc.ncal; i++)
		if (tsc.cal[i].runs && !tsc.cal[i].hz)
			t_fail(t,
			       "calibration against %s made %u runs but "
			       "no estimate",
			       tsc.cal[i].source, tsc.cal[i].runs);

	json_init(&j, buf, sizeof(buf));
	json_begin(&j, NULL);
	json_str(&j, "name", "time.tsc.sources");
	json_str(&j, "unit", "Hz");
	json_u64(&j, "value", tsc.hz);
	json_str(&j, "source", tsc.source);
	json_bool(&j, "invariant", tsc.invariant);
	if (tsc.other_hz) {
		int64_t d = (int64_t)tsc.other_hz - (int64_t)tsc.hz;

		json_str(&j, "other_source", tsc.other_source);
		json_u64(&j, "other_hz", tsc.other_hz);
		json_i64(&j, "differ_ppm", d * 1000000 / (int64_t)tsc.hz);
	}
	for (unsigned i = 0; i < tsc.ncal; i++) {
		const struct tsc_calibration *c = &tsc.cal[i];

		json_begin(&j, c->source);
		json_u64(&j, "hz", c->hz);
		json_u64(&j, "runs", c->runs);
		json_u64(&j, "spread_ppm", c->spread_ppm);
		if (c->bound_ppm)
			json_u64(&j, "bound_ppm", c->bound_ppm);
		json_u64(&j, "us", tsc_to_us(c->cycles));
		json_end(&j);
	}
	json_end(&j);
	if (j.truncated)
		t_fail(t, "metric line truncated");
	t_metric(t, buf);
}
TEST_CASE(tsc_sources, .name = "time.tsc.sources", .fn = time_tsc_sources);

/* --- apic.timer.* --------------------------------------------------------- */

/* Entry TSC of each interrupt of a run, filled by the timer callback. */
static uint64_t fire_tsc[PERIOD_FIRES * 2];
static volatile unsigned nfires;

static void record_fire(uint64_t entry_tsc, void *arg)
{
	(void)arg;
	if (nfires < sizeof(fire_tsc) / sizeof(fire_tsc[0]))
		fire_tsc[nfires] = entry_tsc;
	nfires++;
}

/*
 * Spin (interrupts on) until n interrupts or the TSC passes 'until'. No
 * PAUSE: under KVM, pause-loop exiting would add exits of its own to the
 * lateness measured.
 */
static bool wait_fires(unsigned n, uint64_t until)
{
	while (nfires < n)
		if (rdtsc() > until)
			return false;
	return true;
}

static void wait_until(uint64_t until)
{
	while (rdtsc() < until)
		cpu_relax();
}

static uint64_t late_limit(uint64_t cycles)
{
	return cycles * LATE_FACTOR + ms_to_tsc(LATE_MS);
}

/* Common entry: the timer calibrated, the test's APIC mode entered. */
static bool timer_enter(struct test_run *t, bool deadline,
			enum apic_mode *saved)
{
	if (apic_timer_init()) {
		t_skip(t, "%s", apic_timer_reason());
		return false;
	}
	if (deadline && !apic_timer_has_deadline()) {
		t_skip(t, "CPU has no TSC-deadline timer (CPUID.1:ECX[24]=0)");
		return false;
	}
	if (!apic_mode_enter(t, saved))
		return false;
	nfires = 0;
	apic_timer_set_callback(record_fire, NULL);
	return true;
}

static void timer_leave(enum apic_mode saved)
{
	apic_timer_stop();
	apic_timer_set_callback(NULL, NULL);
	apic_mode_leave(saved);
}

/*
 * How early a count-based fire may seem: one timer tick (the count may
 * start just before the TSC read that precedes the write), plus the
 * calibration's error bound on the expected duration.
 */
static uint64_t early_slack(uint64_t expected)
{
	return apic_timer_ticks_to_tsc(1) + 1 +
	       muldiv64(expected, apic_timer_bound_ppm(), 1000000);
}

static uint64_t interval_us(int i)
{
	return MIN_US + STEP_US * (uint64_t)(i % STEPS);
}

/*
 * One-shot: each arm fires once, not before the programmed count has
 * elapsed (by the TSC, through the calibrated rate), and the current
 * count then reads 0. A second interrupt within two more intervals would
 * be a one-shot that reloaded.
 */
static void apic_timer_oneshot_test(struct test_run *t)
{
	struct sample_set late;
	enum apic_mode saved;

	if (!timer_enter(t, false, &saved))
		return;
	samples_init(&late, samples, SAMPLES);
	for (int i = 0; i < SAMPLES && !t_failed(t); i++) {
		uint32_t ticks =
			(uint32_t)apic_timer_us_to_ticks(interval_us(i));
		uint64_t expected = apic_timer_ticks_to_tsc(ticks);
		uint64_t t0, due, fire;

		nfires = 0;
		t0 = rdtsc_ordered();
		apic_timer_oneshot(ticks);
		if (!wait_fires(1, t0 + late_limit(expected))) {
			t_fail(t,
			       "one-shot of %u ticks (%lu us) did not fire "
			       "within %lu us",
			       ticks, interval_us(i),
			       tsc_to_us(late_limit(expected)));
			break;
		}
		fire = fire_tsc[0];
		due = t0 + expected;
		if (fire + early_slack(expected) < due)
			t_fail(t,
			       "one-shot of %u ticks fired %lu cycles early "
			       "(expected after %lu cycles, fired after %lu)",
			       ticks, due - fire, expected, fire - t0);
		samples_add(&late, sub_sat(fire, due));
		T_EXPECT_EQ(t, "current count after the one-shot fired", 0,
			    apic->read(APIC_TIMER_CURRENT));
		wait_until(fire + 2 * expected);
		T_EXPECT_EQ(t, "interrupts from one one-shot", 1, nfires);
	}
	timer_leave(saved);
	report_samples(t, "apic.timer.oneshot.lateness", apic_mode_of(t), &late,
		       0, 0);
}
APIC_MODE_TESTS(timer_oneshot, "apic.timer.oneshot", apic_timer_oneshot_test);

/*
 * Interrupts against periods ended: fewer interrupts means ticks were
 * merged (a hypervisor that delivers late drops the ticks that come while
 * one is still pending), and the lateness of the k-th interrupt, counted
 * from the k-th period, then includes the periods lost before it.
 */
static void report_periods(struct test_run *t, unsigned fires, uint64_t periods)
{
	struct json j;
	char buf[200];

	json_init(&j, buf, sizeof(buf));
	json_begin(&j, NULL);
	json_str(&j, "name", "apic.timer.periodic.count");
	json_str(&j, "mode", apic_mode_of(t));
	json_str(&j, "unit", "interrupts");
	json_u64(&j, "value", fires);
	json_u64(&j, "periods", periods);
	json_u64(&j, "period_us", PERIOD_US);
	json_end(&j);
	t_metric(t, buf);
}

/*
 * Periodic: PERIOD_FIRES interrupts, the k-th not before k periods after
 * the arming write; after apic_timer_stop() none for a period that had
 * not ended when it returned. (A hypervisor may deliver one that expired
 * just before the stop a little after it.)
 */
static void apic_timer_periodic_test(struct test_run *t)
{
	struct sample_set late;
	enum apic_mode saved;
	uint64_t period, t0, stopped, elapsed;
	uint32_t ticks;
	unsigned n;
	bool all;

	if (!timer_enter(t, false, &saved))
		return;
	ticks = (uint32_t)apic_timer_us_to_ticks(PERIOD_US);
	period = apic_timer_ticks_to_tsc(ticks);
	t0 = rdtsc_ordered();
	apic_timer_periodic(ticks);
	all = wait_fires(PERIOD_FIRES, t0 + late_limit(period * PERIOD_FIRES));
	apic_timer_stop();
	stopped = rdtsc();
	n = nfires;
	wait_until(stopped + 3 * period + ms_to_tsc(1));
	timer_leave(saved);

	if (!all)
		t_fail(t,
		       "%u of %u periodic interrupts (period %u ticks, "
		       "%u us) within %lu us",
		       n, PERIOD_FIRES, ticks, PERIOD_US,
		       tsc_to_us(late_limit(period * PERIOD_FIRES)));
	/* Periods that ended before the stop returned, with the slack. */
	elapsed = (stopped - t0 + early_slack(stopped - t0)) / period;
	if (nfires > elapsed)
		t_fail(t,
		       "%u periodic interrupts, but only %lu periods ended "
		       "before apic_timer_stop() returned (%u before it)",
		       nfires, elapsed, n);
	samples_init(&late, samples, PERIOD_FIRES);
	for (unsigned k = 1; k <= n && k <= PERIOD_FIRES; k++) {
		uint64_t due = t0 + k * period, fire = fire_tsc[k - 1];

		if (fire + early_slack(k * period) < due) {
			t_fail(t,
			       "periodic interrupt %u came %lu cycles early "
			       "(%lu cycles after arming, period %lu)",
			       k, due - fire, fire - t0, period);
			break;
		}
		samples_add(&late, sub_sat(fire, due));
	}
	if (late.n)
		report_samples(t, "apic.timer.periodic.lateness",
			       apic_mode_of(t), &late, 0, 0);
	report_periods(t, nfires, elapsed);
}
APIC_MODE_TESTS(timer_periodic, "apic.timer.periodic",
		apic_timer_periodic_test);

/* Arm a deadline; fail the test if the MSR write faults. */
static bool arm_deadline(struct test_run *t, uint64_t deadline)
{
	if (apic_timer_deadline(deadline) == 0)
		return true;
	t_fail(t, "WRMSR IA32_TSC_DEADLINE (0x6E0) faulted although "
		  "CPUID.1:ECX[24]=1");
	return false;
}

/*
 * Writing 0 to IA32_TSC_DEADLINE disarms: no interrupt at the old
 * deadline. Only conclusive when the disarming write completed before
 * the deadline; a late write (a slow exit) is retried.
 */
static void check_disarm(struct test_run *t)
{
	uint64_t dl, done, v;

	for (int tries = 0; tries < 3; tries++) {
		nfires = 0;
		dl = rdtsc() + us_to_tsc(DISARM_US);
		if (!arm_deadline(t, dl) || !arm_deadline(t, 0))
			return;
		done = rdtsc_ordered();
		wait_until(dl + us_to_tsc(2 * DISARM_US));
		if (done >= dl)
			continue;
		T_EXPECT_EQ(t,
			    "interrupts after writing 0 to "
			    "IA32_TSC_DEADLINE",
			    0, nfires);
		if (apic_timer_read_deadline(&v) == 0)
			T_EXPECT_EQ(t, "IA32_TSC_DEADLINE after writing 0", 0,
				    v);
		return;
	}
	t_diag(t,
	       "disarm check inconclusive: the write to "
	       "IA32_TSC_DEADLINE took longer than %u us",
	       DISARM_US);
}

/*
 * TSC-deadline: the interrupt comes when the TSC reaches the deadline,
 * never before, once; the MSR then reads 0 (SDM: the timer disarms itself
 * and clears IA32_TSC_DEADLINE). A deadline already past fires at once;
 * writing 0 disarms.
 */
static void apic_timer_deadline_test(struct test_run *t)
{
	struct sample_set late;
	enum apic_mode saved;
	uint64_t v;

	if (!timer_enter(t, true, &saved))
		return;
	samples_init(&late, samples, SAMPLES);
	for (int i = 0; i < SAMPLES && !t_failed(t); i++) {
		uint64_t d = us_to_tsc(interval_us(i));
		uint64_t dl = rdtsc() + d, fire;

		nfires = 0;
		if (!arm_deadline(t, dl))
			break;
		if (!wait_fires(1, dl + late_limit(d))) {
			t_fail(t,
			       "TSC deadline %lu us ahead did not fire "
			       "within %lu us",
			       interval_us(i), tsc_to_us(late_limit(d)));
			break;
		}
		fire = fire_tsc[0];
		if (fire < dl)
			t_fail(t,
			       "TSC-deadline interrupt %lu cycles before the "
			       "deadline",
			       dl - fire);
		samples_add(&late, sub_sat(fire, dl));
		if (apic_timer_read_deadline(&v) == 0)
			T_EXPECT_EQ(t, "IA32_TSC_DEADLINE after it fired", 0,
				    v);
		wait_until(fire + 2 * d);
		T_EXPECT_EQ(t, "interrupts from one deadline", 1, nfires);
	}

	/* A deadline in the past (but not 0, which disarms) fires at once. */
	if (!t_failed(t)) {
		uint64_t t0 = rdtsc();

		nfires = 0;
		if (arm_deadline(t, 1) &&
		    !wait_fires(1, t0 + ms_to_tsc(LATE_MS)))
			t_fail(t,
			       "a deadline in the past did not fire within "
			       "%u ms",
			       LATE_MS);
	}
	if (!t_failed(t))
		check_disarm(t);
	timer_leave(saved);
	if (late.n)
		report_samples(t, "apic.timer.tsc_deadline.lateness",
			       apic_mode_of(t), &late, 0, 0);
}
APIC_MODE_TESTS(timer_deadline, "apic.timer.tsc_deadline",
		apic_timer_deadline_test);

/*
 * The calibrated rate, and a second measurement of it against the TSC
 * over 10 ms: within RATE_FACTOR (the calibration itself is reported with
 * its error bound; this only catches a timer that does not count at the
 * calibrated rate at all).
 */
static void apic_timer_rate(struct test_run *t)
{
	uint32_t c0, c1;
	uint64_t t0, t1, ticks, hz;
	struct json j;
	char buf[256];
	enum apic_mode saved;

	if (!timer_enter(t, false, &saved))
		return;
	apic_timer_oneshot(0xFFFFFFFFu);
	t0 = rdtsc_ordered();
	c0 = apic->read(APIC_TIMER_CURRENT);
	tsc_delay_us(10000);
	c1 = apic->read(APIC_TIMER_CURRENT);
	t1 = rdtsc_ordered();
	timer_leave(saved);
	if (!T_ASSERT(t, c1 < c0))
		return;
	ticks = c0 - c1;
	hz = muldiv64(ticks, tsc.hz, t1 - t0);
	if (hz * RATE_FACTOR < apic_timer_hz() ||
	    hz > apic_timer_hz() * RATE_FACTOR)
		t_fail(t,
		       "APIC timer counted %lu ticks in %lu us: %lu Hz, "
		       "calibrated %lu Hz",
		       ticks, tsc_to_us(t1 - t0), hz, apic_timer_hz());

	json_init(&j, buf, sizeof(buf));
	json_begin(&j, NULL);
	json_str(&j, "name", "apic.timer.hz");
	json_str(&j, "mode", apic_mode_of(t));
	json_str(&j, "unit", "Hz");
	json_u64(&j, "value", apic_timer_hz());
	json_u64(&j, "bound_ppm", apic_timer_bound_ppm());
	json_u64(&j, "remeasured", hz);
	json_bool(&j, "tsc_deadline", apic_timer_has_deadline());
	json_end(&j);
	t_metric(t, buf);
}
APIC_MODE_TESTS(timer_rate, "apic.timer.rate", apic_timer_rate);

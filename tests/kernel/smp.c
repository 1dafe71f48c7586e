/*
 * smp.*: every CPU the MADT lists comes up; a call reaches the CPU it
 * names and runs there; a call that cannot complete times out and says
 * so instead of hanging the caller (the hang of the original BTS report
 * was a CPU waiting forever on such a call); an IPI round trip between
 * two CPUs, timed (ipi.cross.roundtrip) as is the call (smp_call.latency).
 */
#include "kernel/smp.h"
#include "drivers/lapic.h"
#include "kernel/arch.h"
#include "kernel/cpu.h"
#include "kernel/measure.h"
#include "kernel/test.h"
#include "kernel/time.h"
#include "kernel/trap.h"
#include "kernel/vectors.h"

#define CALL_TIMEOUT_MS 200
#define VEC_PING	(VEC_TEST_BASE + 8)
#define VEC_PONG	(VEC_TEST_BASE + 9)

static bool need_two(struct test_run *t)
{
	if (smp_cpus_online() >= 2)
		return true;
	t_skip(t, "one CPU online (the MADT lists %u enabled%s%s)",
	       smp_info.listed, smp_info.note[0] ? "; " : "", smp_info.note);
	return false;
}

static void smp_boot(struct test_run *t)
{
	unsigned expect = smp_info.listed;

	if (!apic)
		return t_skip(t, "no local APIC (CPUID.1:EDX[9]=0)");
	if (expect > MAX_CPUS)
		expect = MAX_CPUS;
	T_EXPECT_EQ(t, "CPUs online (listed and enabled, up to the cap)",
		    expect, smp_cpus_online());
	T_EXPECT_EQ(t, "CPUs that did not start", 0, smp_info.failed);
	for (unsigned i = 0; i < smp_cpus_online(); i++)
		if (!cpus[i].online)
			t_fail(t, "CPU %u (APIC ID %u) is not online", i,
			       cpus[i].apic_id);
}
TEST_CASE(boot, .name = "smp.boot", .fn = smp_boot);

struct where {
	unsigned index;
	uint32_t apic_id;
};

static void where_am_i(void *arg)
{
	struct where *w = arg;

	w->index = this_cpu()->index;
	w->apic_id = apic->id();
}

static void smp_call_each(struct test_run *t)
{
	if (!need_two(t))
		return;
	for (unsigned i = 0; i < smp_cpus_online(); i++) {
		struct where w = { 99, 0xFFFFFFFF };
		enum smp_call_result r =
			smp_call(i, where_am_i, &w, CALL_TIMEOUT_MS);

		if (r != SMP_CALL_OK) {
			t_fail(t, "call to CPU %u: %s", i,
			       smp_call_result_name(r));
			continue;
		}
		T_EXPECT_EQ(t, "index of the CPU that ran the call", i,
			    w.index);
		T_EXPECT_EQ(t, "APIC ID of the CPU that ran the call",
			    cpus[i].apic_id, w.apic_id);
	}
}
TEST_CASE(call, .name = "smp.call", .fn = smp_call_each);

static volatile unsigned counted;

static void count_me(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&counted, 1u << this_cpu()->index, __ATOMIC_RELAXED);
}

static void smp_on_each(struct test_run *t)
{
	unsigned n = smp_cpus_online();

	counted = 0;
	T_EXPECT_EQ(t, "failed calls", 0,
		    on_each_cpu(count_me, 0, CALL_TIMEOUT_MS));
	T_EXPECT_EQ(t, "bitmap of CPUs that ran it", (1u << n) - 1, counted);
}
TEST_CASE(each, .name = "smp.on_each_cpu", .fn = smp_on_each);

static volatile bool spin_release;

static void spin_until_released(void *arg)
{
	uint64_t end = rdtsc() + ms_to_tsc(2000);

	(void)arg;
	while (!spin_release && rdtsc() < end)
		cpu_relax();
}

static void nothing(void *arg)
{
	(void)arg;
}

/* A call the target cannot finish in time: timeout, then busy, then ok. */
static void smp_call_timeout(struct test_run *t)
{
	unsigned target;
	uint64_t t0, waited;
	enum smp_call_result r;

	if (!need_two(t))
		return;
	target = smp_cpus_online() - 1;
	spin_release = false;
	t0 = rdtsc();
	r = smp_call(target, spin_until_released, 0, 50);
	waited = rdtsc() - t0;
	T_EXPECT_EQ(t, "result of a call that cannot finish", SMP_CALL_TIMEOUT,
		    r);
	if (waited < ms_to_tsc(50))
		t_fail(t, "timed out after %lu us, before its 50 ms",
		       tsc_to_us(waited));
	T_EXPECT_EQ(t, "result of a call to the still busy CPU", SMP_CALL_BUSY,
		    smp_call(target, nothing, 0, 50));
	spin_release = true;
	tsc_delay_us(20000);
	T_EXPECT_EQ(t, "result once the CPU is free again", SMP_CALL_OK,
		    smp_call(target, nothing, 0, CALL_TIMEOUT_MS));
}
TEST_CASE(timeout, .name = "smp.call.timeout", .fn = smp_call_timeout);

static uint64_t time_call(void *arg)
{
	unsigned target = *(unsigned *)arg;
	uint64_t t0 = rdtsc_ordered();

	if (smp_call(target, nothing, 0, CALL_TIMEOUT_MS) != SMP_CALL_OK)
		return MEASURE_FAILED;
	return rdtsc_ordered() - t0;
}

static void smp_call_latency(struct test_run *t)
{
	unsigned target = 1;

	if (!need_two(t))
		return;
	measure_and_report(t, "smp_call.latency", lapic_mode_name(lapic_mode()),
			   time_call, &target);
}
TEST_CASE(call_lat, .name = "smp.call.latency", .fn = smp_call_latency);

static volatile unsigned pongs;
static volatile uint64_t pong_tsc;

static void ping_handler(struct trap_frame *f)
{
	(void)f;
	lapic_eoi();
	apic->send(cpus[0].apic_id, APIC_DM_FIXED | VEC_PONG);
}

static void pong_handler(struct trap_frame *f)
{
	(void)f;
	pong_tsc = rdtsc();
	pongs++;
	lapic_eoi();
}

static uint64_t one_roundtrip(void *arg)
{
	unsigned before = pongs;
	uint64_t t0 = rdtsc_ordered(), end = t0 + ms_to_tsc(CALL_TIMEOUT_MS);

	(void)arg;
	apic->send(cpus[1].apic_id, APIC_DM_FIXED | VEC_PING);
	while (pongs == before)
		if (rdtsc() > end)
			return MEASURE_FAILED;
	return pong_tsc - t0;
}

static void smp_ipi_roundtrip(struct test_run *t)
{
	if (!need_two(t))
		return;
	if (this_cpu()->index != 0)
		return t_skip(t, "runs on the boot CPU only");
	trap_set_handler(VEC_PING, ping_handler);
	trap_set_handler(VEC_PONG, pong_handler);
	measure_and_report(t, "ipi.cross.roundtrip",
			   lapic_mode_name(lapic_mode()), one_roundtrip, 0);
	trap_set_handler(VEC_PING, 0);
	trap_set_handler(VEC_PONG, 0);
}
TEST_CASE(roundtrip, .name = "smp.ipi_roundtrip", .fn = smp_ipi_roundtrip);

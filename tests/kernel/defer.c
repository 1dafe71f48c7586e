/*
 * defer.*: the irq_work-like deferral (kernel/defer.c) driven from NMIs,
 * as the BTS "switch" drain strategy uses it. Work queued in an NMI runs
 * exactly once and in queueing order, with each way of sending the
 * self-IPI; it waits while interrupts are disabled and runs as soon as
 * they are enabled; a burst of NMIs loses no record. The deferral latency
 * (self-IPI sent inside the NMI to the work starting) is the metric
 * defer.nmi_to_ipi, per APIC mode.
 */
#include "kernel/defer.h"
#include "drivers/lapic.h"
#include "kernel/arch.h"
#include "kernel/keyfig.h"
#include "kernel/measure.h"
#include "kernel/nmi.h"
#include "kernel/test.h"
#include "kernel/time.h"
#include "lib/format.h"
#include "tests/kernel/apic_mode.h"

#define NWORK	4
#define WAIT_MS 100
#define BURST	1000
#define RING	2048

static volatile bool armed;
static volatile unsigned nmis;
static unsigned order[16], norder;
static volatile uint64_t work_tsc, send_tsc;

static void record(struct defer_work *w);

static struct defer_work works[NWORK] = {
	DEFER_WORK_INIT(record),
	DEFER_WORK_INIT(record),
	DEFER_WORK_INIT(record),
	DEFER_WORK_INIT(record),
};

static void record(struct defer_work *w)
{
	if (norder == 0)
		work_tsc = rdtsc();
	if (norder < 16)
		order[norder] = (unsigned)(w - works);
	norder++;
}

/* Queue every work item, in index order, from inside the NMI. */
static bool queue_all_nmi(struct trap_frame *f)
{
	(void)f;
	if (!armed)
		return false;
	armed = false;
	for (int i = 0; i < NWORK; i++)
		defer_queue(&works[i]);
	send_tsc = defer_last_send_tsc();
	nmis++;
	return true;
}

static void self_nmi(void)
{
	armed = true;
	apic->send(apic->id(), APIC_DM_NMI);
}

static bool wait_until(volatile unsigned *v, unsigned n)
{
	uint64_t end = rdtsc() + ms_to_tsc(WAIT_MS);

	while (*v < n)
		if (rdtsc() > end)
			return false;
	return true;
}

static void check_once_in_order(struct test_run *t, const char *how)
{
	norder = 0;
	self_nmi();
	if (!wait_until((volatile unsigned *)&norder, NWORK)) {
		t_fail(t, "%s: %u of %d work items ran", how, norder, NWORK);
		return;
	}
	tsc_delay_us(1000); /* time for a duplicate run to show */
	if (norder != NWORK)
		t_fail(t, "%s: %u runs for %d work items", how, norder, NWORK);
	for (unsigned i = 0; i < NWORK && i < norder; i++)
		if (order[i] != i)
			t_fail(t, "%s: work item %u ran as number %u", how,
			       order[i], i);
}

static void defer_once_in_order(struct test_run *t)
{
	static const struct {
		enum defer_ipi how;
		const char *name;
	} ways[] = {
		{ DEFER_IPI_SHORTHAND, "ICR self shorthand" },
		{ DEFER_IPI_DEST, "ICR to own ID" },
		{ DEFER_IPI_MSR, "SELF IPI register" },
	};
	enum apic_mode saved;

	if (!apic_mode_enter(t, &saved))
		return;
	nmi_register(queue_all_nmi);
	for (unsigned i = 0; i < sizeof(ways) / sizeof(ways[0]); i++) {
		if (ways[i].how == DEFER_IPI_MSR &&
		    lapic_mode() != APIC_MODE_X2APIC)
			continue;
		defer_set_ipi(ways[i].how);
		check_once_in_order(t, ways[i].name);
	}
	defer_set_ipi(DEFER_IPI_SHORTHAND);
	nmi_unregister(queue_all_nmi);
	apic_mode_leave(saved);
}
APIC_MODE_TESTS(once, "defer.nmi.once_in_order", defer_once_in_order);

/*
 * NMIs are not masked by IF, the deferred work is: queued from an NMI that
 * hit a section with interrupts disabled, it must wait for STI.
 */
static void defer_irqs_disabled(struct test_run *t)
{
	enum apic_mode saved;
	unsigned ran_while_disabled;

	if (!apic_mode_enter(t, &saved))
		return;
	nmi_register(queue_all_nmi);
	norder = 0;
	nmis = 0;
	irq_disable();
	self_nmi();
	wait_until(&nmis, 1);
	tsc_delay_us(2000);
	ran_while_disabled = norder;
	irq_enable();
	wait_until((volatile unsigned *)&norder, NWORK);
	T_EXPECT_EQ(t, "NMIs taken with interrupts disabled", 1, nmis);
	T_EXPECT_EQ(t, "work run while interrupts were disabled", 0,
		    ran_while_disabled);
	T_EXPECT_EQ(t, "work run after STI", NWORK, norder);
	nmi_unregister(queue_all_nmi);
	apic_mode_leave(saved);
}
APIC_MODE_TESTS(cli, "defer.nmi.irqs_disabled", defer_irqs_disabled);

/*
 * A burst of NMIs, each leaving a sequence number in a ring and queueing
 * one drain: the drain sees every number once, in order. NMIs the
 * hardware merged (one can be pending while another is handled) never
 * reach the handler, so the check is against the NMIs handled.
 */
static uint64_t ring[RING];
static volatile unsigned ring_head, ring_tail, handled, drained, gaps;
static volatile uint64_t next_expected;

static void drain(struct defer_work *w)
{
	(void)w;
	while (ring_tail != __atomic_load_n(&ring_head, __ATOMIC_ACQUIRE)) {
		uint64_t seq = ring[ring_tail % RING];

		if (seq != next_expected)
			gaps++;
		next_expected = seq + 1;
		ring_tail++;
		drained++;
	}
}

static struct defer_work drain_work = DEFER_WORK_INIT(drain);

static bool burst_nmi(struct trap_frame *f)
{
	(void)f;
	if (!armed)
		return false;
	if (ring_head - ring_tail < RING) {
		ring[ring_head % RING] = handled;
		__atomic_store_n(&ring_head, ring_head + 1, __ATOMIC_RELEASE);
	}
	handled++;
	defer_queue(&drain_work);
	return true;
}

static void defer_burst(struct test_run *t)
{
	enum apic_mode saved;
	char json[160];

	if (!apic_mode_enter(t, &saved))
		return;
	ring_head = ring_tail = handled = drained = gaps = 0;
	next_expected = 0;
	nmi_register(burst_nmi);
	armed = true;
	for (int i = 0; i < BURST; i++)
		apic->send(apic->id(), APIC_DM_NMI);
	tsc_delay_us(5000);
	armed = false;
	wait_until(&drained, handled);
	nmi_unregister(burst_nmi);
	T_ASSERT(t, handled > 0);
	T_EXPECT_EQ(t, "records drained (one per NMI handled)", handled,
		    drained);
	T_EXPECT_EQ(t, "sequence gaps or repeats", 0, gaps);
	lib_snprintf(json, sizeof(json),
		     "{\"name\":\"defer.nmi.burst\",\"mode\":\"%s\","
		     "\"unit\":\"nmis\",\"value\":%u,\"sent\":%d}",
		     apic_mode_of(t), handled, BURST);
	t_metric(t, json);
	apic_mode_leave(saved);
}
APIC_MODE_TESTS(burst, "defer.nmi.burst", defer_burst);

static uint64_t one_deferral(void *arg)
{
	(void)arg;
	norder = 0;
	self_nmi();
	if (!wait_until((volatile unsigned *)&norder, NWORK))
		return MEASURE_FAILED;
	return work_tsc - send_tsc;
}

static void latency_as(struct test_run *t, const char *metric, bool key)
{
	enum apic_mode saved;

	if (!apic_mode_enter(t, &saved))
		return;
	nmi_register(queue_all_nmi);
	measure_and_report(t, metric, apic_mode_of(t), one_deferral, 0);
	if (key)
		key_figure("deferral NMI->IPI", "%s: median %lu cycles",
			   apic_mode_of(t), measure_last_median());
	nmi_unregister(queue_all_nmi);
	apic_mode_leave(saved);
}

static void defer_latency(struct test_run *t)
{
	latency_as(t, "defer.nmi_to_ipi", true);
}

APIC_MODE_TESTS(latency, "defer.latency", defer_latency);

/*
 * char.defer_latency: the same figure under the characterization group's
 * name, from the self-IPI sent inside the NMI to the deferred work
 * starting, xAPIC versus x2APIC.
 */
static void char_defer_latency(struct test_run *t)
{
	latency_as(t, "char.defer_latency", false);
}
APIC_MODE_TESTS(char_latency, "char.defer_latency", char_defer_latency);

/*
 * char.*: characterization experiments, part of the default suite. Each
 * drives the BTS model through a drain strategy
 * and the real PMI path, checks produced == delivered + lost, and prints
 * its figures as metrics (fields as docs/report.md expects).
 *
 * char.duty_cycle: at rising rates, the share of CPU time spent in
 * overflow handling and the share of traced work that still gets done, per
 * strategy; the first rate where progress falls below 1 % is the livelock
 * point. A livelocked CPU never returns to the experiment's loop, so the
 * PMI path itself ends the run at the deadline (the flood guard).
 *
 * char.smp_call_under_flood: the hang of the original report. CPU 1 calls
 * CPU 0 again and again while CPU 0 takes overflows at the highest rate.
 * With inline draining the calls should time out (CPU 0 never leaves its
 * NMIs); with switch they complete. Needs two CPUs.
 */
#include "drivers/bts_model.h"
#include "kernel/arch.h"
#include "kernel/bts.h"
#include "kernel/cpu.h"
#include "kernel/defer.h"
#include "kernel/keyfig.h"
#include "kernel/measure.h"
#include "kernel/options.h"
#include "kernel/pmm.h"
#include "kernel/smp.h"
#include "kernel/test.h"
#include "kernel/time.h"
#include "lib/consumer.h"
#include "lib/drain.h"
#include "lib/format.h"
#include "lib/json.h"
#include "lib/rec_format.h"
#include "lib/ring.h"
#include "lib/stats.h"
#include "lib/string.h"

#define SPARES		2
#define RING_BYTES	(1024 * 1024)
#define RUN_MS		50
#define FLOOD_MS	400
#define CALL_TIMEOUT_MS 50
#define MAX_CALLS	256

static struct {
	struct drain d;
	struct consumer cons;
	struct consumer_set set;
	struct defer_work work;
	struct bts_session s;
	void *bufs[1 + SPARES];
	void *ring_mem;
	uint8_t rd[64 * 1024];
	volatile uint64_t deferred_cycles;
} x;

static volatile uint64_t work_done;

static void traced_work(void)
{
	for (int i = 0; i < 200; i++)
		work_done = work_done + 1;
}

static void run_deferred(struct defer_work *w)
{
	uint64_t t0 = rdtsc();

	(void)w;
	drain_deferred(&x.d);
	x.deferred_cycles += rdtsc() - t0;
}

static void env_defer(void *ctx)
{
	(void)ctx;
	defer_queue(&x.work);
}

static void env_kick(void *ctx)
{
	(void)ctx;
	apic->send(apic->id(), APIC_DM_NMI);
}

static void empty_ring(void)
{
	while (ring_read(&x.cons.ring, x.rd, sizeof(x.rd) / BTS_RECORD_SIZE))
		;
}

/* A session: the model through strategy id, a noloss raw consumer. */
/* Buffer sizes of the duty-cycle series, and the largest one allocated. */
static const uint32_t duty_sizes[] = { 512, 2048 };
#define DUTY_MAX_RECORDS 2048

static int start_sized(enum drain_id id, uint32_t records, char *err,
		       size_t len);

static int start(enum drain_id id, char *err, size_t len)
{
	return start_sized(id, (uint32_t)bts_settings.records, err, len);
}

static int start_sized(enum drain_id id, uint32_t records, char *err,
		       size_t len)
{
	struct bts_config cfg;
	struct drain_cfg dc;
	struct ring_cfg rc = {
		.mode = RING_NOLOSS,
		.fmt = rec_format_get(REC_RAW),
		.bytes = RING_BYTES,
		.cpu = (uint16_t)this_cpu()->index,
	};
	uint64_t bytes = (uint64_t)(bts_settings.records > DUTY_MAX_RECORDS
					    ? bts_settings.records
					    : DUTY_MAX_RECORDS) *
			 BTS_RECORD_SIZE;

	for (int i = 0; i < 1 + SPARES; i++)
		if (!x.bufs[i] && !(x.bufs[i] = pmm_alloc(bytes)))
			return lib_snprintf(err, len, "no memory"), -1;
	if (!x.ring_mem && !(x.ring_mem = pmm_alloc(RING_BYTES)))
		return lib_snprintf(err, len, "no memory"), -1;
	rc.mem = x.ring_mem;
	bts_default_config(&cfg);
	if (records != cfg.records) {
		cfg.records = records;
		cfg.threshold = records - records / 16;
	}
	memset(&dc, 0, sizeof(dc));
	dc.ds = bts_ds_area();
	dc.nbufs = id == DRAIN_SWITCH ? 1 + SPARES : 1;
	for (size_t i = 0; i < dc.nbufs; i++)
		dc.bufs[i] = x.bufs[i];
	dc.buf_records = cfg.records;
	dc.headroom = cfg.records - cfg.threshold;
	dc.policy = DRAIN_HEADROOM;
	dc.dropped = bts_model_dropped_counter();
	dc.written = bts_model_written_counter();
	dc.sink.emit = consumer_set_emit;
	dc.sink.ctx = &x.set;
	dc.env.defer = env_defer;
	dc.env.kick = env_kick;
	x.work = (struct defer_work)DEFER_WORK_INIT(run_deferred);
	x.deferred_cycles = 0;
	if (consumer_init(&x.cons, CF_BOTH, NULL, &rc))
		return lib_snprintf(err, len, "consumer refused"), -1;
	x.set.n = 0;
	consumer_set_add(&x.set, &x.cons);
	bts_model_reset_counts();
	bts_model_set_source(MODEL_SYNTHETIC);
	if (drain_init(&x.d, id, &dc))
		return lib_snprintf(err, len, "drain_init refused"), -1;
	return bts_start_strategy(&x.s, &bts_model, &cfg, &x.d, err,
				  (unsigned)len);
}

/* Stop, drain what is left, and check the producer's account. */
static void finish(struct test_run *t, const char *what)
{
	struct bts_account a;

	bts_stop(&x.s);
	consumer_set_flush(&x.set);
	empty_ring();
	bts_account_read(&x.d.acct, &a);
	if (!bts_account_balanced(&a))
		t_fail(t, "%s: produced != delivered + lost (off by %ld)", what,
		       bts_account_imbalance(&a));
}

static uint64_t thr_of(const struct bts_session *s)
{
	return s->ds->bts_int_threshold;
}

/* --- duty cycle ---------------------------------------------------------- */

/* Rates from char.rates= in records per millisecond, which is also the
 * model's unit, thousandths of records per microsecond. */
#define rates  settings.char_rates.v
#define nrates settings.char_rates.n

static uint64_t baseline_work(void)
{
	uint64_t end = rdtsc() + ms_to_tsc(RUN_MS);

	work_done = 0;
	while (rdtsc() < end)
		traced_work();
	return work_done;
}

static void duty_series(struct test_run *t, enum drain_id id, uint64_t base,
			uint32_t records)
{
	const char *name = drain_ops_get(id)->name;
	uint64_t livelock = 0;
	char json[400], err[96];
	struct json j;

	for (unsigned i = 0; i < nrates; i++) {
		uint64_t t0, end, elapsed, busy, progress_milli, duty_milli;

		if (start_sized(id, records, err, sizeof(err))) {
			t_fail(t, "%s: %s", name, err);
			return;
		}
		work_done = 0;
		t0 = rdtsc();
		end = t0 + ms_to_tsc(RUN_MS);
		x.s.stop_tsc = end;
		bts_model_set_rate(rates[i]);
		while (x.s.active && rdtsc() < end) {
			traced_work();
			bts_model_tick();
			empty_ring();
		}
		elapsed = rdtsc() - t0;
		busy = x.s.handler_cycles + x.deferred_cycles;
		finish(t, name);
		duty_milli = busy * 100000 / (elapsed ? elapsed : 1);
		progress_milli = base ? work_done * 100000 / base : 0;
		if (!livelock && progress_milli < 1000)
			livelock = rates[i];
		json_init(&j, json, sizeof(json));
		json_begin(&j, 0);
		json_str(&j, "name", "char.duty_cycle");
		json_str(&j, "strategy", name);
		json_u64(&j, "buffer", records);
		json_milli(&j, "rate", (int64_t)rates[i]);
		json_str(&j, "rate_unit", "records/us");
		json_str(&j, "unit", "%");
		json_milli(&j, "value", (int64_t)duty_milli);
		json_milli(&j, "progress", (int64_t)progress_milli);
		json_u64(&j, "pmis", x.s.pmis);
		json_bool(&j, "stopped_by_guard", x.s.stopped_by_guard);
		json_end(&j);
		t_metric(t, json);
	}
	if (livelock)
		key_figure("livelock",
			   "%s: progress below 1%% from %lu.%03lu "
			   "records/us (buffer %u)",
			   name, livelock / 1000, livelock % 1000, records);
	else
		key_figure("livelock", "%s: not reached up to %lu records/us",
			   name, rates[nrates - 1] / 1000);
	json_init(&j, json, sizeof(json));
	json_begin(&j, 0);
	json_str(&j, "name", "char.duty_cycle.livelock");
	json_str(&j, "strategy", name);
	json_u64(&j, "buffer", records);
	json_str(&j, "unit", "records/us");
	json_milli(&j, "value", (int64_t)livelock);
	json_bool(&j, "reached", livelock != 0);
	json_end(&j);
	t_metric(t, json);
}

static void char_duty_cycle(struct test_run *t)
{
	uint64_t base;

	if (!apic)
		return t_skip(t, "no local APIC (CPUID.1:EDX[9]=0)");
	base = baseline_work();
	T_ASSERT(t, base > 0);
	for (unsigned k = 0; k < sizeof(duty_sizes) / sizeof(duty_sizes[0]);
	     k++) {
		duty_series(t, DRAIN_INLINE, base, duty_sizes[k]);
		duty_series(t, DRAIN_SWITCH, base, duty_sizes[k]);
	}
}
TEST_CASE(duty, .name = "char.duty_cycle", .fn = char_duty_cycle,
	  .timeout_ms = 120000);

/* --- smp_call under an overflow flood ------------------------------------ */

static volatile bool flood_over;
static uint64_t lat[MAX_CALLS];
static struct sample_set lat_set;
static volatile unsigned calls_ok, calls_timeout, calls_busy;

static void nothing(void *arg)
{
	(void)arg;
}

/* On CPU 1: call CPU 0 until the flood is over. */
static void caller(void *arg)
{
	(void)arg;
	while (!flood_over) {
		uint64_t t0 = rdtsc();
		enum smp_call_result r =
			smp_call(0, nothing, 0, CALL_TIMEOUT_MS);

		if (r == SMP_CALL_OK) {
			calls_ok++;
			samples_add(&lat_set, rdtsc() - t0);
		} else if (r == SMP_CALL_TIMEOUT) {
			calls_timeout++;
		} else {
			calls_busy++;
			tsc_delay_us(1000);
		}
	}
}

static void flood(struct test_run *t, enum drain_id id)
{
	const char *name = drain_ops_get(id)->name;
	uint64_t seq, end;
	char err[96], json[256];

	samples_init(&lat_set, lat, MAX_CALLS);
	calls_ok = calls_timeout = calls_busy = 0;
	flood_over = false;
	if (start(id, err, sizeof(err)))
		return t_fail(t, "%s: %s", name, err);
	end = rdtsc() + ms_to_tsc(FLOOD_MS);
	x.s.stop_tsc = end + ms_to_tsc(100);
	if (smp_call_post(1, caller, 0, &seq) != SMP_CALL_OK) {
		finish(t, name);
		return t_fail(t, "%s: could not start the caller on CPU 1",
			      name);
	}
	bts_model_set_rate(MODEL_RATE_MAX);
	while (x.s.active && rdtsc() < end) {
		traced_work();
		bts_model_tick();
		empty_ring();
	}
	finish(t, name);
	flood_over = true;
	if (smp_call_wait(1, seq, 2000) != SMP_CALL_OK)
		return t_fail(t, "%s: the caller on CPU 1 did not finish",
			      name);
	lib_snprintf(
		json, sizeof(json),
		"{\"name\":\"char.smp_call_under_flood.calls\",\"strategy\":"
		"\"%s\",\"unit\":\"calls\",\"value\":%u,\"timeouts\":%u,"
		"\"busy\":%u,\"timeout_ms\":%d,\"pmis\":%lu}",
		name, calls_ok, calls_timeout, calls_busy, CALL_TIMEOUT_MS,
		x.s.pmis);
	t_metric(t, json);
	if (lat_set.n)
		report_samples(t, "char.smp_call_under_flood", name, &lat_set,
			       0, 0);
	t_diag(t,
	       "%s: %u calls completed, %u timed out, %u found CPU 0 still "
	       "busy with an earlier call",
	       name, calls_ok, calls_timeout, calls_busy);
	key_figure("smp_call under flood",
		   "%s: %u completed, %u timed out, %u refused busy", name,
		   calls_ok, calls_timeout, calls_busy);
	if (id == DRAIN_SWITCH && !calls_ok)
		t_fail(t, "switch: no call completed under the flood");
}

static void char_smp_call_under_flood(struct test_run *t)
{
	if (!apic)
		return t_skip(t, "no local APIC (CPUID.1:EDX[9]=0)");
	if (smp_cpus_online() < 2)
		return t_skip(t, "needs 2 CPUs, %u online", smp_cpus_online());
	if (this_cpu()->index != 0)
		return t_skip(t, "runs on the boot CPU");
	flood(t, DRAIN_INLINE);
	flood(t, DRAIN_SWITCH);
}
TEST_CASE(flood, .name = "char.smp_call_under_flood",
	  .fn = char_smp_call_under_flood, .timeout_ms = 60000);

/* --- trace gap -------------------------------------------------------------- */

/*
 * Per strategy, at a rate each keeps up with: records lost per overflow
 * and the blind window, the cycles per overflow with tracing off in the
 * PMI path (the deferred half of "switch" runs with tracing on).
 */
#define GAP_RATE 1000 /* records per ms */

static void char_trace_gap(struct test_run *t)
{
	static const enum drain_id ids[] = { DRAIN_INLINE, DRAIN_SWITCH };
	char err[96], json[320];

	if (!apic)
		return t_skip(t, "no local APIC (CPUID.1:EDX[9]=0)");
	for (unsigned k = 0; k < 2; k++) {
		const char *name = drain_ops_get(ids[k])->name;
		struct bts_account a;
		uint64_t end, lost, pmis;

		if (start(ids[k], err, sizeof(err)))
			return t_fail(t, "%s: %s", name, err);
		end = rdtsc() + ms_to_tsc(RUN_MS);
		x.s.stop_tsc = end + ms_to_tsc(RUN_MS);
		bts_model_set_rate(GAP_RATE);
		while (x.s.active && rdtsc() < end) {
			traced_work();
			bts_model_tick();
			empty_ring();
		}
		pmis = x.s.pmis;
		finish(t, name);
		bts_account_read(&x.d.acct, &a);
		lost = bts_account_lost_total(&a);
		if (!pmis) {
			t_diag(t, "%s: no overflow at %d records/ms", name,
			       GAP_RATE);
			continue;
		}
		lib_snprintf(json, sizeof(json),
			     "{\"name\":\"char.trace_gap\",\"strategy\":\"%s\","
			     "\"buffer\":%lu,\"rate\":%d,\"rate_unit\":"
			     "\"records/ms\",\"unit\":\"records/overflow\","
			     "\"value\":%lu,\"lost\":%lu,\"overflows\":%lu,"
			     "\"blind_cycles_per_overflow\":%lu}",
			     name, bts_settings.records, GAP_RATE, lost / pmis,
			     lost, pmis, x.s.handler_cycles / pmis);
		t_metric(t, json);
		key_figure("trace gap",
			   "%s: %lu records lost and %lu cycles "
			   "blind per overflow",
			   name, lost / pmis, x.s.handler_cycles / pmis);
	}
}
TEST_CASE(gap, .name = "char.trace_gap", .fn = char_trace_gap,
	  .timeout_ms = 60000);

/* --- PMI latency ------------------------------------------------------------ */

/*
 * Threshold crossing to handler entry, NMI versus fixed vector. Without
 * BTS hardware this is the model's figure (it raises the PMI through the
 * real local APIC), and the metric says so.
 */
static void pmi_latency(struct test_run *t, enum lvtpc_delivery how)
{
	static uint64_t buf[256];
	struct sample_set ss;
	struct bts_session s;
	struct bts_config cfg;
	struct model_counts mc;
	char err[96];
	uint64_t stop;

	bts_default_config(&cfg);
	cfg.delivery = how;
	bts_model_reset_counts();
	bts_model_set_source(MODEL_SYNTHETIC);
	if (bts_start(&s, &bts_model, &cfg, 0, err, sizeof(err)))
		return t_fail(t, "%s", err);
	samples_init(&ss, buf, 256);
	stop = rdtsc() + ms_to_tsc(3000);
	for (unsigned i = 0; i < settings.char_repeat && rdtsc() < stop; i++) {
		uint64_t before = s.pmis;

		while (s.pmis == before && rdtsc() < stop) {
			uint64_t idx = s.ds->bts_index;
			uint64_t thr = s.ds->bts_int_threshold;
			uint64_t left = idx < thr ? (thr - idx) / 24 : 0;

			bts_model_produce(left > 1 ? left - 1 : 1);
		}
		bts_model_counts(&mc);
		if (s.pmis != before && s.entry_tsc > mc.raise_tsc &&
		    s.entry_index >= thr_of(&s))
			samples_add(&ss, s.entry_tsc - mc.raise_tsc);
	}
	bts_stop(&s);
	if (!ss.n)
		return t_fail(t, "no PMI latency sample");
	report_samples(t,
		       how == LVTPC_NMI ? "char.pmi_latency.model.nmi"
					: "char.pmi_latency.model.vector",
		       how == LVTPC_NMI ? "nmi" : "vector", &ss, 0, 0);
	key_figure("PMI latency (model)", "%s: median %lu cycles",
		   how == LVTPC_NMI ? "nmi" : "vector", measure_last_median());
}

static void char_pmi_latency(struct test_run *t)
{
	if (!apic)
		return t_skip(t, "no local APIC (CPUID.1:EDX[9]=0)");
	pmi_latency(t, LVTPC_NMI);
	pmi_latency(t, LVTPC_VECTOR);
}
TEST_CASE(pmi_lat, .name = "char.pmi_latency", .fn = char_pmi_latency,
	  .timeout_ms = 60000);

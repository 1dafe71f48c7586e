/*
 * drain.cost: what each drain design costs per record and per buffer, for
 * buffer sizes from 64 to 16384 records, next to a plain memcpy of the
 * same bytes measured in the same boot (the physical limit), and to the
 * per-record output path of Linux's first BTS code (one output call per
 * record), the baseline to beat. Figures, not verdicts: the test fails
 * only if a measurement cannot be made or the accounts do not balance.
 *
 * Each sample times one drain of a full buffer, called directly (the PMI
 * path's own cost is bts.pmi_latency's subject): inline drains in
 * drain_pmi; switch swaps buffers in drain_pmi and copies in
 * drain_deferred (both timed); snapshot copies the newest records out of
 * the circular buffer. The consumer's ring is emptied between samples.
 *
 * The cost of filtering by mode in software (lib/consumer.c) sits next
 * to it: inline/noloss/raw with a user-only and a kernel-only consumer,
 * on the same records as the unfiltered one (a mix like a traced
 * program's: runs of 200 user records, an entry, 54 kernel records, an
 * exit), with the unfiltered median of the same size and boot.
 */
#include "kernel/arch.h"
#include "kernel/cpu.h"
#include "kernel/cpuinfo.h"
#include "kernel/keyfig.h"
#include "kernel/measure.h"
#include "kernel/options.h"
#include "kernel/pmm.h"
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

#define MAX_RECORDS  16384
#define RING_BYTES   (MAX_RECORDS * REC_MAX_SIZE * 2)
#define SUBBUF_BYTES (64 * 1024)
#define WARMUP	     2
#define REPS	     11
#define SWEEP_MS     15000

static const uint64_t default_sizes[] = { 64, 1024, 16384 };

static struct {
	struct ds_area ds;
	struct drain d;
	struct consumer cons;
	struct consumer_set set;
	void *bufs[2];
	void *ring_mem;
	void *copy_dst;
	bool deferred;
	uint32_t records;
	uint64_t dropped, written;
} c;

static uint64_t samples[1000];
static unsigned reps = REPS;

/* Medians per record at the summary size, noloss ring, by strategy x format. */
#define SUMMARY_RECORDS 1024
static uint64_t summary_milli[DRAIN_NIDS][REC_NFORMATS];
/* inline/noloss/raw at the size being measured, and at the summary size,
 * by filter */
static uint64_t both_median;
static uint64_t filter_milli[CF_NFILTERS];

/* The records: runs of user code and of the kernel, as a traced program
 * makes them. */
#define MIX_PERIOD   256
#define MIX_USER_RUN 200

static void note_defer(void *ctx)
{
	(void)ctx;
	c.deferred = true;
}

static bool alloc_once(void)
{
	uint64_t bytes = (uint64_t)MAX_RECORDS * BTS_RECORD_SIZE;

	if (c.ring_mem)
		return true;
	c.bufs[0] = pmm_alloc(bytes);
	c.bufs[1] = pmm_alloc(bytes);
	c.copy_dst = pmm_alloc(bytes);
	c.ring_mem = pmm_alloc(RING_BYTES + SUBBUF_BYTES);
	if (!c.bufs[0] || !c.bufs[1] || !c.copy_dst || !c.ring_mem)
		return false;
	/* Records that look like the model's: user (0x0000400000000000 |
	 * seq << 4) and kernel (0xFFFF800000000000 | seq << 4) branches, in
	 * runs with an entry and an exit between them. */
	for (int b = 0; b < 2; b++) {
		struct bts_record *r = c.bufs[b];

		for (uint64_t i = 0; i < MAX_RECORDS; i++) {
			uint64_t p = i % MIX_PERIOD;
			uint64_t u = 0x0000400000000000ull | i << 4;
			uint64_t k = 0xFFFF800000000000ull | i << 4;

			r[i].from = p <= MIX_USER_RUN ? u : k;
			r[i].to = p < MIX_USER_RUN || p == MIX_PERIOD - 1
					  ? u + 4
					  : k + 4;
			r[i].flags = 0;
		}
	}
	return true;
}

static int setup(enum drain_id id, enum ring_mode ring, enum rec_format_id f,
		 bool per_record, enum consumer_filter filter)
{
	struct drain_cfg dc;
	struct ring_cfg rc = {
		.mode = ring,
		.fmt = rec_format_get(f),
		.mem = c.ring_mem,
		.bytes = ring == RING_SUBBUF
				 ? RING_BYTES / SUBBUF_BYTES * SUBBUF_BYTES
				 : RING_BYTES,
		.subbuf_bytes = SUBBUF_BYTES,
		.cpu = (uint16_t)this_cpu()->index,
	};

	memset(&dc, 0, sizeof(dc));
	dc.ds = &c.ds;
	dc.nbufs = id == DRAIN_SWITCH ? 2 : 1;
	dc.bufs[0] = c.bufs[0];
	dc.bufs[1] = c.bufs[1];
	dc.buf_records = c.records;
	dc.headroom = c.records / 16 ? c.records / 16 : 1;
	dc.policy = DRAIN_HEADROOM;
	dc.dropped = &c.dropped;
	dc.written = &c.written;
	dc.per_record = per_record;
	dc.sink.emit = consumer_set_emit;
	dc.sink.ctx = &c.set;
	dc.env.defer = note_defer;
	if (consumer_init(&c.cons, filter, NULL, &rc))
		return -1;
	c.set.n = 0;
	consumer_set_add(&c.set, &c.cons);
	c.dropped = c.written = 0;
	if (drain_init(&c.d, id, &dc))
		return -1;
	drain_start(&c.d);
	return 0;
}

/* Empty the consumer's ring (not timed). */
static void empty_ring(void)
{
	struct ring *r = &c.cons.ring;
	const struct ring_packet *p;

	if (r->ops->mode == RING_SUBBUF) {
		consumer_set_flush(&c.set);
		while ((p = ring_subbuf_get(r)))
			ring_subbuf_put(r, p);
	} else if (r->ops->mode == RING_NOLOSS) {
		while (ring_read(r, c.copy_dst, MAX_RECORDS))
			;
	}
}

/* One drain of a full buffer; cycles, or MEASURE_FAILED. */
static uint64_t one_drain(void *arg)
{
	enum drain_id id = *(enum drain_id *)arg;
	uint64_t t0, t1;

	empty_ring();
	if (id == DRAIN_SNAPSHOT) {
		/* The circular buffer has gone round once: all of it is new. */
		c.written += c.records;
		c.ds.bts_index = c.ds.bts_base;
		t0 = rdtsc_ordered();
		drain_snapshot(&c.d, c.records);
		t1 = rdtsc_ordered();
		return t1 - t0;
	}
	c.ds.bts_index = c.ds.bts_base + (uint64_t)c.records * BTS_RECORD_SIZE;
	c.written += c.records;
	c.deferred = false;
	t0 = rdtsc_ordered();
	if (!drain_pmi(&c.d))
		return MEASURE_FAILED;
	if (id == DRAIN_SWITCH && c.deferred)
		drain_deferred(&c.d);
	t1 = rdtsc_ordered();
	return t1 - t0;
}

static uint64_t one_memcpy(void *arg)
{
	uint64_t bytes = (uint64_t)c.records * BTS_RECORD_SIZE, t0, t1;

	(void)arg;
	t0 = rdtsc_ordered();
	memcpy(c.copy_dst, c.bufs[0], bytes);
	barrier();
	t1 = rdtsc_ordered();
	return t1 - t0;
}

static bool measure(measure_fn fn, void *arg, struct summary *out)
{
	struct measure_cfg cfg = { WARMUP, reps, tsc_read_overhead() };
	struct sample_set s;

	samples_init(&s, samples, reps);
	if (measure_run(&cfg, fn, arg, &s))
		return false;
	return samples_summarize(&s, out);
}

static const char *metric_name = "drain.cost";

static void report(struct test_run *t, const char *strategy, const char *ring,
		   const char *format, enum consumer_filter filter,
		   const struct summary *s, uint64_t memcpy_median)
{
	char buf[512];
	struct json j;

	json_init(&j, buf, sizeof(buf));
	json_begin(&j, 0);
	json_str(&j, "name", metric_name);
	json_str(&j, "strategy", strategy);
	json_str(&j, "ring", ring);
	json_str(&j, "format", format);
	if (filter != CF_BOTH)
		json_str(&j, "filter", consumer_filter_name(filter));
	json_u64(&j, "records", c.records);
	json_str(&j, "unit", "cycles/record");
	summary_json_per(&j, s, c.records);
	json_u64(&j, "per_buffer_median", s->median);
	json_u64(&j, "memcpy_median", memcpy_median);
	/* memcpy's cost over this one's: 1.0 is the physical limit. */
	json_milli(&j, "throughput_vs_memcpy",
		   s->median ? (int64_t)(memcpy_median * 1000 / s->median) : 0);
	if (filter != CF_BOTH) {
		/* The unfiltered consumer's cost over this one's. */
		json_u64(&j, "both_median", both_median);
		json_milli(&j, "throughput_vs_both",
			   s->median ? (int64_t)(both_median * 1000 / s->median)
				     : 0);
	}
	json_u64(&j, "tsc_hz", tsc.hz);
	if (cpu_info.hypervisor)
		json_str(&j, "hypervisor", cpu_info.hv_vendor);
	json_end(&j);
	t_metric(t, buf);
}

static bool one_combo(struct test_run *t, enum drain_id id, enum ring_mode ring,
		      enum rec_format_id f, bool per_record,
		      enum consumer_filter filter, uint64_t mc)
{
	struct summary s;
	struct bts_account a;

	if (setup(id, ring, f, per_record, filter)) {
		t_fail(t, "%s/%s/%s at %u records: setup refused",
		       drain_ops_get(id)->name, ring_mode_name(ring),
		       rec_format_get(f)->name, c.records);
		return false;
	}
	if (!measure(one_drain, &id, &s)) {
		t_fail(t, "%s/%s/%s at %u records: a drain found no work",
		       drain_ops_get(id)->name, ring_mode_name(ring),
		       rec_format_get(f)->name, c.records);
		return false;
	}
	drain_flush(&c.d);
	bts_account_read(&c.d.acct, &a);
	if (!bts_account_balanced(&a))
		t_fail(t, "%s/%s/%s: producer account off by %ld",
		       drain_ops_get(id)->name, ring_mode_name(ring),
		       rec_format_get(f)->name, bts_account_imbalance(&a));
	bts_account_read(&c.cons.acct, &a);
	if (!bts_account_balanced(&a))
		t_fail(t, "%s/%s/%s %s: consumer account off by %ld",
		       drain_ops_get(id)->name, ring_mode_name(ring),
		       rec_format_get(f)->name, consumer_filter_name(filter),
		       bts_account_imbalance(&a));
	report(t, per_record ? "inline-per-record" : drain_ops_get(id)->name,
	       ring_mode_name(ring), rec_format_get(f)->name, filter, &s, mc);
	if (!per_record && ring == RING_NOLOSS &&
	    c.records == SUMMARY_RECORDS && filter == CF_BOTH)
		summary_milli[id][f] = s.median * 1000 / c.records;
	if (!per_record && id == DRAIN_INLINE && ring == RING_NOLOSS &&
	    f == REC_RAW) {
		if (filter == CF_BOTH)
			both_median = s.median;
		if (c.records == SUMMARY_RECORDS)
			filter_milli[filter] = s.median * 1000 / c.records;
	}
	return true;
}

static void sweep(struct test_run *t, const uint64_t *sizes, size_t nsizes,
		  bool summary)
{
	struct summary m;

	if (!alloc_once())
		return t_fail(t, "no memory for the buffers");
	uint64_t t0 = rdtsc();

	for (unsigned z = 0; z < nsizes; z++) {
		/* Where copies are slow (a nested hypervisor here moves about
		 * a byte per microsecond), the sweep stops at a time bound. */
		if (z && rdtsc() - t0 > ms_to_tsc(SWEEP_MS)) {
			t_diag(t,
			       "sweep stopped before %lu records: over %d ms",
			       sizes[z], SWEEP_MS);
			break;
		}
		c.records = (uint32_t)sizes[z];
		if (!measure(one_memcpy, 0, &m))
			return t_fail(t, "memcpy of %u records: no samples",
				      c.records);
		report(t, "memcpy", "none", "raw", CF_BOTH, &m, m.median);
		/* The 2009 baseline: one output call per record. */
		one_combo(t, DRAIN_INLINE, RING_NOLOSS, REC_RAW, true, CF_BOTH,
			  m.median);
		both_median = 0;
		for (int id = 0; id < DRAIN_NIDS; id++)
			for (int r = 0; r < RING_NMODES; r++)
				for (int f = 0; f < REC_NFORMATS; f++)
					one_combo(t, (enum drain_id)id,
						  (enum ring_mode)r,
						  (enum rec_format_id)f, false,
						  CF_BOTH, m.median);
		/* Filtering by mode, next to inline/noloss/raw above. */
		for (int fl = 0; summary && fl < 2; fl++)
			one_combo(t, DRAIN_INLINE, RING_NOLOSS, REC_RAW, false,
				  fl ? CF_KERNEL : CF_USER, m.median);
		if (summary && c.records == SUMMARY_RECORDS)
			key_figure("drain memcpy",
				   "%lu.%03lu cycles/record at "
				   "%d records",
				   m.median * 1000 / c.records / 1000,
				   m.median * 1000 / c.records % 1000,
				   SUMMARY_RECORDS);
	}
	for (int id = 0; summary && id < DRAIN_NIDS; id++)
		key_figure(drain_ops_get((enum drain_id)id)->name,
			   "cycles/record: raw %lu.%03lu fixed %lu.%03lu "
			   "compat32 %lu.%03lu",
			   summary_milli[id][REC_RAW] / 1000,
			   summary_milli[id][REC_RAW] % 1000,
			   summary_milli[id][REC_FIXED] / 1000,
			   summary_milli[id][REC_FIXED] % 1000,
			   summary_milli[id][REC_COMPAT32] / 1000,
			   summary_milli[id][REC_COMPAT32] % 1000);
	if (summary && filter_milli[CF_USER] && filter_milli[CF_KERNEL])
		key_figure("filter by mode",
			   "inline/noloss/raw cycles/record: both %lu.%03lu "
			   "user %lu.%03lu kernel %lu.%03lu",
			   filter_milli[CF_BOTH] / 1000,
			   filter_milli[CF_BOTH] % 1000,
			   filter_milli[CF_USER] / 1000,
			   filter_milli[CF_USER] % 1000,
			   filter_milli[CF_KERNEL] / 1000,
			   filter_milli[CF_KERNEL] % 1000);
}
static void drain_cost(struct test_run *t)
{
	metric_name = "drain.cost";
	reps = REPS;
	sweep(t, default_sizes, 3, true);
}

/* The same over char.sizes= with char.repeat= samples each. */
static void char_drain_cost(struct test_run *t)
{
	for (size_t i = 0; i < settings.char_sizes.n; i++)
		if (settings.char_sizes.v[i] > MAX_RECORDS)
			return t_fail(t, "char.sizes: %lu is above %d records",
				      settings.char_sizes.v[i], MAX_RECORDS);
	metric_name = "char.drain_cost";
	reps = (unsigned)settings.char_repeat;
	sweep(t, settings.char_sizes.v, settings.char_sizes.n, false);
}
TEST_CASE(char_cost, .name = "char.drain_cost", .fn = char_drain_cost,
	  .timeout_ms = 300000);

TEST_CASE(cost, .name = "drain.cost", .fn = drain_cost, .timeout_ms = 120000);

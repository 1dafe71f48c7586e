/*
 * drain.<strategy>.<ring>.<format>: the drain path of lib/ (strategies,
 * rings, record formats, consumers) in the kernel, fed by the BTS model's
 * sequence-numbered stream through the real PMI path (NMI), deferral
 * (self-IPI) and APIC, in steps from one record to bursts larger than the
 * buffer. For each
 * run: the reader sees every delivered record exactly once, in order; the
 * producer's and the consumer's accounts balance (produced == delivered +
 * lost by cause); and the producer's account agrees with the model's own
 * count. Each run prints its counts as a metric.
 */
#include "lib/drain.h"
#include "drivers/bts_model.h"
#include "kernel/arch.h"
#include "kernel/bts.h"
#include "kernel/cpu.h"
#include "kernel/defer.h"
#include "kernel/pmm.h"
#include "kernel/test.h"
#include "kernel/time.h"
#include "lib/consumer.h"
#include "lib/format.h"
#include "lib/rec_format.h"
#include "lib/ring.h"
#include "lib/string.h"

#define SPARES		 2
#define RING_BYTES	 (64 * 1024)
#define SUBBUF_BYTES	 4096
#define TOTAL_RECORDS	 6000 /* about three PMIs per pace */
#define SNAPSHOT_RECORDS 512

struct combo {
	enum drain_id strategy;
	enum ring_mode ring;
	enum rec_format_id format;
};

static struct {
	struct drain d;
	struct consumer cons;
	struct consumer_set set;
	struct defer_work work;
	struct bts_session s;
	void *bufs[DRAIN_MAX_BUFS];
	void *ring_mem;
	uint8_t rd[RING_BYTES];
	/* reader */
	uint64_t read, last_seq, disorder, lost_marked;
	bool any;
} g;

static void run_deferred(struct defer_work *w)
{
	(void)w;
	drain_deferred(&g.d);
}

static void env_defer(void *ctx)
{
	(void)ctx;
	defer_queue(&g.work);
}

/* A PMI the strategy asks for: a self-NMI through the PMI path. */
static void env_kick(void *ctx)
{
	(void)ctx;
	apic->send(apic->id(), APIC_DM_NMI);
}

static bool alloc_once(void)
{
	uint64_t bytes = (uint64_t)bts_settings.records * BTS_RECORD_SIZE;

	for (int i = 0; i < 1 + SPARES; i++)
		if (!g.bufs[i] && !(g.bufs[i] = pmm_alloc(bytes)))
			return false;
	if (!g.ring_mem && !(g.ring_mem = pmm_alloc(RING_BYTES + SUBBUF_BYTES)))
		return false;
	return true;
}

/* Decode what the reader got; check order, count records and markers. */
static void consume(const struct rec_format *f, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++, p += f->size) {
		struct rec_event ev;
		uint64_t seq;

		if (!f->decode(p, &ev))
			continue;
		if (ev.type == REC_LOST) {
			g.lost_marked += ev.lost;
			continue;
		}
		seq = f->id == REC_FIXED ? ev.seq
					 : (ev.from >> 4) & MODEL_SEQ_MASK;
		if (f->id == REC_COMPAT32)
			seq &= 0x0FFFFFFF; /* 28 bits of it survive */
		if (g.any && seq <= g.last_seq)
			g.disorder++;
		g.last_seq = seq;
		g.any = true;
		g.read++;
	}
}

static void read_ring(const struct rec_format *f, bool final)
{
	struct ring *r = &g.cons.ring;

	if (r->ops->mode == RING_SUBBUF) {
		const struct ring_packet *pk;

		while ((pk = ring_subbuf_get(r))) {
			consume(f, (const uint8_t *)(pk + 1), pk->nrec);
			ring_subbuf_put(r, pk);
		}
		return;
	}
	/* A flight recorder is read once, at the end: reading does not
	 * consume, it copies the newest records. */
	if (r->ops->mode == RING_OVERWRITE) {
		if (final)
			consume(f, g.rd,
				ring_read(r, g.rd, sizeof(g.rd) / f->size));
		return;
	}
	for (;;) {
		size_t n = ring_read(r, g.rd, sizeof(g.rd) / f->size);

		if (!n)
			break;
		consume(f, g.rd, n);
	}
}

static int setup(const struct combo *c, struct bts_config *cfg, char *err,
		 size_t len)
{
	struct drain_cfg dc;
	struct ring_cfg rc = {
		.mode = c->ring,
		.fmt = rec_format_get(c->format),
		.mem = g.ring_mem,
		.bytes = c->ring == RING_SUBBUF ? 8 * SUBBUF_BYTES : RING_BYTES,
		.subbuf_bytes = SUBBUF_BYTES,
		.cpu = (uint16_t)this_cpu()->index,
	};

	bts_default_config(cfg);
	cfg->interrupt = c->strategy != DRAIN_SNAPSHOT;
	memset(&dc, 0, sizeof(dc));
	dc.ds = bts_ds_area();
	dc.nbufs = c->strategy == DRAIN_SWITCH ? 1 + SPARES : 1;
	for (size_t i = 0; i < dc.nbufs; i++)
		dc.bufs[i] = g.bufs[i];
	dc.buf_records = cfg->records;
	dc.headroom = cfg->records - cfg->threshold;
	dc.policy = DRAIN_HEADROOM;
	dc.dropped = bts_model_dropped_counter();
	dc.written = bts_model_written_counter();
	dc.seq0 = 0;
	dc.sink.emit = consumer_set_emit;
	dc.sink.ctx = &g.set;
	dc.env.defer = env_defer;
	dc.env.kick = env_kick;
	if (consumer_init(&g.cons, CF_BOTH, NULL, &rc)) {
		lib_snprintf(err, len, "consumer_init refused the ring");
		return -1;
	}
	g.set.n = 0;
	consumer_set_add(&g.set, &g.cons);
	if (drain_init(&g.d, c->strategy, &dc)) {
		lib_snprintf(err, len, "drain_init refused the configuration");
		return -1;
	}
	return 0;
}

static void one_pace(struct test_run *t, const struct combo *c, uint64_t chunk)
{
	const struct rec_format *f = rec_format_get(c->format);
	struct bts_config cfg;
	struct model_counts mc;
	struct bts_account pa, ca;
	char err[128], json[512];
	memset(&g.read, 0, sizeof(g) - offsetof(typeof(g), read));
	g.work = (struct defer_work)DEFER_WORK_INIT(run_deferred);
	bts_model_reset_counts();
	bts_model_set_source(MODEL_SYNTHETIC);
	/*
	 * Explicit bursts only (see drain_combo): no time-driven production.
	 * The rate is the model's global state and bts.overflow.storm.model
	 * leaves it at MODEL_RATE_MAX; inherited, every NMI (watchdog tick,
	 * the strategy's kick) refills a buffer while the switch strategy's
	 * deferred handler drains, and where a drain takes longer than a
	 * tick that loop never ends (the 2009 livelock, interrupts off).
	 */
	bts_model_set_rate(MODEL_RATE_STOP);
	if (setup(c, &cfg, err, sizeof(err)) ||
	    bts_start_strategy(&g.s, &bts_model, &cfg, &g.d, err,
			       sizeof(err))) {
		t_fail(t, "chunk %lu: %s", chunk, err);
		return;
	}
	for (uint64_t done = 0; done < TOTAL_RECORDS; done += chunk) {
		bts_model_produce(chunk);
		if (c->strategy != DRAIN_SNAPSHOT)
			read_ring(f, false);
	}
	if (c->strategy == DRAIN_SNAPSHOT)
		drain_snapshot(&g.d, SNAPSHOT_RECORDS);
	bts_stop(&g.s);
	consumer_set_flush(&g.set);
	read_ring(f, true);

	bts_model_counts(&mc);
	bts_account_read(&g.d.acct, &pa);
	bts_account_read(&g.cons.acct, &ca);
	if (!bts_account_balanced(&pa))
		t_fail(t, "chunk %lu: producer account off by %ld", chunk,
		       bts_account_imbalance(&pa));
	if (!bts_account_balanced(&ca))
		t_fail(t, "chunk %lu: consumer account off by %ld", chunk,
		       bts_account_imbalance(&ca));
	if (pa.produced != mc.produced)
		t_fail(t,
		       "chunk %lu: the drain counted %lu produced, the model "
		       "%lu",
		       chunk, pa.produced, mc.produced);
	if (g.read != ca.delivered)
		t_fail(t,
		       "chunk %lu: the reader got %lu records, the consumer "
		       "delivered %lu",
		       chunk, g.read, ca.delivered);
	if (g.disorder)
		t_fail(t, "chunk %lu: %lu records out of order or repeated",
		       chunk, g.disorder);
	lib_snprintf(json, sizeof(json),
		     "{\"name\":\"drain.accounting\",\"strategy\":\"%s\","
		     "\"ring\":\"%s\",\"format\":\"%s\",\"chunk\":%lu,"
		     "\"unit\":\"records\",\"value\":%lu,"
		     "\"producer\":{\"produced\":%lu,\"delivered\":%lu,"
		     "\"lost\":{\"no_spare\":%lu,\"stopped_at_max\":%lu,"
		     "\"overwritten\":%lu}},"
		     "\"consumer\":{\"delivered\":%lu,\"lost\":{\"ring_full\":"
		     "%lu,\"overwritten\":%lu}},\"pmis\":%lu}",
		     g.d.ops->name, ring_mode_name(c->ring), f->name, chunk,
		     pa.produced, pa.produced, pa.delivered,
		     pa.lost[BTS_LOSS_NO_SPARE], pa.lost[BTS_LOSS_STOPPED],
		     pa.lost[BTS_LOSS_OVERWRITTEN], ca.delivered,
		     ca.lost[BTS_LOSS_RING_FULL], ca.lost[BTS_LOSS_OVERWRITTEN],
		     g.s.pmis);
	t_metric(t, json);
}

static void drain_combo(struct test_run *t)
{
	/*
	 * Records per step, from one at a time to bursts bigger than the
	 * buffer (the PMI cannot keep up: the loss paths). Explicit bursts,
	 * not a rate: how fast a machine drains decides where a rate
	 * livelocks (char.duty_cycle's subject), not whether draining is
	 * right.
	 */
	static const uint64_t chunks[] = { 1, 64, 4096 };

	if (!apic)
		return t_skip(t, "no local APIC (CPUID.1:EDX[9]=0)");
	if (!alloc_once())
		return t_fail(t, "no memory for the buffers");
	for (unsigned i = 0; i < 3; i++)
		one_pace(t, t_arg(t), chunks[i]);
}

#define DRAIN_TEST(s, r, f, sn, rn, fname)                                     \
	static const struct combo combo_##s##_##r##_##f = { s, r, f };         \
	TEST_CASE(drain_##s##_##r##_##f, .name = "drain." sn "." rn "." fname, \
		  .fn = drain_combo, .arg = &combo_##s##_##r##_##f)

#define DRAIN_FORMATS(s, r, sn, rn)                   \
	DRAIN_TEST(s, r, REC_RAW, sn, rn, "raw");     \
	DRAIN_TEST(s, r, REC_FIXED, sn, rn, "fixed"); \
	DRAIN_TEST(s, r, REC_COMPAT32, sn, rn, "compat32")

#define DRAIN_RINGS(s, sn)                                 \
	DRAIN_FORMATS(s, RING_NOLOSS, sn, "noloss");       \
	DRAIN_FORMATS(s, RING_OVERWRITE, sn, "overwrite"); \
	DRAIN_FORMATS(s, RING_SUBBUF, sn, "subbuf")

DRAIN_RINGS(DRAIN_INLINE, "inline");
DRAIN_RINGS(DRAIN_SWITCH, "switch");
DRAIN_RINGS(DRAIN_SNAPSHOT, "snapshot");

/*
 * The snapshot strategy: the hardware's circular mode (BTINT clear, the
 * threshold above the absolute maximum so no PMI is ever raised) and, on
 * demand, the newest N records copied out in order, wherever the index
 * has wrapped to. What a debugger wants: the tail of the trace, no
 * overflow handling at all while tracing.
 *
 * A wrapped buffer does not say how many records it lost, so this
 * strategy needs the producer's count of records written: of the records
 * written since the last snapshot, the newest min(N, buffer) are
 * delivered and the rest are lost as "overwritten" (a snapshot keeps the
 * newest; an older record not taken now is never taken later).
 * Call it with the producer paused, as the PMI entry.
 */
#include "lib/drain.h"

static void snap_start(struct drain *d)
{
	struct ds_area *ds = d->cfg.ds;

	d->buf[0].state = DB_ACTIVE;
	drain_ds_set(d, d->buf[0].base);
	/* Above the maximum: clearing BTINT alone may not be enough. */
	ds->bts_int_threshold = ds->bts_abs_max + BTS_RECORD_SIZE;
	d->written_seen = __atomic_load_n(d->cfg.written, __ATOMIC_RELAXED);
}

static size_t snap_take(struct drain *d, size_t n)
{
	const struct ds_area *ds = d->cfg.ds;
	const struct bts_record *recs =
		(const struct bts_record *)(uintptr_t)ds->bts_base;
	uint64_t cap = d->cfg.buf_records;
	uint64_t w = __atomic_load_n(d->cfg.written, __ATOMIC_RELAXED);
	uint64_t fresh = w - d->written_seen;
	uint64_t take = fresh < cap ? fresh : cap;
	/* Wrapping hardware may leave the index at the maximum. */
	uint64_t idx = (ds->bts_index - ds->bts_base) / BTS_RECORD_SIZE % cap;
	uint64_t start, first, seq;

	if (take > n)
		take = n;
	start = (idx + cap - take) % cap;
	first = cap - start < take ? cap - start : take;
	/* Circular mode drops nothing: the fresh records are consecutive. */
	seq = d->next_seq + fresh - take;
	drain_emit(d, recs + start, first, seq);
	drain_emit(d, recs, take - first, seq + first);
	bts_count(&d->acct.produced, fresh - take);
	bts_count_lost(&d->acct, BTS_LOSS_OVERWRITTEN, fresh - take);
	d->written_seen = w;
	d->next_seq += fresh;
	d->stats.snapshots++;
	return take;
}

static bool snap_pmi(struct drain *d)
{
	d->stats.spurious++; /* circular mode raises none */
	return false;
}

static void snap_deferred(struct drain *d)
{
	d->stats.deferred++;
}

static void snap_flush(struct drain *d)
{
	snap_take(d, d->cfg.buf_records);
}

const struct drain_ops drain_snapshot_ops = {
	.id = DRAIN_SNAPSHOT,
	.name = "snapshot",
	.start = snap_start,
	.pmi = snap_pmi,
	.deferred = snap_deferred,
	.snapshot = snap_take,
	.flush = snap_flush,
};

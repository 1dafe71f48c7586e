/*
 * The inline strategy: drain inside the PMI handler, as Linux's ds.c did
 * in 2009. Simple and the reference for the others: the whole copy (and,
 * with several consumers, the filtering and formatting) happens in NMI
 * context, which is what livelocked kernels tracing themselves.
 *
 * Records the producer could not store before the PMI was handled (the
 * index at the absolute maximum) are lost with cause "stopped"; they come
 * after the buffer's records in sequence.
 */
#include "lib/drain.h"

static void drain_buffer(struct drain *d)
{
	struct ds_area *ds = d->cfg.ds;
	uint64_t n = drain_ds_records(d);
	uint64_t lost = drain_new_drops(d);

	drain_emit(d, (const struct bts_record *)(uintptr_t)ds->bts_base, n,
		   d->next_seq);
	bts_count(&d->acct.produced, lost);
	bts_count_lost(&d->acct, BTS_LOSS_STOPPED, lost);
	d->next_seq += n + lost;
	ds->bts_index = ds->bts_base;
}

static void inline_start(struct drain *d)
{
	d->buf[0].state = DB_ACTIVE;
	drain_ds_set(d, d->buf[0].base);
}

static bool inline_pmi(struct drain *d)
{
	const struct ds_area *ds = d->cfg.ds;

	if (ds->bts_index < ds->bts_int_threshold) {
		d->stats.spurious++;
		return false;
	}
	d->stats.pmis++;
	drain_buffer(d);
	return true;
}

static void inline_deferred(struct drain *d)
{
	d->stats.deferred++; /* nothing is ever deferred */
}

static size_t inline_snapshot(struct drain *d, size_t n)
{
	(void)d;
	(void)n;
	return 0;
}

const struct drain_ops drain_inline_ops = {
	.id = DRAIN_INLINE,
	.name = "inline",
	.start = inline_start,
	.pmi = inline_pmi,
	.deferred = inline_deferred,
	.snapshot = inline_snapshot,
	.flush = drain_buffer,
};

/*
 * The switch strategy: the PMI handler does the least it can (point the
 * DS area at a free buffer, ask for deferred work) and the full buffer is
 * drained later from the self-IPI handler, outside NMI context. This is
 * the patch from the 2009 thread that stopped the hang, plus the draining
 * it lacked, with K spares instead of a fixed 3 buffers.
 *
 * Hand-off protocol, on one CPU where the PMI (an NMI) may interrupt the
 * deferred entry at any instruction but not the reverse:
 *
 *   - Only the PMI entry (and start/flush, with the producer paused and
 *     no deferred entry running) writes the DS area, d->active,
 *     d->next_seq, d->starving, and a buffer's fields before it is FULL.
 *   - Buffer state: PMI moves FREE->ACTIVE and ACTIVE->FULL, the latter
 *     with a release store after nrec/seq/lost are written; the deferred
 *     entry moves FULL->FREE with a release store after its last read of
 *     the records. Each is one aligned store, so the other side sees the
 *     old or the new state, never a half-made buffer.
 *   - The producer account is written by the deferred entry only.
 *   - Starvation: a PMI that finds no FREE buffer sets d->starving and
 *     applies the policy (headroom: threshold moved to the maximum, so
 *     the producer fills the headroom; stop: maximum moved down to the
 *     index, so it stores nothing more). The deferred entry, after
 *     freeing a buffer, reads d->starving and asks for a PMI (env.kick):
 *     a stopped producer raises none itself. Freeing before reading, with
 *     a full fence between, means no wake-up is missed: a PMI that ran
 *     before the free set starving (seen), one after found the buffer.
 *
 * Records the producer could not store are attributed when the PMI next
 * looks: "stopped" if they were dropped before the strategy knew the
 * buffer was full (a late PMI), "no_spare" once it was starving.
 */
#include "lib/drain.h"

static const struct bts_record *records(const struct drain_buf *b)
{
	return (const struct bts_record *)(uintptr_t)b->base;
}

static void activate(struct drain *d, size_t i)
{
	struct drain_buf *b = &d->buf[i];

	b->seq = d->next_seq;
	b->nrec = 0;
	b->lost_stopped = 0;
	b->lost_no_spare = 0;
	__atomic_store_n(&b->state, DB_ACTIVE, __ATOMIC_RELAXED);
	d->active = i;
	drain_ds_set(d, b->base);
	__atomic_store_n(&d->starving, 0, __ATOMIC_RELAXED);
}

/* PMI side: count the active buffer's records and the drops after it. */
static void close_active(struct drain *d)
{
	struct drain_buf *b = &d->buf[d->active];
	uint64_t drops = drain_new_drops(d);

	b->nrec = drain_ds_records(d);
	if (d->starving)
		b->lost_no_spare += drops;
	else
		b->lost_stopped += drops;
	d->next_seq = b->seq + b->nrec + b->lost_stopped + b->lost_no_spare;
}

static void sw_start(struct drain *d)
{
	size_t i;

	for (i = 0; i < d->cfg.nbufs; i++)
		d->buf[i].state = DB_FREE;
	activate(d, 0);
}

static int find_free(const struct drain *d)
{
	size_t i, n = d->cfg.nbufs;

	for (i = 1; i < n; i++) {
		size_t j = (d->active + i) % n;

		if (__atomic_load_n(&d->buf[j].state, __ATOMIC_ACQUIRE) ==
		    DB_FREE)
			return (int)j;
	}
	return -1;
}

static void starve(struct drain *d)
{
	struct ds_area *ds = d->cfg.ds;
	struct drain_buf *b = &d->buf[d->active];

	d->stats.starved++;
	b->lost_stopped += drain_new_drops(d);
	if (d->cfg.policy == DRAIN_HEADROOM)
		ds->bts_int_threshold = ds->bts_abs_max;
	else
		ds->bts_abs_max = ds->bts_index;
	__atomic_store_n(&d->starving, 1, __ATOMIC_RELEASE);
}

static bool sw_pmi(struct drain *d)
{
	const struct ds_area *ds = d->cfg.ds;
	int next;

	if (!d->starving && ds->bts_index < ds->bts_int_threshold) {
		d->stats.spurious++;
		return false;
	}
	d->stats.pmis++;
	next = find_free(d);
	if (next < 0) {
		if (!d->starving)
			starve(d);
		return true;
	}
	close_active(d);
	__atomic_store_n(&d->buf[d->active].state, DB_FULL, __ATOMIC_RELEASE);
	activate(d, (size_t)next);
	d->stats.switches++;
	d->cfg.env.defer(d->cfg.env.ctx);
	return true;
}

/* Deferred side: hand a closed buffer's records and losses on. */
static void emit_buffer(struct drain *d, const struct drain_buf *b)
{
	drain_emit(d, records(b), b->nrec, b->seq);
	bts_count(&d->acct.produced, b->lost_stopped + b->lost_no_spare);
	bts_count_lost(&d->acct, BTS_LOSS_STOPPED, b->lost_stopped);
	bts_count_lost(&d->acct, BTS_LOSS_NO_SPARE, b->lost_no_spare);
}

static struct drain_buf *oldest_full(struct drain *d)
{
	struct drain_buf *best = NULL;
	size_t i;

	for (i = 0; i < d->cfg.nbufs; i++) {
		struct drain_buf *b = &d->buf[i];

		if (__atomic_load_n(&b->state, __ATOMIC_ACQUIRE) != DB_FULL)
			continue;
		if (!best || b->seq < best->seq)
			best = b;
	}
	return best;
}

static void sw_deferred(struct drain *d)
{
	struct drain_buf *b;

	d->stats.deferred++;
	while ((b = oldest_full(d))) {
		emit_buffer(d, b);
		__atomic_store_n(&b->state, DB_FREE, __ATOMIC_RELEASE);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (__atomic_load_n(&d->starving, __ATOMIC_ACQUIRE) &&
		    d->cfg.env.kick)
			d->cfg.env.kick(d->cfg.env.ctx);
	}
}

/*
 * Producer paused, no PMI or deferred entry can run: drain the full
 * buffers in order, then the active one in place, and rearm it (which
 * also undoes a starvation policy).
 */
static void sw_flush(struct drain *d)
{
	struct drain_buf *b;

	while ((b = oldest_full(d))) {
		emit_buffer(d, b);
		b->state = DB_FREE;
	}
	close_active(d);
	emit_buffer(d, &d->buf[d->active]);
	activate(d, d->active);
}

static size_t sw_snapshot(struct drain *d, size_t n)
{
	(void)d;
	(void)n;
	return 0;
}

const struct drain_ops drain_switch_ops = {
	.id = DRAIN_SWITCH,
	.name = "switch",
	.start = sw_start,
	.pmi = sw_pmi,
	.deferred = sw_deferred,
	.snapshot = sw_snapshot,
	.flush = sw_flush,
};

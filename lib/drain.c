/*
 * What the drain strategies share: configuration checks, the table of
 * strategies, and the few DS-area and accounting steps each one takes.
 * The strategies are in drain_inline.c, drain_switch.c and
 * drain_snapshot.c; see drain.h.
 */
#include "lib/drain.h"
#include "lib/string.h"

static const struct drain_ops *const strategies[DRAIN_NIDS] = {
	[DRAIN_INLINE] = &drain_inline_ops,
	[DRAIN_SWITCH] = &drain_switch_ops,
	[DRAIN_SNAPSHOT] = &drain_snapshot_ops,
};

const struct drain_ops *drain_ops_get(enum drain_id id)
{
	if ((unsigned int)id >= DRAIN_NIDS)
		return NULL;
	return strategies[id];
}

const struct drain_ops *drain_ops_by_name(const char *name)
{
	size_t i;

	for (i = 0; name && i < DRAIN_NIDS; i++)
		if (strcmp(strategies[i]->name, name) == 0)
			return strategies[i];
	return NULL;
}

static bool cfg_ok(enum drain_id id, const struct drain_cfg *c)
{
	size_t i;

	if (!c->ds || !c->sink.emit || c->buf_records < 2)
		return false;
	for (i = 0; i < c->nbufs && i < DRAIN_MAX_BUFS; i++)
		if (!c->bufs[i] || (uintptr_t)c->bufs[i] % 8)
			return false;
	switch (id) {
	case DRAIN_INLINE:
		return c->nbufs == 1 && c->headroom < c->buf_records;
	case DRAIN_SWITCH:
		return c->nbufs >= 2 && c->nbufs <= DRAIN_MAX_BUFS &&
		       c->headroom < c->buf_records && c->env.defer &&
		       (c->policy == DRAIN_HEADROOM || c->policy == DRAIN_STOP);
	case DRAIN_SNAPSHOT:
		return c->nbufs == 1 && c->written;
	default:
		return false;
	}
}

int drain_init(struct drain *d, enum drain_id id, const struct drain_cfg *cfg)
{
	size_t i;

	if ((unsigned int)id >= DRAIN_NIDS || !cfg_ok(id, cfg))
		return -1;
	memset(d, 0, sizeof(*d));
	d->ops = strategies[id];
	d->cfg = *cfg;
	d->bytes = (uint64_t)cfg->buf_records * BTS_RECORD_SIZE;
	d->next_seq = cfg->seq0;
	for (i = 0; i < cfg->nbufs; i++) {
		d->buf[i].base = (uint64_t)(uintptr_t)cfg->bufs[i];
		d->buf[i].state = DB_FREE;
	}
	if (cfg->dropped)
		d->dropped_seen =
			__atomic_load_n(cfg->dropped, __ATOMIC_RELAXED);
	return 0;
}

void drain_emit(struct drain *d, const struct bts_record *recs, size_t n,
		uint64_t seq)
{
	const struct drain_sink *s = &d->cfg.sink;
	size_t i;

	if (!n)
		return;
	if (d->cfg.per_record) {
		for (i = 0; i < n; i++)
			s->emit(s->ctx, &recs[i], 1, seq + i);
	} else {
		s->emit(s->ctx, recs, n, seq);
	}
	bts_count(&d->acct.produced, n);
	bts_count(&d->acct.delivered, n);
}

uint64_t drain_ds_records(const struct drain *d)
{
	const struct ds_area *ds = d->cfg.ds;

	return (ds->bts_index - ds->bts_base) / BTS_RECORD_SIZE;
}

uint64_t drain_new_drops(struct drain *d)
{
	uint64_t now, n;

	if (!d->cfg.dropped)
		return 0;
	now = __atomic_load_n(d->cfg.dropped, __ATOMIC_RELAXED);
	n = now - d->dropped_seen;
	d->dropped_seen = now;
	return n;
}

void drain_ds_set(struct drain *d, uint64_t base)
{
	struct ds_area *ds = d->cfg.ds;
	uint64_t max = base + d->bytes;

	ds->bts_base = base;
	ds->bts_index = base;
	ds->bts_abs_max = max;
	ds->bts_int_threshold = max - d->cfg.headroom * BTS_RECORD_SIZE;
}

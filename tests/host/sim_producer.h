/*
 * A software BTS producer for host tests of the drain strategies, obeying
 * the DS contract the way HARDWARE.md describes the hardware: a record is
 * written at the index, which then advances; with BTINT set, a write that
 * takes the index to the threshold or past it raises the PMI, and at the
 * absolute maximum nothing more is stored (the record is dropped and
 * counted); with BTINT clear the index wraps to the base.
 *
 * The PMI is delivered synchronously (an NMI), or pmi_delay records late
 * (a slow PMI: the headroom runs out). The strategy's requests for
 * deferred work and for a PMI ("kick") are latched; sim_step() delivers a
 * kick at the next record and deferred work when the test says so
 * (deferred_every records after the request, or by sim_deferred()), so a
 * test controls how long the self-IPI takes.
 */
#ifndef TESTS_HOST_SIM_PRODUCER_H
#define TESTS_HOST_SIM_PRODUCER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "lib/drain.h"
#include "tests/host/drain_testlib.h"

struct sim {
	struct ds_area ds;
	struct drain d;
	bool circular;	       /* BTINT clear: the buffer wraps */
	uint64_t seq;	       /* sequence number of the next record */
	uint64_t written;      /* records stored */
	uint64_t dropped;      /* records refused at the maximum */
	size_t pmi_delay;      /* records from threshold to PMI delivery */
	size_t pmi_countdown;  /* > 0: a PMI is on its way */
	size_t deferred_delay; /* records from request to deferred run */
	size_t deferred_countdown;
	bool defer_pending, kick_pending;
	bool in_deferred; /* the self-IPI does not nest */
	uint64_t pmis_raised;
	uint64_t pmis_in_deferred; /* PMIs that interrupted deferred work */
};

static inline void sim_defer(void *ctx)
{
	struct sim *s = ctx;

	if (!s->defer_pending)
		s->deferred_countdown = s->deferred_delay;
	s->defer_pending = true;
}

static inline void sim_kick(void *ctx)
{
	((struct sim *)ctx)->kick_pending = true;
}

static inline void sim_deferred(struct sim *s)
{
	if (!s->defer_pending || s->in_deferred)
		return;
	s->defer_pending = false;
	s->in_deferred = true;
	drain_deferred(&s->d);
	s->in_deferred = false;
}

static inline void sim_pmi(struct sim *s)
{
	s->pmi_countdown = 0;
	s->kick_pending = false;
	s->pmis_in_deferred += s->in_deferred;
	drain_pmi(&s->d);
}

/* Store one record as the hardware would; true when it raises the PMI. */
static inline bool sim_store(struct sim *s)
{
	struct ds_area *ds = &s->ds;
	struct bts_record r = tl_rec(s->seq++);

	if (ds->bts_index >= ds->bts_abs_max) {
		if (!s->circular) {
			s->dropped++;
			return false;
		}
		ds->bts_index = ds->bts_base;
	}
	memcpy((void *)(uintptr_t)ds->bts_index, &r, sizeof(r));
	ds->bts_index += sizeof(r);
	s->written++;
	return !s->circular && ds->bts_index >= ds->bts_int_threshold;
}

/* One record, then whatever interrupt is due. */
static inline void sim_step(struct sim *s)
{
	bool raised = sim_store(s);

	if (s->pmi_countdown) {
		if (!--s->pmi_countdown)
			sim_pmi(s);
	} else if (raised) {
		s->pmis_raised++;
		if (!s->pmi_delay)
			sim_pmi(s);
		else
			s->pmi_countdown = s->pmi_delay;
	}
	if (s->kick_pending)
		sim_pmi(s);
	if (s->defer_pending && !s->deferred_countdown--)
		sim_deferred(s);
}

static inline void sim_run(struct sim *s, uint64_t n)
{
	while (n--)
		sim_step(s);
}

/* Fill in the producer side of a drain configuration. */
static inline void sim_cfg(struct sim *s, struct drain_cfg *cfg)
{
	cfg->ds = &s->ds;
	cfg->dropped = &s->dropped;
	cfg->written = &s->written;
	cfg->env.defer = sim_defer;
	cfg->env.kick = sim_kick;
	cfg->env.ctx = s;
}

#define SIM_MAX_RECORDS 512

struct sim_params {
	enum drain_id id;
	size_t nbufs, records, headroom;
	enum drain_policy policy;
	bool per_record;
	struct drain_sink sink;
};

/*
 * (Re)configure the strategy of s over static buffers, keeping the
 * producer's counters: used between runs with the producer paused, as a
 * kernel would resize. Returns 0 or drain_init()'s -1.
 */
static inline int sim_setup(struct sim *s, const struct sim_params *p)
{
	static struct bts_record bufs[DRAIN_MAX_BUFS][SIM_MAX_RECORDS];
	struct drain_cfg cfg = {
		.nbufs = p->nbufs,
		.buf_records = p->records,
		.headroom = p->headroom,
		.policy = p->policy,
		.per_record = p->per_record,
		.sink = p->sink,
		.seq0 = s->seq,
	};
	size_t i;

	s->circular = p->id == DRAIN_SNAPSHOT;
	sim_cfg(s, &cfg);
	for (i = 0; i < p->nbufs && i < DRAIN_MAX_BUFS; i++)
		cfg.bufs[i] = bufs[i];
	if (p->records > SIM_MAX_RECORDS || drain_init(&s->d, p->id, &cfg))
		return -1;
	drain_start(&s->d);
	return 0;
}

/* A fresh producer and strategy. */
static inline int sim_init(struct sim *s, const struct sim_params *p)
{
	memset(s, 0, sizeof(*s));
	return sim_setup(s, p);
}

/* End of a run: deliver what is pending, pause, flush. */
static inline void sim_finish(struct sim *s)
{
	if (s->pmi_countdown || s->kick_pending)
		sim_pmi(s);
	sim_deferred(s);
	s->defer_pending = false;
	drain_flush(&s->d);
}

/*
 * A sink that checks the stream: records in increasing sequence, each the
 * one tl_rec() made for its number; it counts what it got and the gaps.
 * during(), if set, runs inside every emit: a test uses it to let the
 * producer run (and PMIs fire) in the middle of a deferred drain.
 */
struct check_sink {
	uint64_t next, got, gaps, calls;
	bool bad;
	void (*during)(void *ctx);
	void *during_ctx;
};

static inline void check_emit(void *ctx, const struct bts_record *r, size_t n,
			      uint64_t seq)
{
	struct check_sink *c = ctx;
	size_t i;

	for (i = 0; i < n; i++) {
		struct bts_record want = tl_rec(seq + i);

		if (memcmp(&r[i], &want, sizeof(want)))
			c->bad = true;
	}
	if (seq < c->next)
		c->bad = true;
	else
		c->gaps += seq - c->next;
	c->next = seq + n;
	c->got += n;
	c->calls++;
	if (c->during)
		c->during(c->during_ctx);
}

#endif

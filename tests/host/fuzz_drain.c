/*
 * Property test of the whole drain path against a reference model.
 *
 * The input picks a strategy (inline, switch with K spares and a policy,
 * snapshot), its buffer geometry, PMI and self-IPI delays, one to three
 * consumers (filter, ring mode, format, ring size, mode map: the default
 * or a user range cut anywhere, with or without an entry_kind callback)
 * and the record stream (the period-8 pattern or a seeded mix of user,
 * kernel, entry and exit records), then a sequence of operations:
 * produce records, run deferred work, raise a PMI, take a snapshot, read
 * from a consumer, resize the buffer. Along the way:
 *
 *   - the drained stream is increasing in sequence and every record is
 *     the one the producer wrote for its number;
 *   - each consumer's filter is mirrored by the model with its own
 *     address rule: a record is kept, filtered, or replaced by the
 *     pseudo-record the model predicts (type, kind, addresses, sequence),
 *     the entry_kind callback runs once per entry pseudo-record, and a
 *     user-only ring never shows a kernel address nor a kernel-only ring
 *     a user address;
 *   - each consumer's ring is mirrored by a model that treats records one
 *     at a time with lists instead of bytes (noloss: queue, pending count
 *     and lost markers; overwrite: the newest capacity records; subbuf:
 *     packets with sequence and discarded counts), and what the real ring
 *     returns must be exactly what the model holds;
 *   - the accounts balance, agree with the producer's counts and with the
 *     model's, at the end of every run (after a flush).
 *
 * Built as a libFuzzer target (fuzz_drain_run() behind
 * LLVMFuzzerTestOneInput); test_drain_property.c runs the same property
 * over many seeded random inputs under cmocka.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/consumer.h"
#include "tests/host/sim_producer.h"

#define FZ_MAXC	   3
#define FZ_QUEUE   64 /* model entries; rings here hold at most 22 */
#define FZ_PKTS	   8
#define FZ_PER_PKT 6

/* --- input ------------------------------------------------------------ */

struct fz_in {
	const uint8_t *p;
	size_t n;
};

static unsigned int fz_byte(struct fz_in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

/* --- failure reporting ------------------------------------------------ */

static char fz_error[256];

#define FZ_CHECK(cond)                                                      \
	do {                                                                \
		if (!(cond) && !fz_error[0])                                \
			snprintf(fz_error, sizeof(fz_error), "line %d: %s", \
				 __LINE__, #cond);                          \
	} while (0)

/* --- the reference model of one consumer ------------------------------ */

struct fz_entry {
	bool lost;
	uint64_t seq;	/* record; for a marker: the record after it */
	uint64_t count; /* marker */
	/* a pseudo-record (type != REC_BRANCH) and what it must hold */
	enum rec_type type;
	enum entry_kind kind;
	uint64_t from, to;
};

struct fz_packet {
	uint64_t discarded;
	size_t n;
	struct fz_entry e[FZ_PER_PKT];
};

struct fz_model {
	enum consumer_filter filter;
	uint64_t user_lo, user_hi; /* the consumer's map, as the model has it */
	bool with_cb;		   /* the map has the entry_kind callback */
	uint64_t kind_calls;	   /* callback calls the model expects */
	enum ring_mode mode;
	size_t cap; /* noloss: bytes / rec; overwrite: records */
	size_t rec, bytes;
	struct fz_entry q[FZ_QUEUE];
	size_t head, count; /* noloss, overwrite: q as a circular queue */
	uint64_t pending;   /* noloss */
	/* subbuf */
	struct fz_packet pkt[FZ_PKTS];
	size_t npkt_max, per_pkt, first, committed; /* committed - taken */
	uint64_t pkt_taken;
	struct fz_packet open;
	/* what the consumer's account must say */
	uint64_t offered, delivered, filtered, lost_full, lost_over;
};

static struct fz_entry *q_at(struct fz_model *m, size_t i)
{
	return &m->q[(m->head + i) % FZ_QUEUE];
}

static void q_push(struct fz_model *m, struct fz_entry e)
{
	*q_at(m, m->count++) = e;
}

static void model_commit(struct fz_model *m)
{
	m->pkt[(m->first + m->committed++) % FZ_PKTS] = m->open;
	memset(&m->open, 0, sizeof(m->open));
}

/* One accepted record (or pseudo-record), as each mode's specification
 * says. */
static void model_put(struct fz_model *m, struct fz_entry rec)
{
	uint64_t seq = rec.seq;
	size_t free_bytes;

	switch (m->mode) {
	case RING_NOLOSS:
		free_bytes = m->bytes - m->count * m->rec;
		if (m->pending) {
			if (free_bytes < 2 * m->rec)
				goto drop;
			q_push(m, (struct fz_entry){ .lost = true,
						     .seq = seq,
						     .count = m->pending });
			m->pending = 0;
			free_bytes -= m->rec;
		}
		if (free_bytes < m->rec)
			goto drop;
		q_push(m, rec);
		m->delivered++;
		return;
	case RING_OVERWRITE:
		q_push(m, rec);
		m->delivered++;
		if (m->count > m->cap) {
			m->head = (m->head + 1) % FZ_QUEUE;
			m->count--;
			m->delivered--;
			m->lost_over++;
		}
		return;
	default:
		if (m->committed >= m->npkt_max) {
			m->open.discarded++;
			m->lost_full++;
			return;
		}
		m->open.e[m->open.n++] = rec;
		m->delivered++;
		if (m->open.n == m->per_pkt)
			model_commit(m);
		return;
	}
drop:
	m->pending++;
	m->lost_full++;
}

static void model_flush(struct fz_model *m)
{
	if (m->mode == RING_SUBBUF && (m->open.n || m->open.discarded) &&
	    m->committed < m->npkt_max)
		model_commit(m);
}

/* --- the system under test -------------------------------------------- */

struct fz {
	struct sim s;
	struct sim_params params;
	struct consumer c[FZ_MAXC];
	struct fz_model m[FZ_MAXC];
	struct consumer_set set;
	struct bts_account total; /* producer accounts of finished runs */
	uint64_t next_seq;	  /* lowest sequence the sink may see next */
	uint64_t emitted;
};

static uint64_t ring_mem[FZ_MAXC][160];
static uint64_t kind_calls[FZ_MAXC];

/* The consumers' entry_kind: 0..7, of which 4..7 are no entry_kind. */
static unsigned int fz_kind_hash(uint64_t addr)
{
	return (unsigned int)((addr * 0x9e3779b97f4a7c15ull) >> 61);
}

static enum entry_kind fz_kind_cb(void *ctx, uint64_t addr)
{
	(*(uint64_t *)ctx)++;
	return (enum entry_kind)fz_kind_hash(addr);
}

static bool fz_user(const struct fz_model *m, uint64_t addr)
{
	return m->user_lo <= addr && addr < m->user_hi;
}

/*
 * What record r (sequence seq) becomes for the consumer: false when its
 * filter drops it; else *e is the record or the pseudo-record for it.
 */
static bool model_filter(struct fz_model *m, const struct bts_record *r,
			 uint64_t seq, struct fz_entry *e)
{
	bool fu = fz_user(m, r->from), tu = fz_user(m, r->to);
	bool user = m->filter == CF_USER;
	unsigned int h;

	*e = (struct fz_entry){ .seq = seq, .type = REC_BRANCH };
	if (m->filter == CF_BOTH || (fu == tu && fu == user))
		return true;
	if (fu == tu)
		return false;
	e->type = fu ? REC_KERNEL_ENTER : REC_KERNEL_EXIT;
	e->from = fu == user ? r->from : 0;
	e->to = tu == user ? r->to : 0;
	if (fu) {
		h = fz_kind_hash(r->to);
		e->kind = m->with_cb && h < ENTRY_NKINDS ? (enum entry_kind)h
							 : ENTRY_UNKNOWN;
		m->kind_calls += m->with_cb;
	}
	return true;
}

/* The sink: check the producer's stream, feed the models, then splay. */
static void fz_emit(void *ctx, const struct bts_record *recs, size_t n,
		    uint64_t seq)
{
	struct fz *z = ctx;
	size_t i, j;

	FZ_CHECK(seq >= z->next_seq);
	z->next_seq = seq + n;
	z->emitted += n;
	for (i = 0; i < n; i++) {
		struct bts_record want = tl_rec(seq + i);

		FZ_CHECK(!memcmp(&recs[i], &want, sizeof(want)));
		for (j = 0; j < z->set.n; j++) {
			struct fz_entry e;

			z->m[j].offered++;
			if (model_filter(&z->m[j], &recs[i], seq + i, &e)) {
				FZ_CHECK(consumer_accepts(&z->c[j], &recs[i]));
				model_put(&z->m[j], e);
			} else {
				FZ_CHECK(!consumer_accepts(&z->c[j], &recs[i]));
				z->m[j].filtered++;
			}
		}
	}
	consumer_set_emit(&z->set, recs, n, seq);
}

static void check_entry(const struct fz_model *m, const struct rec_format *f,
			const uint8_t *buf, const struct fz_entry *e)
{
	struct rec_event ev;

	if (!e->lost && e->type == REC_BRANCH) {
		FZ_CHECK(tl_match(f, buf, e->seq));
	} else if (!e->lost) {
		FZ_CHECK(f->decode(buf, &ev));
		FZ_CHECK(ev.type == e->type);
		FZ_CHECK(ev.kind == e->kind);
		FZ_CHECK(!ev.predicted);
		if (f->id == REC_COMPAT32) {
			FZ_CHECK(ev.from == (uint32_t)e->from);
			FZ_CHECK(ev.to == (uint32_t)e->to);
			FZ_CHECK(ev.truncated == !!((e->from | e->to) >> 32));
		} else {
			FZ_CHECK(ev.from == e->from && ev.to == e->to);
		}
		if (f->id == REC_FIXED)
			FZ_CHECK(ev.seq == e->seq);
	}
	if (!e->lost) {
		/* Nothing of the other side shows (0: a pseudo-record's
		 * missing end). compat32 keeps too few bits to tell. */
		FZ_CHECK(f->decode(buf, &ev));
		if (f->id != REC_COMPAT32 && m->filter == CF_USER)
			FZ_CHECK((fz_user(m, ev.from) ||
				  (!ev.from && ev.type == REC_KERNEL_EXIT)) &&
				 (fz_user(m, ev.to) ||
				  (!ev.to && ev.type == REC_KERNEL_ENTER)));
		if (f->id != REC_COMPAT32 && m->filter == CF_KERNEL)
			FZ_CHECK((!fz_user(m, ev.from) ||
				  (!ev.from && ev.type == REC_KERNEL_ENTER)) &&
				 (!fz_user(m, ev.to) ||
				  (!ev.to && ev.type == REC_KERNEL_EXIT)));
		return;
	}
	FZ_CHECK(f->decode(buf, &ev));
	FZ_CHECK(ev.type == REC_LOST);
	FZ_CHECK(ev.cause == BTS_LOSS_RING_FULL);
	FZ_CHECK(ev.lost == e->count);
	if (f->id == REC_FIXED)
		FZ_CHECK(ev.seq == e->seq);
}

/* Read up to max records from consumer i and compare with its model. */
static void fz_read(struct fz *z, size_t i, size_t max)
{
	struct consumer *c = &z->c[i];
	struct fz_model *m = &z->m[i];
	const struct rec_format *f = c->ring.fmt;
	uint8_t out[FZ_QUEUE * REC_MAX_SIZE];
	const struct ring_packet *p;
	size_t got, k, want;

	if (m->mode == RING_SUBBUF) {
		p = ring_subbuf_get(&c->ring);
		FZ_CHECK(!p == !m->committed);
		if (!p || !m->committed)
			return;
		{
			struct fz_packet *mp = &m->pkt[m->first];

			FZ_CHECK(p->seq == m->pkt_taken);
			FZ_CHECK(p->discarded == mp->discarded);
			FZ_CHECK(p->nrec == mp->n);
			for (k = 0; k < mp->n && k < p->nrec; k++)
				check_entry(m, f,
					    (const uint8_t *)(p + 1) +
						    k * f->size,
					    &mp->e[k]);
		}
		ring_subbuf_put(&c->ring, p);
		m->first = (m->first + 1) % FZ_PKTS;
		m->committed--;
		m->pkt_taken++;
		return;
	}
	if (max > FZ_QUEUE)
		max = FZ_QUEUE;
	want = m->count < max ? m->count : max;
	got = ring_read(&c->ring, out, max);
	FZ_CHECK(got == want);
	if (got != want)
		return;
	for (k = 0; k < got; k++) {
		size_t at = m->mode == RING_NOLOSS ? k : m->count - got + k;

		check_entry(m, f, out + k * f->size, q_at(m, at));
	}
	if (m->mode == RING_NOLOSS) {
		m->head = (m->head + got) % FZ_QUEUE;
		m->count -= got;
	}
}

static void check_consumer(struct fz *z, size_t i)
{
	const struct bts_account *a = &z->c[i].acct;
	const struct fz_model *m = &z->m[i];

	FZ_CHECK(a->produced == m->offered);
	FZ_CHECK(a->delivered == m->delivered);
	FZ_CHECK(a->filtered == m->filtered);
	FZ_CHECK(a->lost[BTS_LOSS_RING_FULL] == m->lost_full);
	FZ_CHECK(a->lost[BTS_LOSS_OVERWRITTEN] == m->lost_over);
	FZ_CHECK(bts_account_balanced(a));
	FZ_CHECK(kind_calls[i] == m->kind_calls);
}

/* Producer paused: drain everything, check the producer's books. */
static void fz_finish_run(struct fz *z)
{
	struct bts_account sum = z->total;
	const struct sim *s = &z->s;

	sim_finish(&z->s);
	bts_account_add(&sum, &s->d.acct);
	FZ_CHECK(bts_account_balanced(&sum));
	FZ_CHECK(sum.delivered == z->emitted);
	FZ_CHECK(sum.lost[BTS_LOSS_RING_FULL] == 0);
	if (z->params.id != DRAIN_SNAPSHOT) {
		FZ_CHECK(sum.produced == s->seq);
		FZ_CHECK(sum.delivered == s->written);
		FZ_CHECK(bts_account_lost_total(&sum) == s->dropped);
		FZ_CHECK(sum.lost[BTS_LOSS_OVERWRITTEN] == 0);
		/* On-time PMIs: nothing is dropped before the strategy knows. */
		if (!s->pmi_delay)
			FZ_CHECK(sum.lost[BTS_LOSS_STOPPED] == 0);
	} else {
		FZ_CHECK(sum.produced == s->written);
		FZ_CHECK(sum.lost[BTS_LOSS_OVERWRITTEN] ==
			 bts_account_lost_total(&sum));
	}
	if (z->params.id == DRAIN_INLINE)
		FZ_CHECK(sum.lost[BTS_LOSS_NO_SPARE] == 0);
}

/* --- set-up from the input -------------------------------------------- */

static void fz_geometry(struct fz *z, struct fz_in *in)
{
	struct sim_params *p = &z->params;

	p->records = 4 + fz_byte(in) % 60;
	p->headroom = fz_byte(in) % p->records;
	p->policy = fz_byte(in) & 1;
}

/* A bound of a user range: where the stream's addresses are, or cut
 * through them. */
static uint64_t fz_bound(unsigned int b)
{
	uint64_t off = (uint64_t)(b / 6) << 9;

	switch (b % 6) {
	case 0:
		return 0;
	case 1:
		return TL_USER_LO + off;
	case 2:
		return MODE_USER_HI_DEFAULT;
	case 3:
		return TL_KERNEL_LO + off;
	case 4:
		return ~0ull;
	default:
		return TL_USER_LO;
	}
}

/*
 * Consumer i's mode map: NULL (the default), the default range with the
 * entry_kind callback, or a range from the input, with or without it.
 * The model gets the same range and knows whether kinds are asked.
 */
static const struct mode_map *fz_map(struct fz_model *m, struct mode_map *map,
				     struct fz_in *in, size_t i)
{
	unsigned int how = fz_byte(in) % 4;
	uint64_t lo, hi;

	kind_calls[i] = 0;
	mode_map_default(map);
	if (how >= 2) {
		lo = fz_bound(fz_byte(in));
		hi = fz_bound(fz_byte(in));
		map->user_lo = lo < hi ? lo : hi;
		map->user_hi = lo < hi ? hi : lo;
	}
	if (how % 2) {
		map->entry_kind = fz_kind_cb;
		map->ctx = &kind_calls[i];
	}
	m->user_lo = map->user_lo;
	m->user_hi = map->user_hi;
	m->with_cb = how % 2;
	return how ? map : NULL;
}

static bool fz_setup(struct fz *z, struct fz_in *in)
{
	unsigned int nc = 1 + fz_byte(in) % FZ_MAXC, v;
	struct sim_params *p = &z->params;
	size_t i;

	memset(z, 0, sizeof(*z));
	p->id = fz_byte(in) % DRAIN_NIDS;
	p->nbufs = p->id == DRAIN_SWITCH ? 2 + fz_byte(in) % 3 : 1;
	p->per_record = fz_byte(in) & 1;
	p->sink = (struct drain_sink){ fz_emit, z };
	fz_geometry(z, in);
	if (sim_init(&z->s, p))
		return false;
	v = fz_byte(in);
	z->s.pmi_delay = v < 200 ? 0 : v % 24;
	z->s.deferred_delay = fz_byte(in) % 80;
	for (i = 0; i < nc; i++) {
		const struct rec_format *f = rec_format_get(fz_byte(in) % 3);
		struct fz_model *m = &z->m[i];
		size_t sb = (24 + f->size * (1 + fz_byte(in) % 5) + 7) / 8 * 8;
		struct ring_cfg rc = {
			.mode = fz_byte(in) % RING_NMODES,
			.fmt = f,
			.mem = ring_mem[i],
			.bytes = f->size * (2 + fz_byte(in) % 20) +
				 fz_byte(in) % f->size,
			.subbuf_bytes = sb,
		};

		struct mode_map map;

		if (rc.mode == RING_SUBBUF)
			rc.bytes = (2 + fz_byte(in) % 4) * sb;
		m->filter = fz_byte(in) % CF_NFILTERS;
		if (consumer_init(&z->c[i], m->filter, fz_map(m, &map, in, i),
				  &rc))
			return false;
		consumer_set_add(&z->set, &z->c[i]);
		m->mode = rc.mode;
		m->rec = f->size;
		m->bytes = rc.bytes;
		m->cap = ring_capacity(&z->c[i].ring);
		m->npkt_max = z->c[i].ring.s.n;
		m->per_pkt = z->c[i].ring.s.per_packet;
	}
	/* The stream: the period-8 pattern, or a seeded mix. */
	v = fz_byte(in);
	tl_seed = v ? v * 0x9e3779b97f4a7c15ull : 0;
	return true;
}

/* --- the property ----------------------------------------------------- */

/* Returns NULL, or what failed. */
static const char *fuzz_drain_run(const uint8_t *data, size_t size)
{
	static struct fz z;
	struct fz_in in = { data, size };
	size_t i, ops = 0;

	fz_error[0] = 0;
	if (!fz_setup(&z, &in))
		return "set-up refused a valid configuration";
	while (in.n && ops++ < 400 && !fz_error[0]) {
		unsigned int op = fz_byte(&in), arg = fz_byte(&in);

		switch (op % 8) {
		case 0:
		case 1:
		case 2:
			sim_run(&z.s, 1 + arg);
			break;
		case 3:
			sim_deferred(&z.s);
			break;
		case 4:
			sim_pmi(&z.s);
			break;
		case 5:
			if (z.params.id == DRAIN_SNAPSHOT)
				drain_snapshot(&z.s.d, arg % 80);
			break;
		case 6:
			fz_read(&z, arg % z.set.n, 1 + arg / 4);
			break;
		default:
			fz_finish_run(&z);
			bts_account_add(&z.total, &z.s.d.acct);
			fz_geometry(&z, &in);
			if (sim_setup(&z.s, &z.params))
				return "resize refused a valid configuration";
			break;
		}
	}
	fz_finish_run(&z);
	consumer_set_flush(&z.set);
	for (i = 0; i < z.set.n; i++) {
		model_flush(&z.m[i]);
		check_consumer(&z, i);
		while (z.m[i].count || z.m[i].committed) {
			size_t before = z.m[i].count + z.m[i].committed;

			fz_read(&z, i, FZ_QUEUE);
			if (z.m[i].mode == RING_OVERWRITE || fz_error[0] ||
			    z.m[i].count + z.m[i].committed == before)
				break;
		}
	}
	return fz_error[0] ? fz_error : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *err = fuzz_drain_run(data, size);

	if (err) {
		fprintf(stderr, "fuzz_drain: %s\n", err);
		__builtin_trap();
	}
	return 0;
}

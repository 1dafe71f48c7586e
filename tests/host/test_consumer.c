/*
 * Unit tests for filter and splay (lib/consumer.c): the mode filters with
 * their pseudo-records, in every ring mode and every format, against an
 * expectation computed here from the unfiltered stream (with this file's
 * own address rule, not lib/modes.h's); several consumers on one
 * producer each getting exactly its share; and the rule that a filtered
 * record is not a loss while one the ring could not keep is, pseudo-
 * records included: offered == delivered + filtered + lost.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* cmocka needs the headers above */
#include <cmocka.h>

#include "lib/consumer.h"
#include "tests/host/sim_producer.h"

/* The default user range, spelled out independently of lib/modes.h. */
#define ULO 0x0000400000000000ull
#define UHI 0x0000800000000000ull
#define KA  0xffff800000001000ull /* a kernel address (upper half) */
#define KB  0x0000000000102000ull /* a kernel address (identity map) */
#define UA  0x0000700000000040ull /* user addresses */
#define UB  0x0000400000000010ull

#define NREC	   1000
#define RING_BYTES (64 * 1024)
#define SUBBUF	   1024
#define CPU	   5
#define NCONSUMERS 3

static uint64_t mem[NCONSUMERS][RING_BYTES / 8];
static struct bts_record src[NREC];
static uint8_t out[NREC * REC_MAX_SIZE];

static bool t_user(uint64_t a)
{
	return a >= ULO && a < UHI;
}

/* --- the test's entry_kind callback ------------------------------------ */

static unsigned int kind_calls;

/* 0..7: 4..7 are no entry_kind, and the library must make them unknown. */
static unsigned int kind_hash(uint64_t addr)
{
	return (unsigned int)((addr * 0x9e3779b97f4a7c15ull) >> 61);
}

static enum entry_kind kind_cb(void *ctx, uint64_t addr)
{
	(*(unsigned int *)ctx)++;
	return (enum entry_kind)kind_hash(addr);
}

static enum entry_kind want_kind(uint64_t kernel_addr, bool with_cb)
{
	unsigned int h = kind_hash(kernel_addr);

	return with_cb && h < ENTRY_NKINDS ? (enum entry_kind)h : ENTRY_UNKNOWN;
}

static const struct mode_map cb_map = {
	.user_lo = ULO,
	.user_hi = UHI,
	.entry_kind = kind_cb,
	.ctx = &kind_calls,
};

/* --- the expectation ---------------------------------------------------- */

struct want {
	enum rec_type type;
	uint64_t seq, from, to;
	enum entry_kind kind;
	bool predicted;
};

/*
 * What record r (sequence seq) becomes for filter f: false when it is
 * filtered out.
 */
static bool expect(enum consumer_filter f, const struct bts_record *r,
		   uint64_t seq, bool with_cb, struct want *w)
{
	bool fu = t_user(r->from), tu = t_user(r->to);

	*w = (struct want){ .type = REC_BRANCH,
			    .seq = seq,
			    .from = r->from,
			    .to = r->to,
			    .predicted = r->flags & BTS_FLAG_PREDICTED };
	if (f == CF_BOTH || (f == CF_USER && fu && tu) ||
	    (f == CF_KERNEL && !fu && !tu))
		return true;
	if (fu == tu) /* the other side's run: filtered */
		return false;
	w->predicted = false;
	if (fu) { /* user -> kernel: an entry */
		w->type = REC_KERNEL_ENTER;
		w->kind = want_kind(r->to, with_cb);
		if (f == CF_USER)
			w->to = 0;
		else
			w->from = 0;
	} else { /* kernel -> user: an exit */
		w->type = REC_KERNEL_EXIT;
		if (f == CF_USER)
			w->from = 0;
		else
			w->to = 0;
	}
	return true;
}

/* Does buf decode, in format f, to exactly w? */
static void check_record(const struct rec_format *f, const uint8_t *buf,
			 const struct want *w)
{
	struct rec_event ev;

	assert_true(f->decode(buf, &ev));
	assert_int_equal(ev.type, w->type);
	assert_int_equal(ev.kind, w->kind);
	assert_int_equal(ev.predicted, w->predicted);
	if (f->id == REC_COMPAT32) {
		assert_int_equal(ev.from, (uint32_t)w->from);
		assert_int_equal(ev.to, (uint32_t)w->to);
		assert_int_equal(ev.truncated, ((w->from | w->to) >> 32) != 0);
	} else {
		assert_int_equal(ev.from, w->from);
		assert_int_equal(ev.to, w->to);
		assert_false(ev.truncated);
	}
	if (f->id == REC_FIXED) {
		assert_int_equal(ev.seq, w->seq);
		assert_int_equal(ev.cpu, CPU);
	}
}

/* Everything the ring holds, oldest first; records read. */
static size_t drain_ring(struct consumer *c)
{
	size_t n = 0, got;

	consumer_set_flush(&(struct consumer_set){ .c = { c }, .n = 1 });
	if (c->ring.ops->mode == RING_OVERWRITE)
		return ring_read(&c->ring, out, NREC);
	while ((got = ring_read(&c->ring, out + n * c->ring.rec, NREC - n)))
		n += got;
	return n;
}

/*
 * Read c dry and compare with the expectation from recs[0..n) (sequence
 * seq0...); check the other side's addresses never show, and the books.
 */
static void check_consumer(struct consumer *c, const struct bts_record *recs,
			   size_t n, uint64_t seq0, bool with_cb)
{
	const struct rec_format *f = c->ring.fmt;
	size_t got = drain_ring(c), k = 0, i, filtered = 0;

	for (i = 0; i < n; i++) {
		struct want w;

		if (!expect(c->filter, &recs[i], seq0 + i, with_cb, &w)) {
			filtered++;
			continue;
		}
		assert_true(k < got);
		check_record(f, out + k * f->size, &w);
		k++;
	}
	assert_int_equal(got, k);
	/* No kernel address in a user-only stream, no user address in a
	 * kernel-only one (compat32 keeps too few bits to tell). */
	for (i = 0; f->id != REC_COMPAT32 && i < got; i++) {
		struct rec_event ev;

		assert_true(f->decode(out + i * f->size, &ev));
		if (c->filter == CF_USER) {
			assert_true(
				t_user(ev.from) ||
				(ev.from == 0 && ev.type == REC_KERNEL_EXIT));
			assert_true(
				t_user(ev.to) ||
				(ev.to == 0 && ev.type == REC_KERNEL_ENTER));
		} else if (c->filter == CF_KERNEL) {
			assert_false(t_user(ev.from));
			assert_false(t_user(ev.to));
		}
	}
	assert_int_equal(c->acct.produced, n);
	assert_int_equal(c->acct.filtered, filtered);
	assert_int_equal(c->acct.delivered, n - filtered);
	assert_int_equal(bts_account_lost_total(&c->acct), 0);
	assert_true(bts_account_balanced(&c->acct));
}

static void init(struct consumer *c, enum consumer_filter f,
		 const struct mode_map *map, enum ring_mode mode, int fmt,
		 size_t bytes, size_t subbuf, uint64_t *m)
{
	struct ring_cfg rc = {
		.mode = mode,
		.fmt = rec_format_get(fmt),
		.mem = m,
		.bytes = bytes,
		.subbuf_bytes = subbuf,
		.cpu = CPU,
	};

	assert_int_equal(consumer_init(c, f, map, &rc), 0);
}

/* --- the tests ------------------------------------------------------------ */

/* consumer_init's checks; consumer_accepts() by class and filter. */
static void test_init_and_accepts(void **state)
{
	const struct {
		uint64_t from, to;
		bool kernel, user;
	} cases[] = {
		{ KA, KB, true, false },       /* kernel */
		{ UA, UB, false, true },       /* user */
		{ UA, KA, true, true },	       /* entry */
		{ KB, UB, true, true },	       /* exit */
		{ ULO - 1, UHI, true, false }, /* both ends just outside */
		{ ULO, UHI - 1, false, true }, /* both ends just inside */
		{ 0, ~0ull, true, false },     /* the extremes */
	};
	struct mode_map bad = { .user_lo = UHI, .user_hi = ULO };
	struct consumer c;
	struct ring_cfg rc = {
		.mode = RING_NOLOSS,
		.fmt = rec_format_get(REC_RAW),
		.mem = mem[0],
		.bytes = 1024,
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bts_record r = { cases[i].from, cases[i].to, 0 };

		assert_int_equal(consumer_init(&c, CF_KERNEL, NULL, &rc), 0);
		assert_int_equal(consumer_accepts(&c, &r), cases[i].kernel);
		c.filter = CF_USER;
		assert_int_equal(consumer_accepts(&c, &r), cases[i].user);
		c.filter = CF_BOTH;
		assert_true(consumer_accepts(&c, &r));
	}
	/* NULL is the default map; a given map is copied. */
	assert_int_equal(consumer_init(&c, CF_USER, NULL, &rc), 0);
	assert_int_equal(c.map.user_lo, ULO);
	assert_int_equal(c.map.user_hi, UHI);
	assert_null(c.map.entry_kind);
	assert_int_equal(consumer_init(&c, CF_USER, &cb_map, &rc), 0);
	assert_ptr_equal(c.map.entry_kind, kind_cb);
	assert_ptr_equal(c.map.ctx, &kind_calls);
	assert_int_equal(consumer_init(&c, CF_NFILTERS, NULL, &rc), -1);
	assert_int_equal(consumer_init(&c, CF_BOTH, &bad, &rc), -1);
	rc.bytes = 24;
	assert_int_equal(consumer_init(&c, CF_BOTH, NULL, &rc), -1);
	assert_string_equal(consumer_filter_name(CF_KERNEL), "kernel");
	assert_string_equal(consumer_filter_name(CF_USER), "user");
	assert_string_equal(consumer_filter_name(CF_BOTH), "both");
	assert_string_equal(consumer_filter_name(CF_NFILTERS), "?");
}

/*
 * Every filter x ring mode x format: three consumers (both, user,
 * kernel) on one stream with all four classes, fed in batches of 1 to
 * 37 records so runs are cut at batch edges too; each ring gets exactly
 * the expected stream. The entry_kind callback runs once per entry per
 * filtering consumer.
 */
static void test_matrix(void **state)
{
	static const enum consumer_filter filters[NCONSUMERS] = { CF_BOTH,
								  CF_USER,
								  CF_KERNEL };
	size_t i, entries = 0;
	int mode, fmt;

	(void)state;
	tl_seed = 0;
	tl_recs(src, NREC, 0);
	for (i = 0; i < NREC; i++)
		entries += t_user(src[i].from) && !t_user(src[i].to);
	assert_int_equal(entries, NREC / 8);
	for (mode = 0; mode < RING_NMODES; mode++)
		for (fmt = 0; fmt < REC_NFORMATS; fmt++) {
			static struct consumer c[NCONSUMERS];
			struct consumer_set set = { .n = 0 };
			size_t at = 0, k = 1;

			for (i = 0; i < NCONSUMERS; i++) {
				init(&c[i], filters[i], &cb_map, mode, fmt,
				     RING_BYTES, SUBBUF, mem[i]);
				assert_int_equal(consumer_set_add(&set, &c[i]),
						 0);
			}
			kind_calls = 0;
			for (at = 0; at < NREC; at += k, k = k % 37 + 1)
				consumer_set_emit(&set, src + at,
						  k < NREC - at ? k : NREC - at,
						  at);
			assert_int_equal(kind_calls, 2 * entries);
			for (i = 0; i < NCONSUMERS; i++)
				check_consumer(&c[i], src, NREC, 0, true);
		}
}

/*
 * The seeded pseudo-random stream (runs of every length, all classes
 * next to each other) through every ring mode and format, one
 * record per batch and the whole stream as one batch.
 */
static void test_random_streams(void **state)
{
	int mode, fmt, seed;

	(void)state;
	for (seed = 1; seed <= 8; seed++) {
		tl_seed = (uint64_t)seed * 0x1234567;
		tl_recs(src, NREC, 100);
		for (mode = 0; mode < RING_NMODES; mode++)
			for (fmt = 0; fmt < REC_NFORMATS; fmt++) {
				static struct consumer c[2];
				struct consumer_set set = { .n = 0 };
				size_t i;

				init(&c[0], CF_USER, &cb_map, mode, fmt,
				     RING_BYTES, SUBBUF, mem[0]);
				init(&c[1], CF_KERNEL, NULL, mode, fmt,
				     RING_BYTES, SUBBUF, mem[1]);
				consumer_set_add(&set, &c[0]);
				consumer_set_add(&set, &c[1]);
				if (seed % 2)
					consumer_set_emit(&set, src, NREC, 100);
				else
					for (i = 0; i < NREC; i++)
						consumer_set_emit(&set, src + i,
								  1, 100 + i);
				check_consumer(&c[0], src, NREC, 100, true);
				check_consumer(&c[1], src, NREC, 100, false);
			}
	}
	tl_seed = 0;
}

/* Pseudo-records in the middle of batches, by hand: exact bytes. */
static void test_pseudo_by_hand(void **state)
{
	const struct bts_record recs[] = {
		{ UA, UB, BTS_FLAG_PREDICTED }, /* user */
		{ UB, KA, 0 },			/* entry */
		{ KA, KB, 0 },			/* kernel */
		{ KB, UA, BTS_FLAG_PREDICTED }, /* exit */
		{ UA, UA + 8, 0 },		/* user */
	};
	struct consumer u, k;
	struct bts_record got[5];

	(void)state;
	init(&u, CF_USER, &cb_map, RING_NOLOSS, REC_RAW, 1024, 0, mem[0]);
	init(&k, CF_KERNEL, &cb_map, RING_NOLOSS, REC_RAW, 1024, 0, mem[1]);
	kind_calls = 0;
	consumer_set_emit(&(struct consumer_set){ .c = { &u, &k }, .n = 2 },
			  recs, 5, 40);
	assert_int_equal(kind_calls, 2);
	assert_int_equal(ring_read(&u.ring, got, 5), 4);
	assert_memory_equal(&got[0], &recs[0], 24);
	assert_int_equal(got[1].from, UB);
	assert_int_equal(got[1].to, 0);
	assert_int_equal(got[1].flags,
			 REC_RAW_MODE | (uint64_t)REC_KERNEL_ENTER << 16 |
				 (uint64_t)want_kind(KA, true) << 8);
	assert_int_equal(got[2].from, 0);
	assert_int_equal(got[2].to, UA);
	assert_int_equal(got[2].flags,
			 REC_RAW_MODE | (uint64_t)REC_KERNEL_EXIT << 16);
	assert_memory_equal(&got[3], &recs[4], 24);
	assert_int_equal(ring_read(&k.ring, got, 5), 3);
	assert_int_equal(got[0].from, 0);
	assert_int_equal(got[0].to, KA);
	assert_memory_equal(&got[1], &recs[2], 24);
	assert_int_equal(got[2].from, KB);
	assert_int_equal(got[2].to, 0);
	assert_int_equal(u.acct.filtered, 1);
	assert_int_equal(u.acct.delivered, 4);
	assert_int_equal(k.acct.filtered, 2);
	assert_int_equal(k.acct.delivered, 3);
}

static void decode_at(const struct consumer *c, const uint8_t *buf, size_t i,
		      struct rec_event *ev)
{
	assert_true(c->ring.fmt->decode(buf + i * c->ring.rec, ev));
}

/*
 * A full noloss ring loses pseudo-records like records: counted ring_full
 * and included in the lost marker that comes first when there is room.
 */
static void test_pseudo_noloss_full(void **state)
{
	const struct bts_record four_user[] = {
		{ UA, UB, 0 },
		{ UA + 4, UB, 0 },
		{ UA + 8, UB, 0 },
		{ UA + 12, UB, 0 },
	};
	const struct bts_record entry = { UA, KA, 0 }, exit = { KB, UB, 0 };
	int fmt;

	(void)state;
	for (fmt = 0; fmt < REC_NFORMATS; fmt++) {
		struct consumer c;
		struct consumer_set set = { .c = { &c }, .n = 1 };
		size_t sz = rec_formats[fmt].size;
		uint8_t buf[8 * REC_MAX_SIZE];
		struct rec_event ev;
		size_t i;

		init(&c, CF_USER, NULL, RING_NOLOSS, fmt, 4 * sz, 0, mem[0]);
		consumer_set_emit(&set, four_user, 4, 0); /* full, no loss */
		consumer_set_emit(&set, &entry, 1, 4);	  /* lost */
		assert_int_equal(c.acct.lost[BTS_LOSS_RING_FULL], 1);
		consumer_set_emit(&set, four_user, 1, 5); /* lost */
		assert_int_equal(c.acct.delivered, 4);
		assert_int_equal(c.acct.lost[BTS_LOSS_RING_FULL], 2);
		/* The lost pseudo-record wrote nothing over the records. */
		assert_int_equal(ring_read(&c.ring, buf, 8), 4);
		for (i = 0; i < 4; i++) {
			decode_at(&c, buf, i, &ev);
			assert_int_equal(ev.type, REC_BRANCH);
			assert_int_equal(ev.from,
					 fmt == REC_COMPAT32
						 ? (uint32_t)(UA + 4 * i)
						 : UA + 4 * i);
		}
		consumer_set_emit(&set, &exit, 1, 6); /* marker, then it */
		assert_int_equal(ring_read(&c.ring, buf, 8), 2);
		decode_at(&c, buf, 0, &ev);
		assert_int_equal(ev.type, REC_LOST);
		assert_int_equal(ev.lost, 2);
		assert_int_equal(ev.cause, BTS_LOSS_RING_FULL);
		if (fmt == REC_FIXED)
			assert_int_equal(ev.seq, 6);
		decode_at(&c, buf, 1, &ev);
		assert_int_equal(ev.type, REC_KERNEL_EXIT);
		assert_int_equal(ev.from, 0);
		assert_int_equal(ev.to,
				 fmt == REC_COMPAT32 ? (uint32_t)UB : UB);
		if (fmt == REC_FIXED)
			assert_int_equal(ev.seq, 6);
		assert_int_equal(c.acct.produced, 7);
		assert_int_equal(c.acct.delivered, 5);
		assert_int_equal(c.acct.lost[BTS_LOSS_RING_FULL], 2);
		assert_true(bts_account_balanced(&c.acct));
	}
}

/* A flight recorder overwrites its oldest record for a pseudo-record. */
static void test_pseudo_overwrite(void **state)
{
	const struct bts_record k3[] = {
		{ KA, KB, 0 },
		{ KA + 4, KB, 0 },
		{ KA + 8, KB, 0 },
	};
	const struct bts_record entry = { UA, KA + 12, 0 },
				exit = { KB, UB, 0 };
	int fmt;

	(void)state;
	for (fmt = 0; fmt < REC_NFORMATS; fmt++) {
		struct consumer c;
		struct consumer_set set = { .c = { &c }, .n = 1 };
		size_t sz = rec_formats[fmt].size;
		uint8_t buf[4 * REC_MAX_SIZE];
		struct rec_event ev;
		uint64_t first;

		init(&c, CF_KERNEL, &cb_map, RING_OVERWRITE, fmt, 3 * sz, 0,
		     mem[0]);
		consumer_set_emit(&set, k3, 3, 0);
		consumer_set_emit(&set, &entry, 1, 3);
		consumer_set_emit(&set, &exit, 1, 4);
		assert_int_equal(c.acct.delivered, 3);
		assert_int_equal(c.acct.lost[BTS_LOSS_OVERWRITTEN], 2);
		assert_true(bts_account_balanced(&c.acct));
		assert_int_equal(ring_read_newest(&c.ring, buf, 4, &first), 3);
		assert_int_equal(first, 2);
		decode_at(&c, buf, 0, &ev);
		assert_int_equal(ev.type, REC_BRANCH);
		assert_int_equal(ev.from,
				 (uint32_t)(KA + 8) |
					 (fmt == REC_COMPAT32
						  ? 0
						  : (KA + 8) >> 32 << 32));
		decode_at(&c, buf, 1, &ev);
		assert_int_equal(ev.type, REC_KERNEL_ENTER);
		assert_int_equal(ev.kind, want_kind(KA + 12, true));
		assert_int_equal(ev.from, 0);
		decode_at(&c, buf, 2, &ev);
		assert_int_equal(ev.type, REC_KERNEL_EXIT);
		assert_int_equal(ev.kind, ENTRY_UNKNOWN);
		assert_int_equal(ev.to, 0);
		if (fmt == REC_FIXED)
			assert_int_equal(ev.seq, 4);
	}
}

/*
 * Sub-buffers: with no packet to open a pseudo-record is discarded and
 * counted in the next packet's header, like a record.
 */
static void test_pseudo_subbuf(void **state)
{
	const struct bts_record u2[] = { { UA, UB, 0 }, { UB, UA, 0 } };
	const struct bts_record entry = { UA, KA, 0 }, exit = { KB, UB, 0 };
	int fmt;

	(void)state;
	for (fmt = 0; fmt < REC_NFORMATS; fmt++) {
		struct consumer c;
		struct consumer_set set = { .c = { &c }, .n = 1 };
		size_t sz = rec_formats[fmt].size;
		size_t sb = (sizeof(struct ring_packet) + 2 * sz + 7) / 8 * 8;
		const struct ring_packet *p;
		struct rec_event ev;

		/* One sub-buffer and the reader's spare: two records each. */
		init(&c, CF_USER, NULL, RING_SUBBUF, fmt, 2 * sb, sb, mem[0]);
		assert_int_equal(c.ring.s.per_packet, 2);
		consumer_set_emit(&set, u2, 2, 0);     /* packet 0 full */
		consumer_set_emit(&set, &entry, 1, 2); /* nowhere: lost */
		assert_int_equal(c.acct.lost[BTS_LOSS_RING_FULL], 1);
		p = ring_subbuf_get(&c.ring);
		assert_non_null(p);
		assert_int_equal(p->nrec, 2);
		assert_int_equal(p->discarded, 0);
		ring_subbuf_put(&c.ring, p);
		consumer_set_emit(&set, &exit, 1, 3);
		consumer_set_flush(&set);
		p = ring_subbuf_get(&c.ring);
		assert_non_null(p);
		assert_int_equal(p->seq, 1);
		assert_int_equal(p->discarded, 1);
		assert_int_equal(p->nrec, 1);
		assert_true(rec_formats[fmt].decode(p + 1, &ev));
		assert_int_equal(ev.type, REC_KERNEL_EXIT);
		assert_int_equal(ev.from, 0);
		ring_subbuf_put(&c.ring, p);
		assert_int_equal(c.acct.produced, 4);
		assert_int_equal(c.acct.delivered, 3);
		assert_true(bts_account_balanced(&c.acct));
	}
}

/*
 * Three consumers on one inline drain (the real drain path, the default
 * map): kernel-only into a noloss raw ring, user-only into sub-buffers
 * of fixed records, everything into a compat32 noloss ring. Each gets
 * exactly its records, in order.
 */
static void test_splay(void **state)
{
	static struct consumer k, u, all;
	static struct sim s;
	struct consumer_set set = { .n = 0 };
	struct sim_params p = {
		.id = DRAIN_INLINE,
		.nbufs = 1,
		.records = 100,
		.headroom = 10,
		.sink = { consumer_set_emit, &set },
	};
	const uint64_t total = 600;

	(void)state;
	tl_seed = 0;
	init(&k, CF_KERNEL, NULL, RING_NOLOSS, REC_RAW, RING_BYTES, 0, mem[0]);
	init(&u, CF_USER, NULL, RING_SUBBUF, REC_FIXED, RING_BYTES, SUBBUF,
	     mem[1]);
	init(&all, CF_BOTH, NULL, RING_NOLOSS, REC_COMPAT32, RING_BYTES, 0,
	     mem[2]);
	assert_int_equal(consumer_set_add(&set, &k), 0);
	assert_int_equal(consumer_set_add(&set, &u), 0);
	assert_int_equal(consumer_set_add(&set, &all), 0);
	assert_int_equal(sim_init(&s, &p), 0);
	sim_run(&s, total);
	sim_finish(&s);
	tl_recs(src, total, 0);
	check_consumer(&k, src, total, 0, false);
	check_consumer(&u, src, total, 0, false);
	check_consumer(&all, src, total, 0, false);
	/* 3 of 8 records are the other side's: filtered. */
	assert_int_equal(k.acct.filtered, total / 8 * 3);
	assert_int_equal(u.acct.filtered, total / 8 * 3);
}

/*
 * A small ring overflows and loses records (ring_full); a flight recorder
 * overwrites; a large one beside them loses nothing. Filtered records
 * are never counted as lost.
 */
static void test_loss_per_consumer(void **state)
{
	static struct consumer small, big, rec;
	static struct sim s;
	/* kernel filter: 5 of every 8 records reach the ring */
	const uint64_t nk = 300 / 8 * 5 + 4; /* 300 % 8 = 4: K K K X */
	struct consumer_set set = { .n = 0 };
	struct sim_params p = {
		.id = DRAIN_INLINE,
		.nbufs = 1,
		.records = 100,
		.headroom = 10,
		.sink = { consumer_set_emit, &set },
	};

	(void)state;
	tl_seed = 0;
	init(&small, CF_KERNEL, NULL, RING_NOLOSS, REC_FIXED, 10 * 32, 0,
	     mem[0]);
	init(&big, CF_USER, NULL, RING_NOLOSS, REC_RAW, RING_BYTES, 0, mem[1]);
	init(&rec, CF_KERNEL, NULL, RING_OVERWRITE, REC_RAW, 10 * 24, 0,
	     mem[2]);
	consumer_set_add(&set, &small);
	consumer_set_add(&set, &big);
	consumer_set_add(&set, &rec);
	assert_int_equal(sim_init(&s, &p), 0);
	sim_run(&s, 300);
	sim_finish(&s);

	assert_int_equal(small.acct.filtered, 300 - nk);
	assert_int_equal(small.acct.delivered, 10);
	assert_int_equal(small.acct.lost[BTS_LOSS_RING_FULL], nk - 10);
	assert_int_equal(bts_account_lost_total(&big.acct), 0);
	assert_int_equal(big.acct.delivered, 300 / 8 * 5 + 1);
	assert_int_equal(rec.acct.delivered, 10);
	assert_int_equal(rec.acct.lost[BTS_LOSS_OVERWRITTEN], nk - 10);
	assert_true(bts_account_balanced(&small.acct));
	assert_true(bts_account_balanced(&big.acct));
	assert_true(bts_account_balanced(&rec.acct));
}

/* The set has a fixed size. */
static void test_set_full(void **state)
{
	struct consumer_set set = { .n = 0 };
	struct consumer c;
	size_t i;

	(void)state;
	for (i = 0; i < CONSUMER_MAX; i++)
		assert_int_equal(consumer_set_add(&set, &c), 0);
	assert_int_equal(consumer_set_add(&set, &c), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_and_accepts),
		cmocka_unit_test(test_matrix),
		cmocka_unit_test(test_random_streams),
		cmocka_unit_test(test_pseudo_by_hand),
		cmocka_unit_test(test_pseudo_noloss_full),
		cmocka_unit_test(test_pseudo_overwrite),
		cmocka_unit_test(test_pseudo_subbuf),
		cmocka_unit_test(test_splay),
		cmocka_unit_test(test_loss_per_consumer),
		cmocka_unit_test(test_set_full),
	};

	return cmocka_run_group_tests_name("consumer", tests, NULL, NULL);
}

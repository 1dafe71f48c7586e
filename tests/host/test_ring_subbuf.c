/*
 * Unit tests for the sub-buffer ring: packet boundaries for every batch
 * size, headers (sequence, discarded count, record count), the zero-copy
 * exchange of the reader's spare, a full ring that discards and reports
 * it in the next packet, and flushing a partial packet.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* cmocka needs the headers above */
#include <cmocka.h>

#include "lib/ring.h"
#include "tests/host/drain_testlib.h"

#define NSUB	4 /* packets in the ring (plus the reader's spare) */
#define PER_PKT 3 /* records per packet */

static uint64_t mem[(NSUB + 1) * (24 + PER_PKT * 32) / 8];

static void setup(struct ring *r, struct bts_account *a, int fmt)
{
	const struct rec_format *f = rec_format_get(fmt);
	size_t sb = (24 + PER_PKT * f->size + 7) / 8 * 8;
	struct ring_cfg cfg = {
		.mode = RING_SUBBUF,
		.fmt = f,
		.mem = mem,
		.bytes = (NSUB + 1) * sb,
		.subbuf_bytes = sb,
		.cpu = 2,
	};

	bts_account_reset(a);
	assert_int_equal(ring_init(r, &cfg, a), 0);
	assert_int_equal(r->s.per_packet, PER_PKT);
	assert_int_equal(ring_capacity(r), NSUB * PER_PKT);
}

static size_t offer(struct ring *r, struct bts_account *a, size_t n,
		    uint64_t seq)
{
	struct bts_record src[4 * NSUB * PER_PKT];

	tl_recs(src, n, seq);
	bts_count(&a->produced, n);
	return ring_write(r, src, n, seq);
}

/* Take one packet, check its header and records, give it back. */
static void take(struct ring *r, uint64_t pkt, uint64_t discarded,
		 uint32_t nrec, uint64_t seq)
{
	const struct ring_packet *p = ring_subbuf_get(r);
	const uint8_t *recs = (const uint8_t *)(p + 1);
	uint32_t i;

	assert_non_null(p);
	assert_int_equal(p->seq, pkt);
	assert_int_equal(p->discarded, discarded);
	assert_int_equal(p->nrec, nrec);
	assert_int_equal(p->rec_size, r->rec);
	assert_int_equal(p->format, r->fmt->id);
	for (i = 0; i < nrec; i++)
		assert_true(tl_match(r->fmt, recs + i * r->rec, seq + i));
	ring_subbuf_put(r, p);
}

/*
 * Batches of every size from 1 to the ring's capacity: packets come out
 * full, numbered, with the records in order; the reader keeps up.
 */
static void test_boundaries(void **state)
{
	int fmt;

	(void)state;
	for (fmt = 0; fmt < REC_NFORMATS; fmt++) {
		struct bts_account a;
		struct ring r;
		uint64_t seq = 0, pkt = 0, rseq = 0;
		size_t n;

		setup(&r, &a, fmt);
		for (n = 1; n <= NSUB * PER_PKT; n++) {
			assert_int_equal(offer(&r, &a, n, seq), n);
			seq += n;
			while (seq - rseq >= PER_PKT) {
				take(&r, pkt++, 0, PER_PKT, rseq);
				rseq += PER_PKT;
			}
			assert_null(ring_subbuf_get(&r));
		}
		ring_flush(&r);
		if (seq > rseq)
			take(&r, pkt++, 0, seq - rseq, rseq);
		assert_null(ring_subbuf_get(&r));
		assert_true(bts_account_balanced(&a));
	}
}

static int cmp_ptr(const void *x, const void *y)
{
	uintptr_t a = *(const uintptr_t *)x, b = *(const uintptr_t *)y;

	return a < b ? -1 : a > b;
}

/* The n + 1 sub-buffers of the ring, sorted. */
static void buffer_set(const struct ring *r, uintptr_t *set)
{
	size_t i;

	for (i = 0; i < NSUB; i++)
		set[i] = (uintptr_t)r->s.slot[i];
	set[NSUB] = (uintptr_t)r->s.spare;
	qsort(set, NSUB + 1, sizeof(*set), cmp_ptr);
}

/*
 * The exchange moves pointers, never records: the packet handed out is
 * the table entry it replaced, the spare takes its place, and the set of
 * n + 1 sub-buffers never changes. Without a put, no second get.
 */
static void test_exchange(void **state)
{
	uintptr_t set0[NSUB + 1], set[NSUB + 1];
	const struct ring_packet *p;
	struct bts_account a;
	struct ring r;
	int round;

	(void)state;
	setup(&r, &a, REC_RAW);
	buffer_set(&r, set0);
	for (round = 0; round < 3 * NSUB; round++) {
		size_t slot = (size_t)round % NSUB;
		uint8_t *before = r.s.slot[slot], *spare = r.s.spare;

		offer(&r, &a, PER_PKT, (uint64_t)round * PER_PKT);
		p = ring_subbuf_get(&r);
		assert_ptr_equal(p, before);
		assert_ptr_equal(r.s.slot[slot], spare);
		assert_null(r.s.spare);
		ring_subbuf_put(&r, p);
		buffer_set(&r, set);
		assert_memory_equal(set, set0, sizeof(set));
	}
	offer(&r, &a, 2 * PER_PKT, 0);
	p = ring_subbuf_get(&r);
	assert_non_null(p);
	assert_null(ring_subbuf_get(&r));
	ring_subbuf_put(&r, p);
	assert_non_null(ring_subbuf_get(&r));
}

/*
 * No reader: the ring fills, later records are discarded and counted,
 * and the next packet committed after the reader frees one says how many
 * were discarded before it.
 */
static void test_full(void **state)
{
	int fmt;

	(void)state;
	for (fmt = 0; fmt < REC_NFORMATS; fmt++) {
		struct bts_account a;
		struct ring r;
		uint64_t pkt;

		setup(&r, &a, fmt);
		assert_int_equal(offer(&r, &a, NSUB * PER_PKT + 2, 0),
				 NSUB * PER_PKT);
		assert_int_equal(offer(&r, &a, 5, 100), 0);
		assert_int_equal(a.lost[BTS_LOSS_RING_FULL], 7);
		take(&r, 0, 0, PER_PKT, 0);
		assert_int_equal(offer(&r, &a, 1, 200), 1);
		ring_flush(&r); /* commits packet NSUB: 1 record */
		for (pkt = 1; pkt < NSUB; pkt++)
			take(&r, pkt, 0, PER_PKT, pkt * PER_PKT);
		take(&r, NSUB, 7, 1, 200);
		assert_null(ring_subbuf_get(&r));
		assert_true(bts_account_balanced(&a));
	}
}

/* A flush of an empty open packet commits nothing; a discard-only one
 * commits an empty packet that carries the count. */
static void test_flush(void **state)
{
	struct bts_account a;
	struct ring r;
	uint64_t pkt;

	(void)state;
	setup(&r, &a, REC_FIXED);
	ring_flush(&r);
	assert_null(ring_subbuf_get(&r));
	offer(&r, &a, NSUB * PER_PKT + 4, 0);
	ring_flush(&r); /* nowhere to commit: the count stays pending */
	for (pkt = 0; pkt < NSUB; pkt++)
		take(&r, pkt, 0, PER_PKT, pkt * PER_PKT);
	ring_flush(&r);
	take(&r, NSUB, 4, 0, 0);
	assert_null(ring_subbuf_get(&r));
}

/* The copying reader returns the same records, across packets. */
static void test_copying_read(void **state)
{
	const struct rec_format *f = rec_format_get(REC_COMPAT32);
	uint8_t out[NSUB * PER_PKT * 12];
	struct bts_account a;
	struct ring r;
	size_t i;

	(void)state;
	setup(&r, &a, REC_COMPAT32);
	offer(&r, &a, 2 * PER_PKT + 1, 50);
	assert_int_equal(ring_read(&r, out, 4), 4);
	ring_flush(&r);
	assert_int_equal(ring_read(&r, out + 4 * 12, 10), 2 * PER_PKT + 1 - 4);
	for (i = 0; i < 2 * PER_PKT + 1; i++)
		assert_true(tl_match(f, out + i * 12, 50 + i));
	assert_int_equal(ring_read(&r, out, 10), 0);
}

/* Geometries that cannot work are refused. */
static void test_bad_config(void **state)
{
	struct ring_cfg cfg = {
		.mode = RING_SUBBUF,
		.fmt = rec_format_get(REC_FIXED),
		.mem = mem,
		.bytes = sizeof(mem),
		.subbuf_bytes = 24 + 32,
	};
	struct bts_account a;
	struct ring r;

	(void)state;
	assert_int_equal(ring_init(&r, &cfg, &a), 0);
	cfg.subbuf_bytes = 24 + 31; /* no room for one record */
	assert_int_equal(ring_init(&r, &cfg, &a), -1);
	cfg.subbuf_bytes = 60; /* not a multiple of 8 */
	assert_int_equal(ring_init(&r, &cfg, &a), -1);
	cfg.subbuf_bytes = sizeof(mem); /* no spare */
	assert_int_equal(ring_init(&r, &cfg, &a), -1);
	cfg.subbuf_bytes = 8;
	assert_int_equal(ring_init(&r, &cfg, &a), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boundaries),
		cmocka_unit_test(test_exchange),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_flush),
		cmocka_unit_test(test_copying_read),
		cmocka_unit_test(test_bad_config),
	};

	return cmocka_run_group_tests_name("ring_subbuf", tests, NULL, NULL);
}

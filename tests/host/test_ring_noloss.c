/*
 * Unit tests for the noloss ring (lib/ring_noloss.c): every format at
 * every wrap offset with records straddling the end, empty and full, the
 * lost marker and its placement, and the consumer's account.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* cmocka needs the headers above */
#include <cmocka.h>

#include "lib/ring.h"
#include "tests/host/drain_testlib.h"

#define CAPN 5 /* records the test rings hold */

static uint64_t mem[64];

static void setup(struct ring *r, struct bts_account *a, int fmt, size_t extra)
{
	const struct rec_format *f = rec_format_get(fmt);
	struct ring_cfg cfg = {
		.mode = RING_NOLOSS,
		.fmt = f,
		.mem = mem,
		.bytes = CAPN * f->size + extra,
		.cpu = 1,
	};

	bts_account_reset(a);
	assert_int_equal(ring_init(r, &cfg, a), 0);
}

/* Write n records from seq, count them offered; return records stored. */
static size_t offer(struct ring *r, struct bts_account *a, size_t n,
		    uint64_t seq)
{
	struct bts_record src[4 * CAPN];

	tl_recs(src, n, seq);
	bts_count(&a->produced, n);
	return ring_write(r, src, n, seq);
}

/*
 * One step per byte of the ring (the ring's size is coprime with the
 * record size, so the write position visits every offset), with batches
 * of every size from 1 to the capacity: what goes in comes out, in order.
 */
static void test_every_offset(void **state)
{
	int fmt;

	(void)state;
	for (fmt = 0; fmt < REC_NFORMATS; fmt++) {
		const struct rec_format *f = rec_format_get(fmt);
		uint8_t out[CAPN * REC_MAX_SIZE];
		struct bts_account a;
		struct ring r;
		uint64_t seq = 0;
		size_t step, i;

		setup(&r, &a, fmt, 1);
		for (step = 0; step < r.b.bytes; step++) {
			size_t n = step % CAPN + 1;

			assert_int_equal(offer(&r, &a, n, seq), n);
			assert_int_equal(ring_read(&r, out, CAPN), n);
			for (i = 0; i < n; i++)
				assert_true(tl_match(f, out + i * f->size,
						     seq + i));
			seq += n;
		}
		assert_int_equal(a.delivered, seq);
		assert_true(bts_account_balanced(&a));
	}
}

/* An empty ring reads nothing; a partial read leaves the rest in order. */
static void test_empty_and_partial(void **state)
{
	const struct rec_format *f = rec_format_get(REC_FIXED);
	uint8_t out[CAPN * REC_MAX_SIZE];
	struct bts_account a;
	struct ring r;

	(void)state;
	setup(&r, &a, REC_FIXED, 0);
	assert_int_equal(ring_read(&r, out, CAPN), 0);
	assert_int_equal(offer(&r, &a, 3, 10), 3);
	assert_int_equal(ring_read(&r, out, 2), 2);
	assert_true(tl_match(f, out + f->size, 11));
	assert_int_equal(ring_read(&r, out, CAPN), 1);
	assert_true(tl_match(f, out, 12));
	assert_int_equal(ring_read(&r, out, CAPN), 0);
}

/*
 * Full ring: the overflow is dropped and counted; the next write with
 * room for the marker and one record emits the marker, with the count
 * and cause, just before that record. At every offset, every format.
 */
static void test_full_and_lost_marker(void **state)
{
	int fmt;

	(void)state;
	for (fmt = 0; fmt < REC_NFORMATS; fmt++) {
		const struct rec_format *f = rec_format_get(fmt);
		uint8_t out[CAPN * REC_MAX_SIZE];
		struct bts_account a;
		struct ring r;
		uint64_t seq = 0, lost = 0;
		size_t step;

		setup(&r, &a, fmt, 3);
		for (step = 0; step < r.b.bytes; step++) {
			struct rec_event ev;
			size_t over = step % 3 + 1;

			/* Fill with one record more than fits, plus more. */
			assert_int_equal(offer(&r, &a, CAPN + over, seq), CAPN);
			seq += CAPN + over;
			/* One slot free: no room for marker + record. */
			assert_int_equal(ring_read(&r, out, 1), 1);
			assert_int_equal(offer(&r, &a, 1, seq), 0);
			seq++;
			/* Two free: marker, then the record. */
			assert_int_equal(ring_read(&r, out, 1), 1);
			assert_int_equal(offer(&r, &a, 2, seq), 1);
			assert_int_equal(ring_read(&r, out, CAPN), CAPN);
			assert_true(f->decode(out + (CAPN - 2) * f->size, &ev));
			assert_int_equal(ev.type, REC_LOST);
			assert_int_equal(ev.lost, over + 1);
			assert_int_equal(ev.cause, BTS_LOSS_RING_FULL);
			if (fmt == REC_FIXED)
				assert_int_equal(ev.seq, seq);
			assert_true(
				tl_match(f, out + (CAPN - 1) * f->size, seq));
			/* The second record of that batch is pending. */
			seq += 2;
			assert_int_equal(offer(&r, &a, 1, seq), 1);
			assert_int_equal(ring_read(&r, out, CAPN), 2);
			assert_true(f->decode(out, &ev));
			assert_int_equal(ev.lost, 1);
			seq++;
			lost += over + 2;
		}
		assert_int_equal(a.lost[BTS_LOSS_RING_FULL], lost);
		assert_true(bts_account_balanced(&a));
	}
}

/* A zero-record write neither stores nor emits a pending marker. */
static void test_zero_write(void **state)
{
	uint8_t out[CAPN * REC_MAX_SIZE];
	struct bts_account a;
	struct ring r;

	(void)state;
	setup(&r, &a, REC_RAW, 0);
	assert_int_equal(offer(&r, &a, CAPN + 1, 0), CAPN);
	assert_int_equal(ring_read(&r, out, CAPN), CAPN);
	assert_int_equal(offer(&r, &a, 0, 6), 0);
	assert_int_equal(ring_read(&r, out, CAPN), 0);
	assert_int_equal(r.b.pending, 1);
}

/* Configurations that cannot work are refused. */
static void test_bad_config(void **state)
{
	struct ring_cfg cfg = {
		.mode = RING_NOLOSS,
		.fmt = rec_format_get(REC_RAW),
		.mem = mem,
		.bytes = 2 * 24 - 1,
	};
	struct bts_account a;
	struct ring r;

	(void)state;
	assert_int_equal(ring_init(&r, &cfg, &a), -1);
	cfg.bytes = 48;
	assert_int_equal(ring_init(&r, &cfg, &a), 0);
	assert_int_equal(ring_capacity(&r), 2);
	cfg.mem = (uint8_t *)mem + 4;
	assert_int_equal(ring_init(&r, &cfg, &a), -1);
	cfg.mem = mem;
	cfg.fmt = NULL;
	assert_int_equal(ring_init(&r, &cfg, &a), -1);
	cfg.fmt = rec_format_get(REC_RAW);
	cfg.mode = RING_NMODES;
	assert_int_equal(ring_init(&r, &cfg, &a), -1);
	assert_string_equal(ring_mode_name(RING_NOLOSS), "noloss");
	assert_string_equal(ring_mode_name(RING_NMODES), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_offset),
		cmocka_unit_test(test_empty_and_partial),
		cmocka_unit_test(test_full_and_lost_marker),
		cmocka_unit_test(test_zero_write),
		cmocka_unit_test(test_bad_config),
	};

	return cmocka_run_group_tests_name("ring_noloss", tests, NULL, NULL);
}

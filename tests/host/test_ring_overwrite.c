/*
 * Unit tests for the overwrite (flight recorder) ring: at every wrap
 * offset, for every format and batch size, a reader finds the first whole
 * record at the tail and reads the newest N in order; overwritten records
 * are counted; and a reader racing a writer on another CPU never returns
 * a torn or overwritten record.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* cmocka needs the headers above */
#include <cmocka.h>

#include "lib/ring.h"
#include "tests/host/drain_testlib.h"

#define CAPN 5

static uint64_t mem[512];

static void setup(struct ring *r, struct bts_account *a, int fmt, size_t bytes)
{
	struct ring_cfg cfg = {
		.mode = RING_OVERWRITE,
		.fmt = rec_format_get(fmt),
		.mem = mem,
		.bytes = bytes,
	};

	bts_account_reset(a);
	assert_int_equal(ring_init(r, &cfg, a), 0);
}

/* The newest want records end at seq end (exclusive); check them all. */
static void check_newest(struct ring *r, size_t max, uint64_t end)
{
	const struct rec_format *f = r->fmt;
	uint8_t out[4 * CAPN * REC_MAX_SIZE];
	size_t want = max < CAPN ? max : CAPN;
	uint64_t first;
	size_t i, got;

	if (want > end)
		want = end;
	got = ring_read_newest(r, out, max, &first);
	assert_int_equal(got, want);
	assert_int_equal(first, end - want);
	for (i = 0; i < got; i++)
		assert_true(tl_match(f, out + i * f->size, first + i));
}

/*
 * The ring's size is one byte more than CAPN records, coprime with the
 * record size, so the head visits every byte offset; batches of every
 * size up to three times the capacity.
 */
static void test_every_offset(void **state)
{
	int fmt;

	(void)state;
	for (fmt = 0; fmt < REC_NFORMATS; fmt++) {
		const struct rec_format *f = rec_format_get(fmt);
		struct bts_record src[3 * CAPN];
		struct bts_account a;
		struct ring r;
		uint64_t seq = 0;
		size_t step, max;

		setup(&r, &a, fmt, CAPN * f->size + 1);
		assert_int_equal(ring_capacity(&r), CAPN);
		check_newest(&r, CAPN, 0);
		for (step = 0; step < 2 * r.b.bytes; step++) {
			size_t n = step % (3 * CAPN) + 1;
			size_t in = n < CAPN ? n : CAPN;

			tl_recs(src, n, seq);
			bts_count(&a.produced, n);
			assert_int_equal(ring_write(&r, src, n, seq), in);
			seq += n;
			/* The tail is always a whole record. */
			assert_int_equal((r.b.head - r.b.tail) % f->size, 0);
			assert_true(tl_match(f, r.b.mem + r.b.tail % r.b.bytes,
					     r.b.tail / f->size) ||
				    r.b.tail % r.b.bytes + f->size > r.b.bytes);
			for (max = 0; max <= CAPN + 1; max++)
				check_newest(&r, max, seq);
		}
		assert_int_equal(a.delivered, CAPN);
		assert_int_equal(a.lost[BTS_LOSS_OVERWRITTEN], seq - CAPN);
		assert_true(bts_account_balanced(&a));
	}
}

/* read() is read_newest(): it does not consume. */
static void test_read_does_not_consume(void **state)
{
	const struct rec_format *f = rec_format_get(REC_FIXED);
	struct bts_record src[3];
	uint8_t out[3 * 32];
	struct bts_account a;
	struct ring r;

	(void)state;
	setup(&r, &a, REC_FIXED, 3 * 32);
	tl_recs(src, 3, 0);
	ring_write(&r, src, 3, 0);
	ring_flush(&r);
	assert_int_equal(ring_read(&r, out, 2), 2);
	assert_true(tl_match(f, out, 1));
	assert_int_equal(ring_read(&r, out, 3), 3);
	assert_true(tl_match(f, out, 0));
}

/* A capacity that is not a whole number of records is rounded down. */
static void test_capacity(void **state)
{
	struct ring_cfg cfg = {
		.mode = RING_OVERWRITE,
		.fmt = rec_format_get(REC_RAW),
		.mem = mem,
		.bytes = 23,
	};
	struct bts_account a;
	struct ring r;

	(void)state;
	assert_int_equal(ring_init(&r, &cfg, &a), -1);
	cfg.bytes = 24 * 3 + 23;
	assert_int_equal(ring_init(&r, &cfg, &a), 0);
	assert_int_equal(ring_capacity(&r), 3);
	assert_int_equal(r.b.cap, 72);
}

/*
 * A writer thread runs flat out on a small ring while this thread reads
 * the newest records: every record returned must be whole and in order
 * (fixed format: sequence numbers consecutive, contents matching). The
 * ring is small so that the writer laps the reader all the time.
 */
struct race {
	struct ring r;
	uint64_t stop;
	uint64_t written;
};

static void *race_writer(void *arg)
{
	struct race *x = arg;
	struct bts_record src[7];
	uint64_t seq = 0;

	while (!__atomic_load_n(&x->stop, __ATOMIC_RELAXED)) {
		size_t n = seq % 7 + 1;

		tl_recs(src, n, seq);
		ring_write(&x->r, src, n, seq);
		seq += n;
	}
	x->written = seq;
	return NULL;
}

static void test_concurrent_reader(void **state)
{
	static struct race x;
	const struct rec_format *f = rec_format_get(REC_FIXED);
	struct bts_account a;
	uint8_t out[6 * 32];
	pthread_t t;
	uint64_t reads = 0, recs = 0;

	(void)state;
	memset(mem, 0, sizeof(mem));
	bts_account_reset(&a);
	{
		struct ring_cfg cfg = {
			.mode = RING_OVERWRITE,
			.fmt = f,
			.mem = mem,
			.bytes = 6 * 32 + 8,
		};
		assert_int_equal(ring_init(&x.r, &cfg, &a), 0);
	}
	assert_int_equal(pthread_create(&t, NULL, race_writer, &x), 0);
	while (reads < 200000) {
		uint64_t first;
		size_t i, got = ring_read_newest(&x.r, out, 6, &first);

		for (i = 0; i < got; i++)
			assert_true(tl_match(f, out + i * 32, first + i));
		reads++;
		recs += got;
	}
	__atomic_store_n(&x.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	assert_true(recs > 0);
	assert_int_equal(a.delivered + a.lost[BTS_LOSS_OVERWRITTEN], x.written);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_offset),
		cmocka_unit_test(test_read_does_not_consume),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_concurrent_reader),
	};

	return cmocka_run_group_tests_name("ring_overwrite", tests, NULL, NULL);
}

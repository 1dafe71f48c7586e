/*
 * Unit tests for filter and splay (lib/consumer.c): the kernel/user
 * filters at the range edges, several consumers on one producer each
 * getting exactly its share in its own mode and format, and the rule
 * that a filtered record is not a loss while one the ring could not keep
 * is: offered == delivered + filtered + lost for each consumer.
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

#define KLO 0x1000
#define KHI 0x2000

static uint64_t mem[3][2048];

static void init(struct consumer *c, enum consumer_filter f,
		 enum ring_mode mode, int fmt, size_t bytes, uint64_t *m)
{
	struct ring_cfg rc = {
		.mode = mode,
		.fmt = rec_format_get(fmt),
		.mem = m,
		.bytes = bytes,
		.subbuf_bytes = 256,
	};

	assert_int_equal(consumer_init(c, f, TL_KERNEL_LO, TL_KERNEL_HI, &rc),
			 0);
}

/* The ranges: lo is kernel, hi is not; either end decides. */
static void test_filters(void **state)
{
	const struct {
		uint64_t from, to;
		bool kernel, user;
	} cases[] = {
		{ KLO, KLO, true, false },
		{ KHI - 1, KLO + 8, true, false },
		{ KHI, KHI, false, true },
		{ KLO - 1, 0, false, true },
		{ KLO, 0x500, true, true },	/* kernel to user */
		{ 0x500, KHI - 1, true, true }, /* user into kernel */
	};
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

		assert_int_equal(consumer_init(&c, CF_KERNEL, KLO, KHI, &rc),
				 0);
		assert_int_equal(consumer_accepts(&c, &r), cases[i].kernel);
		c.filter = CF_USER;
		assert_int_equal(consumer_accepts(&c, &r), cases[i].user);
		c.filter = CF_BOTH;
		assert_true(consumer_accepts(&c, &r));
	}
	assert_int_equal(consumer_init(&c, CF_NFILTERS, KLO, KHI, &rc), -1);
	assert_int_equal(consumer_init(&c, CF_BOTH, KHI, KLO, &rc), -1);
	assert_string_equal(consumer_filter_name(CF_KERNEL), "kernel");
	assert_string_equal(consumer_filter_name(CF_NFILTERS), "?");
}

/* Read a consumer's ring dry; check each record is the next it should
 * get (filter applied) and count them. */
static uint64_t read_all(struct consumer *c, bool (*want)(uint64_t))
{
	const struct rec_format *f = c->ring.fmt;
	uint8_t out[64 * REC_MAX_SIZE];
	uint64_t seq = 0, n = 0;
	size_t got, i;

	while ((got = ring_read(&c->ring, out, 64))) {
		for (i = 0; i < got; i++) {
			while (!want(seq))
				seq++;
			assert_true(tl_match(f, out + i * f->size, seq));
			seq++;
			n++;
		}
	}
	return n;
}

static bool want_kernel(uint64_t seq)
{
	return tl_is_kernel(seq);
}

static bool want_user(uint64_t seq)
{
	return !tl_is_kernel(seq);
}

static bool want_all(uint64_t seq)
{
	(void)seq;
	return true;
}

/*
 * Three consumers on one inline drain: kernel-only into a noloss raw
 * ring, user-only into sub-buffers of fixed records, everything into a
 * compat32 noloss ring. Rings are large enough: nothing is lost, and
 * each gets exactly its records, in order.
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
	const uint64_t total = 600, nk = tl_kernel_count(total);

	(void)state;
	init(&k, CF_KERNEL, RING_NOLOSS, REC_RAW, sizeof(mem[0]), mem[0]);
	init(&u, CF_USER, RING_SUBBUF, REC_FIXED, sizeof(mem[1]), mem[1]);
	init(&all, CF_BOTH, RING_NOLOSS, REC_COMPAT32, sizeof(mem[2]), mem[2]);
	assert_int_equal(consumer_set_add(&set, &k), 0);
	assert_int_equal(consumer_set_add(&set, &u), 0);
	assert_int_equal(consumer_set_add(&set, &all), 0);
	assert_int_equal(sim_init(&s, &p), 0);
	sim_run(&s, total);
	sim_finish(&s);
	consumer_set_flush(&set);

	assert_int_equal(read_all(&k, want_kernel), nk);
	assert_int_equal(read_all(&u, want_user), total - nk);
	assert_int_equal(read_all(&all, want_all), total);
	assert_int_equal(k.acct.filtered, total - nk);
	assert_int_equal(u.acct.filtered, nk);
	assert_int_equal(all.acct.filtered, 0);
	assert_int_equal(bts_account_lost_total(&k.acct), 0);
	assert_true(bts_account_balanced(&k.acct));
	assert_true(bts_account_balanced(&u.acct));
	assert_true(bts_account_balanced(&all.acct));
	assert_int_equal(k.acct.produced, total);
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
	const uint64_t nk = tl_kernel_count(300);
	struct consumer_set set = { .n = 0 };
	struct sim_params p = {
		.id = DRAIN_INLINE,
		.nbufs = 1,
		.records = 100,
		.headroom = 10,
		.sink = { consumer_set_emit, &set },
	};

	(void)state;
	init(&small, CF_KERNEL, RING_NOLOSS, REC_FIXED, 10 * 32, mem[0]);
	init(&big, CF_USER, RING_NOLOSS, REC_RAW, sizeof(mem[1]), mem[1]);
	init(&rec, CF_KERNEL, RING_OVERWRITE, REC_RAW, 10 * 24, mem[2]);
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
	assert_int_equal(big.acct.delivered, 300 - nk);
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
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_splay),
		cmocka_unit_test(test_loss_per_consumer),
		cmocka_unit_test(test_set_full),
	};

	return cmocka_run_group_tests_name("consumer", tests, NULL, NULL);
}

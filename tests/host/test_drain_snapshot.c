/*
 * Unit tests for the snapshot strategy (circular buffer, copied out on
 * demand): at every wrap position the newest N records come out in
 * order, records never taken are counted as overwritten, a snapshot
 * never returns a record twice, and the DS area is set so that no PMI is
 * ever raised.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* cmocka needs the headers above */
#include <cmocka.h>

#include "tests/host/sim_producer.h"

#define CAP 16

static struct sim s;
static struct check_sink cs;

static void setup(void)
{
	struct sim_params p = {
		.id = DRAIN_SNAPSHOT,
		.nbufs = 1,
		.records = CAP,
		.sink = { check_emit, &cs },
	};

	memset(&cs, 0, sizeof(cs));
	assert_int_equal(sim_init(&s, &p), 0);
}

/*
 * For every run length up to three times the buffer (so the index stops
 * at every position, and at the maximum itself) and every N: the newest
 * min(N, new, CAP) records, in order, ending with the last one written.
 */
static void test_every_wrap_position(void **state)
{
	size_t len, n;

	(void)state;
	for (len = 0; len <= 3 * CAP; len++) {
		for (n = 0; n <= CAP + 1; n++) {
			size_t want = len < CAP ? len : CAP;

			if (want > n)
				want = n;
			setup();
			sim_run(&s, len);
			assert_int_equal(drain_snapshot(&s.d, n), want);
			assert_int_equal(cs.got, want);
			if (want)
				assert_int_equal(cs.next, len);
			assert_false(cs.bad);
			assert_int_equal(s.d.acct.lost[BTS_LOSS_OVERWRITTEN],
					 len - want);
			assert_true(bts_account_balanced(&s.d.acct));
		}
	}
}

/* Successive snapshots take only what is new since the last one. */
static void test_successive(void **state)
{
	uint64_t total = 0;
	size_t round;

	(void)state;
	setup();
	assert_int_equal(drain_snapshot(&s.d, CAP), 0);
	for (round = 1; round < 40; round++) {
		sim_run(&s, round);
		total += drain_snapshot(&s.d, CAP);
		assert_int_equal(drain_snapshot(&s.d, CAP), 0);
	}
	sim_finish(&s);
	assert_false(cs.bad);
	assert_int_equal(cs.got, total);
	assert_int_equal(s.d.acct.produced, s.seq);
	assert_int_equal(s.d.acct.delivered +
				 s.d.acct.lost[BTS_LOSS_OVERWRITTEN],
			 s.seq);
	assert_true(bts_account_balanced(&s.d.acct));
}

/* An index already wrapped to the base reads the same as one left at
 * the maximum. */
static void test_index_at_base(void **state)
{
	(void)state;
	setup();
	sim_run(&s, 2 * CAP);
	assert_int_equal(s.ds.bts_index, s.ds.bts_abs_max);
	s.ds.bts_index = s.ds.bts_base;
	assert_int_equal(drain_snapshot(&s.d, 5), 5);
	assert_int_equal(cs.next, 2 * CAP);
	assert_false(cs.bad);
}

/* Circular mode: threshold above the maximum, no PMI, nothing dropped. */
static void test_no_pmi(void **state)
{
	(void)state;
	setup();
	assert_true(s.ds.bts_int_threshold > s.ds.bts_abs_max);
	sim_run(&s, 10 * CAP);
	assert_int_equal(s.pmis_raised, 0);
	assert_int_equal(s.dropped, 0);
	assert_false(drain_pmi(&s.d));
	sim_finish(&s);
	assert_int_equal(cs.got, CAP);
	assert_true(bts_account_balanced(&s.d.acct));
}

/* Without the producer's written count a snapshot cannot account. */
static void test_needs_count(void **state)
{
	static struct bts_record buf[CAP];
	struct drain_cfg cfg = {
		.ds = &s.ds,
		.bufs = { buf },
		.nbufs = 1,
		.buf_records = CAP,
		.sink = { check_emit, &cs },
	};

	(void)state;
	assert_int_equal(drain_init(&s.d, DRAIN_SNAPSHOT, &cfg), -1);
	cfg.written = &s.written;
	assert_int_equal(drain_init(&s.d, DRAIN_SNAPSHOT, &cfg), 0);
	cfg.nbufs = 2;
	cfg.bufs[1] = buf;
	assert_int_equal(drain_init(&s.d, DRAIN_SNAPSHOT, &cfg), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_wrap_position),
		cmocka_unit_test(test_successive),
		cmocka_unit_test(test_index_at_base),
		cmocka_unit_test(test_no_pmi),
		cmocka_unit_test(test_needs_count),
	};

	return cmocka_run_group_tests_name("drain_snapshot", tests, NULL, NULL);
}

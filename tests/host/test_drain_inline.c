/*
 * Unit tests for the inline strategy (drain in the PMI handler), against
 * the simulated producer: every record arrives once and in order, a late
 * PMI loses the records that did not fit in the headroom with cause
 * "stopped", the per-record baseline delivers the same stream, spurious
 * PMIs are told apart, and bad configurations are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* cmocka needs the headers above */
#include <cmocka.h>

#include "tests/host/sim_producer.h"

static struct sim s;
static struct check_sink cs;

static void setup(size_t records, size_t headroom, bool per_record)
{
	struct sim_params p = {
		.id = DRAIN_INLINE,
		.nbufs = 1,
		.records = records,
		.headroom = headroom,
		.per_record = per_record,
		.sink = { check_emit, &cs },
	};

	memset(&cs, 0, sizeof(cs));
	assert_int_equal(sim_init(&s, &p), 0);
}

/* The books balance and agree with the producer and the sink. */
static void check_books(void)
{
	struct bts_account *a = &s.d.acct;

	assert_false(cs.bad);
	assert_true(bts_account_balanced(a));
	assert_int_equal(a->produced, s.seq);
	assert_int_equal(a->delivered, cs.got);
	assert_int_equal(a->lost[BTS_LOSS_STOPPED], s.dropped);
	assert_int_equal(bts_account_lost_total(a), s.dropped);
}

/* Threshold PMIs drain the buffer; nothing is lost. */
static void test_no_loss(void **state)
{
	(void)state;
	setup(64, 8, false);
	sim_run(&s, 1000);
	/* One PMI per 56 records (threshold at 64 - 8). */
	assert_int_equal(s.d.stats.pmis, 1000 / 56);
	assert_int_equal(s.ds.bts_index - s.ds.bts_base, 1000 % 56 * 24);
	sim_finish(&s);
	assert_int_equal(cs.got, 1000);
	assert_int_equal(cs.gaps, 0);
	assert_int_equal(s.ds.bts_index, s.ds.bts_base);
	check_books();
}

/*
 * A PMI delivered 13 records after the threshold with 8 records of
 * headroom: 5 records each time are dropped at the maximum, counted as
 * stopped, and appear as gaps in the sequence.
 */
static void test_late_pmi(void **state)
{
	(void)state;
	setup(64, 8, false);
	s.pmi_delay = 13;
	sim_run(&s, 1000);
	sim_finish(&s);
	assert_true(s.dropped > 0);
	assert_int_equal(s.dropped, s.d.stats.pmis * 5);
	assert_int_equal(cs.gaps, s.dropped);
	check_books();
}

/* The per-record baseline: same stream, one sink call per record. */
static void test_per_record(void **state)
{
	(void)state;
	setup(64, 8, true);
	sim_run(&s, 500);
	sim_finish(&s);
	assert_int_equal(cs.got, 500);
	assert_int_equal(cs.calls, 500);
	check_books();
}

/* A PMI below the threshold is not ours and changes nothing. */
static void test_spurious(void **state)
{
	(void)state;
	setup(64, 8, false);
	sim_run(&s, 10);
	assert_false(drain_pmi(&s.d));
	assert_int_equal(s.d.stats.spurious, 1);
	assert_int_equal(cs.got, 0);
	assert_int_equal(s.ds.bts_index - s.ds.bts_base, 10 * 24);
}

/* start() programs the DS area from the configuration. */
static void test_ds_fields(void **state)
{
	(void)state;
	setup(100, 10, false);
	assert_int_equal(s.ds.bts_index, s.ds.bts_base);
	assert_int_equal(s.ds.bts_abs_max, s.ds.bts_base + 100 * 24);
	assert_int_equal(s.ds.bts_int_threshold, s.ds.bts_base + 90 * 24);
	assert_string_equal(s.d.ops->name, "inline");
}

/* Configurations the strategy cannot run with are refused. */
static void test_bad_config(void **state)
{
	struct sim_params p = {
		.id = DRAIN_INLINE,
		.nbufs = 2,
		.records = 64,
		.headroom = 8,
		.sink = { check_emit, &cs },
	};

	(void)state;
	assert_int_equal(sim_init(&s, &p), -1);
	p.nbufs = 1;
	p.headroom = 64;
	assert_int_equal(sim_init(&s, &p), -1);
	p.headroom = 8;
	p.sink.emit = NULL;
	assert_int_equal(sim_init(&s, &p), -1);
	p.sink.emit = check_emit;
	p.records = 1;
	assert_int_equal(sim_init(&s, &p), -1);
	p.records = 64;
	p.id = DRAIN_NIDS;
	assert_int_equal(sim_init(&s, &p), -1);
	assert_ptr_equal(drain_ops_by_name("inline"), &drain_inline_ops);
	assert_ptr_equal(drain_ops_by_name("switch"), &drain_switch_ops);
	assert_ptr_equal(drain_ops_by_name("snapshot"), &drain_snapshot_ops);
	assert_null(drain_ops_by_name("nmi"));
	assert_null(drain_ops_get(DRAIN_NIDS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_loss),
		cmocka_unit_test(test_late_pmi),
		cmocka_unit_test(test_per_record),
		cmocka_unit_test(test_spurious),
		cmocka_unit_test(test_ds_fields),
		cmocka_unit_test(test_bad_config),
	};

	return cmocka_run_group_tests_name("drain_inline", tests, NULL, NULL);
}

/*
 * Unit tests for the switch strategy (spare buffers, drained from
 * deferred work), against the simulated producer: with K = 1..7 spares
 * and a prompt self-IPI nothing is lost; a slow one starves the producer
 * and every record it could not store is counted (no_spare, or stopped
 * when the PMI itself was late) under both policies; a kick restarts a
 * stopped producer; and PMIs that land in the middle of a deferred drain
 * (an NMI on the same CPU) corrupt nothing.
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

static void setup(size_t nbufs, enum drain_policy policy, size_t delay)
{
	struct sim_params p = {
		.id = DRAIN_SWITCH,
		.nbufs = nbufs,
		.records = 64,
		.headroom = 8,
		.policy = policy,
		.sink = { check_emit, &cs },
	};

	memset(&cs, 0, sizeof(cs));
	assert_int_equal(sim_init(&s, &p), 0);
	s.deferred_delay = delay;
}

/* The books balance and agree with the producer and the sink. */
static void check_books(void)
{
	struct bts_account *a = &s.d.acct;

	assert_false(cs.bad);
	assert_true(bts_account_balanced(a));
	assert_int_equal(a->produced, s.seq);
	assert_int_equal(a->delivered, cs.got);
	assert_int_equal(a->delivered, s.written);
	assert_int_equal(bts_account_lost_total(a), s.dropped);
	assert_int_equal(a->lost[BTS_LOSS_RING_FULL], 0);
	assert_int_equal(a->lost[BTS_LOSS_OVERWRITTEN], 0);
	assert_true(cs.gaps <= s.dropped);
}

/* Deferred work that runs within the headroom: no loss, any K. */
static void test_prompt(void **state)
{
	size_t nbufs;

	(void)state;
	for (nbufs = 2; nbufs <= DRAIN_MAX_BUFS; nbufs++) {
		setup(nbufs, DRAIN_HEADROOM, 5);
		sim_run(&s, 3000);
		sim_finish(&s);
		assert_int_equal(s.dropped, 0);
		assert_int_equal(cs.got, 3000);
		assert_int_equal(cs.gaps, 0);
		assert_int_equal(s.d.stats.switches, 3000 / 56);
		assert_int_equal(s.d.stats.starved, 0);
		check_books();
	}
}

/*
 * Deferred work 150 records late with one spare: the producer starves
 * once in 250 records. Same timeline under both policies: "headroom"
 * stores the 8 records of headroom that "stop" refuses, and loses
 * exactly 8 fewer. Longer runs starve again and again, with the books
 * exact.
 */
static void test_starved_policies(void **state)
{
	uint64_t lost[2];
	int policy;

	(void)state;
	for (policy = DRAIN_HEADROOM; policy <= DRAIN_STOP; policy++) {
		setup(2, policy, 150);
		sim_run(&s, 250);
		sim_finish(&s);
		assert_int_equal(s.d.stats.starved, 1);
		assert_int_equal(s.d.acct.lost[BTS_LOSS_STOPPED], 0);
		assert_int_equal(cs.gaps, s.dropped);
		lost[policy] = s.d.acct.lost[BTS_LOSS_NO_SPARE];
		check_books();

		setup(2, policy, 150);
		sim_run(&s, 5000);
		sim_finish(&s);
		assert_true(s.d.stats.starved > 10);
		assert_int_equal(s.d.acct.lost[BTS_LOSS_STOPPED], 0);
		check_books();
	}
	assert_int_equal(lost[DRAIN_STOP], lost[DRAIN_HEADROOM] + 8);
}

/* More spares absorb a slower self-IPI: losses never grow with K. */
static void test_more_spares(void **state)
{
	uint64_t prev = UINT64_MAX;
	size_t nbufs;

	(void)state;
	for (nbufs = 2; nbufs <= 4; nbufs++) {
		setup(nbufs, DRAIN_HEADROOM, 100);
		sim_run(&s, 3000);
		sim_finish(&s);
		check_books();
		assert_true(s.dropped <= prev);
		prev = s.dropped;
	}
	assert_int_equal(prev, 0);
}

/*
 * Stopped producer, no kick service: nothing resumes it until a PMI comes
 * from elsewhere. With the kick, the first record after the deferred
 * drain is stored again.
 */
static void test_kick(void **state)
{
	(void)state;
	setup(2, DRAIN_STOP, 1000);
	s.d.cfg.env.kick = NULL;
	sim_run(&s, 112); /* A full and handed off; B at threshold */
	assert_int_equal(s.d.stats.starved, 1);
	sim_deferred(&s); /* A drained and free, nobody told */
	sim_run(&s, 10);
	assert_int_equal(s.dropped, 10);
	sim_pmi(&s); /* what a kick would have done */
	sim_run(&s, 10);
	assert_int_equal(s.dropped, 10);

	setup(2, DRAIN_STOP, 1000);
	sim_run(&s, 112);
	sim_deferred(&s);
	assert_true(s.kick_pending);
	sim_run(&s, 10); /* the kick lands after the first record */
	assert_int_equal(s.dropped, 1);
	sim_finish(&s);
	check_books();
}

/*
 * A PMI later than the headroom: records dropped before the strategy
 * knew are "stopped", those dropped while it had no spare "no_spare".
 */
static void test_late_pmi(void **state)
{
	(void)state;
	setup(2, DRAIN_HEADROOM, 0);
	s.pmi_delay = 20;
	sim_run(&s, 2000);
	sim_finish(&s);
	assert_true(s.d.acct.lost[BTS_LOSS_STOPPED] > 0);
	assert_int_equal(s.d.acct.lost[BTS_LOSS_NO_SPARE], 0);
	check_books();

	setup(2, DRAIN_HEADROOM, 200);
	s.pmi_delay = 20;
	sim_run(&s, 2000);
	sim_finish(&s);
	assert_true(s.d.acct.lost[BTS_LOSS_STOPPED] > 0);
	assert_true(s.d.acct.lost[BTS_LOSS_NO_SPARE] > 0);
	check_books();
}

/*
 * NMIs inside the deferred drain: while the deferred entry hands a
 * buffer to the sink, the producer runs on and raises PMIs that switch
 * buffers (and starve, with few spares). Every combination of spares and
 * burst length must keep the stream ordered and the books exact.
 */
static size_t burst, budget;

static void producer_burst(void *ctx)
{
	size_t n = burst < budget ? burst : budget;

	budget -= n;
	sim_run(ctx, n);
}

static void test_nmi_during_deferred(void **state)
{
	size_t nbufs;
	int policy;

	(void)state;
	for (policy = DRAIN_HEADROOM; policy <= DRAIN_STOP; policy++)
		for (nbufs = 2; nbufs <= 4; nbufs++)
			for (burst = 1; burst <= 130; burst += 43) {
				setup(nbufs, policy, 3);
				cs.during = producer_burst;
				cs.during_ctx = &s;
				budget = 3000;
				sim_run(&s, 3000);
				cs.during = NULL;
				sim_finish(&s);
				check_books();
				if (burst > 56)
					assert_true(s.pmis_in_deferred > 0);
			}
}

/* A flush while starving drains all and rearms a full-size buffer. */
static void test_flush_while_starving(void **state)
{
	(void)state;
	setup(2, DRAIN_STOP, 1000);
	sim_run(&s, 130);
	assert_int_equal(s.ds.bts_abs_max, s.ds.bts_index);
	sim_finish(&s);
	check_books();
	assert_int_equal(s.ds.bts_index, s.ds.bts_base);
	assert_int_equal(s.ds.bts_abs_max, s.ds.bts_base + 64 * 24);
	assert_int_equal(s.ds.bts_int_threshold, s.ds.bts_base + 56 * 24);
	sim_run(&s, 50);
	assert_int_equal(s.dropped, 130 - 112);
	sim_finish(&s);
	check_books();
}

/* Spurious PMIs; configurations switch cannot run with. */
static void test_spurious_and_config(void **state)
{
	struct sim_params p = {
		.id = DRAIN_SWITCH,
		.nbufs = 1,
		.records = 64,
		.headroom = 8,
		.sink = { check_emit, &cs },
	};

	(void)state;
	setup(3, DRAIN_HEADROOM, 0);
	sim_run(&s, 10);
	assert_false(drain_pmi(&s.d));
	assert_int_equal(s.d.stats.spurious, 1);
	assert_int_equal(sim_init(&s, &p), -1); /* no spare */
	p.nbufs = DRAIN_MAX_BUFS + 1;
	assert_int_equal(sim_init(&s, &p), -1);
	p.nbufs = 2;
	p.policy = 7;
	assert_int_equal(sim_init(&s, &p), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prompt),
		cmocka_unit_test(test_starved_policies),
		cmocka_unit_test(test_more_spares),
		cmocka_unit_test(test_kick),
		cmocka_unit_test(test_late_pmi),
		cmocka_unit_test(test_nmi_during_deferred),
		cmocka_unit_test(test_flush_while_starving),
		cmocka_unit_test(test_spurious_and_config),
	};

	return cmocka_run_group_tests_name("drain_switch", tests, NULL, NULL);
}

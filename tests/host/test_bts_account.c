/*
 * Unit tests for lib/bts_account: the produced == delivered + filtered +
 * lost invariant that every drain test ends with, and the cause names that
 * appear in logs and lost records.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* cmocka needs the headers above */
#include <cmocka.h>

#include "lib/bts_account.h"

/* A fresh account is balanced and all zero. */
static void test_reset(void **state)
{
	struct bts_account a;

	(void)state;
	memset(&a, 0xa5, sizeof(a));
	bts_account_reset(&a);
	assert_int_equal(a.produced, 0);
	assert_int_equal(bts_account_lost_total(&a), 0);
	assert_true(bts_account_balanced(&a));
}

/* Every cause counts toward the balance, filtered too. */
static void test_balance(void **state)
{
	struct bts_account a;
	int c;

	(void)state;
	bts_account_reset(&a);
	bts_count(&a.produced, 100);
	bts_count(&a.delivered, 60);
	bts_count(&a.filtered, 10);
	assert_int_equal(bts_account_imbalance(&a), 30);
	for (c = 0; c < BTS_LOSS_NR; c++) {
		uint64_t n = c == BTS_LOSS_NR - 1 ? 30 - c : 1;

		assert_false(bts_account_balanced(&a));
		bts_count_lost(&a, c, n);
	}
	assert_int_equal(bts_account_lost_total(&a), 30);
	assert_true(bts_account_balanced(&a));
}

/* Counting something twice shows as a negative imbalance. */
static void test_double_count(void **state)
{
	struct bts_account a;

	(void)state;
	bts_account_reset(&a);
	bts_count(&a.produced, 5);
	bts_count(&a.delivered, 5);
	bts_count_lost(&a, BTS_LOSS_RING_FULL, 2);
	assert_int_equal(bts_account_imbalance(&a), -2);
}

/* read() copies; add() sums, e.g. over several runs. */
static void test_read_add(void **state)
{
	struct bts_account a, b, sum;

	(void)state;
	bts_account_reset(&a);
	bts_count(&a.produced, 7);
	bts_count(&a.delivered, 3);
	bts_count_lost(&a, BTS_LOSS_STOPPED, 4);
	bts_account_read(&a, &b);
	assert_memory_equal(&a, &b, sizeof(a));
	bts_account_reset(&sum);
	bts_account_add(&sum, &a);
	bts_account_add(&sum, &b);
	assert_int_equal(sum.produced, 14);
	assert_int_equal(sum.lost[BTS_LOSS_STOPPED], 8);
	assert_true(bts_account_balanced(&sum));
}

/* Names are stable (logs are compared across versions). */
static void test_names(void **state)
{
	(void)state;
	assert_string_equal(bts_loss_name(BTS_LOSS_NO_SPARE), "no_spare");
	assert_string_equal(bts_loss_name(BTS_LOSS_RING_FULL), "ring_full");
	assert_string_equal(bts_loss_name(BTS_LOSS_OVERWRITTEN), "overwritten");
	assert_string_equal(bts_loss_name(BTS_LOSS_STOPPED), "stopped");
	assert_string_equal(bts_loss_name(BTS_LOSS_NR), "?");
	assert_string_equal(bts_loss_name((enum bts_loss_cause) - 1), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_balance),
		cmocka_unit_test(test_double_count),
		cmocka_unit_test(test_read_add),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests_name("bts_account", tests, NULL, NULL);
}

/*
 * Unit tests for lib/cmdline.c: valid lines of every option type, then
 * every kind of error with its exact message, checking each time that a
 * destination is written only by a valid value, and that messages stay
 * bounded and NUL-terminated however long the input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* cmocka.h needs the headers above. */
#include <cmocka.h>

#include "lib/cmdline.h"
#include "lib/string.h"

#define UNSET 0x5a5a5a5a5a5a5a5aULL

static bool list, seen_list;
static uint64_t repeat, seed;
static bool seen_repeat, seen_seed;
static char tests[16];
static struct cmdline_list sizes;
static struct cmdline_errors errs;

static const struct cmdline_opt opts[] = {
	{ "list", CL_FLAG, 0, 0, &list, &seen_list, "list tests and stop" },
	{ "repeat", CL_UINT, 1, 1000, &repeat, &seen_repeat, "runs" },
	{ "seed", CL_UINT, 0, UINT64_MAX, &seed, &seen_seed, "random seed" },
	{ "tests", CL_STR, 0, 15, tests, NULL, "glob of test names" },
	{ "char.sizes", CL_UINT_LIST, 1, 4096, &sizes, NULL, "buffer sizes" },
};

static int reset(void **state)
{
	(void)state;
	list = seen_list = seen_repeat = seen_seed = false;
	repeat = seed = UNSET;
	strcpy(tests, "unset");
	sizes.n = 99;
	memset(&errs, 0xee, sizeof(errs));
	return 0;
}

static size_t parse(const char *line)
{
	return cmdline_parse(line, opts, sizeof(opts) / sizeof(opts[0]), &errs);
}

/* line gives exactly one error, msg, and leaves every destination alone. */
static void expect_error(const char *line, const char *msg)
{
	reset(NULL);
	assert_int_equal(parse(line), 1);
	assert_int_equal(errs.n, 1);
	assert_int_equal(errs.dropped, 0);
	assert_string_equal(errs.msg[0], msg);
	assert_false(list);
	assert_false(seen_list || seen_repeat || seen_seed);
	assert_true(repeat == UNSET && seed == UNSET);
	assert_string_equal(tests, "unset");
	assert_int_equal(sizes.n, 99);
}

static void test_empty(void **state)
{
	static const char *const lines[] = { NULL, "", " ", "\t\n \r " };

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		reset(NULL);
		assert_int_equal(parse(lines[i]), 0);
		assert_int_equal(errs.n, 0);
		assert_int_equal(errs.dropped, 0);
		assert_true(repeat == UNSET && !list && !seen_seed);
	}
}

static void test_all_valid(void **state)
{
	(void)state;
	assert_int_equal(parse(" list\trepeat=10\nseed=0xDEADbeef  "
			       "tests=apic.* char.sizes=64,128,0x1000 "),
			 0);
	assert_int_equal(errs.n, 0);
	assert_true(list && seen_list);
	assert_true(seen_repeat && repeat == 10);
	assert_true(seen_seed && seed == 0xdeadbeef);
	assert_string_equal(tests, "apic.*");
	assert_int_equal(sizes.n, 3);
	assert_int_equal(sizes.v[0], 64);
	assert_int_equal(sizes.v[1], 128);
	assert_int_equal(sizes.v[2], 0x1000);
}

static void test_numbers(void **state)
{
	static const struct {
		const char *line;
		uint64_t value;
	} ok[] = {
		{ "seed=0", 0 },
		{ "seed=007", 7 },
		{ "seed=0x0", 0 },
		{ "seed=0XfF", 255 },
		{ "seed=18446744073709551615", UINT64_MAX },
		{ "seed=0xffffffffffffffff", UINT64_MAX },
		{ "seed=0x00000000000000000000001", 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		reset(NULL);
		assert_int_equal(parse(ok[i].line), 0);
		assert_true(seed == ok[i].value);
	}
	/* The bounds themselves are in range. */
	reset(NULL);
	assert_int_equal(parse("repeat=1"), 0);
	assert_int_equal(repeat, 1);
	reset(NULL);
	assert_int_equal(parse("repeat=0x3e8"), 0);
	assert_int_equal(repeat, 1000);
}

static void test_not_a_number(void **state)
{
	(void)state;
	expect_error("repeat=abc", "repeat: 'abc' is not a number");
	expect_error("repeat=+5", "repeat: '+5' is not a number");
	expect_error("repeat=-5", "repeat: '-5' is not a number");
	expect_error("repeat=0x", "repeat: '0x' is not a number");
	expect_error("repeat=0xg", "repeat: '0xg' is not a number");
	expect_error("repeat=12abc", "repeat: '12abc' is not a number");
	expect_error("repeat=1_000", "repeat: '1_000' is not a number");
	expect_error("repeat=5=5", "repeat: '5=5' is not a number");
	expect_error("repeat=ff", "repeat: 'ff' is not a number");
	/* Control characters and non-ASCII never reach the log ("?\?" is
	 * "??" without the trigraph). */
	expect_error("repeat=\x1b[2J\xc3\xa9",
		     "repeat: '?[2J?\?' is not a number");
	expect_error("\x7f\x01", "unknown option '?\?'");
	/* Trailing junk is reported even after an overflow. */
	expect_error("seed=99999999999999999999999x",
		     "seed: '99999999999999999999999x' is not a number");
}

static void test_overflow(void **state)
{
	(void)state;
	expect_error("seed=18446744073709551616",
		     "seed: '18446744073709551616' does not fit in 64 bits");
	expect_error("seed=0x10000000000000000",
		     "seed: '0x10000000000000000' does not fit in 64 bits");
	expect_error("seed=99999999999999999999999",
		     "seed: '99999999999999999999999' does not fit in 64 bits");
}

static void test_out_of_range(void **state)
{
	(void)state;
	expect_error("repeat=0", "repeat: 0 is out of range 1..1000");
	expect_error("repeat=1001", "repeat: 1001 is out of range 1..1000");
	expect_error("repeat=0x3e9", "repeat: 0x3e9 is out of range 1..1000");
	expect_error("char.sizes=64,0",
		     "char.sizes: 0 is out of range 1..4096");
}

static void test_unknown_option(void **state)
{
	(void)state;
	expect_error("foo", "unknown option 'foo'");
	expect_error("foo=bar", "unknown option 'foo'");
	expect_error("LIST", "unknown option 'LIST'");
	expect_error("lis", "unknown option 'lis'");
	expect_error("list2", "unknown option 'list2'");
	expect_error("char", "unknown option 'char'");
	expect_error("=5", "missing option name in '=5'");
	expect_error("=", "missing option name in '='");
}

static void test_values(void **state)
{
	(void)state;
	expect_error("list=1", "list: takes no value");
	expect_error("list=", "list: takes no value");
	expect_error("tests", "tests: needs a value");
	expect_error("tests=", "tests: needs a value");
	expect_error("repeat", "repeat: needs a value");
	expect_error("char.sizes=", "char.sizes: needs a value");
}

static void test_strings(void **state)
{
	(void)state;
	reset(NULL);
	assert_int_equal(parse("tests=123456789012345"), 0);
	assert_string_equal(tests, "123456789012345");
	reset(NULL);
	assert_int_equal(parse("tests=a=b,c"), 0);
	assert_string_equal(tests, "a=b,c");
	expect_error("tests=1234567890123456",
		     "tests: '1234567890123456' is longer than 15 characters");
}

static void test_lists(void **state)
{
	char line[256];
	int len;

	(void)state;
	reset(NULL);
	assert_int_equal(parse("char.sizes=4096"), 0);
	assert_int_equal(sizes.n, 1);
	assert_int_equal(sizes.v[0], 4096);

	expect_error("char.sizes=64,,128",
		     "char.sizes: empty element in '64,,128'");
	expect_error("char.sizes=,64", "char.sizes: empty element in ',64'");
	expect_error("char.sizes=64,", "char.sizes: empty element in '64,'");
	expect_error("char.sizes=,", "char.sizes: empty element in ','");
	expect_error("char.sizes=64,x1", "char.sizes: 'x1' is not a number");
	expect_error("char.sizes=1,2,3,5000",
		     "char.sizes: 5000 is out of range 1..4096");

	/* CMDLINE_LIST_MAX elements fit, one more does not. */
	len = sprintf(line, "char.sizes=1");
	for (int i = 2; i <= CMDLINE_LIST_MAX; i++)
		len += sprintf(line + len, ",%d", i);
	reset(NULL);
	assert_int_equal(parse(line), 0);
	assert_int_equal(sizes.n, CMDLINE_LIST_MAX);
	assert_int_equal(sizes.v[CMDLINE_LIST_MAX - 1], CMDLINE_LIST_MAX);
	strcat(line, ",7");
	reset(NULL);
	assert_int_equal(parse(line), 1);
	assert_string_equal(errs.msg[0],
			    "char.sizes: more than 32 elements in "
			    "'1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,1...'");
}

static void test_given_twice(void **state)
{
	(void)state;
	reset(NULL);
	assert_int_equal(parse("seed=1 repeat=3 seed=2"), 1);
	assert_string_equal(errs.msg[0], "seed: given twice");
	assert_int_equal(seed, 1); /* the first one stays */
	assert_int_equal(repeat, 3);

	reset(NULL);
	assert_int_equal(parse("list list list"), 2);
	assert_string_equal(errs.msg[0], "list: given twice");
	assert_string_equal(errs.msg[1], "list: given twice");

	/* A bad first value still counts as given. */
	reset(NULL);
	assert_int_equal(parse("repeat=0 repeat=5"), 2);
	assert_string_equal(errs.msg[0], "repeat: 0 is out of range 1..1000");
	assert_string_equal(errs.msg[1], "repeat: given twice");
	assert_true(repeat == UNSET && !seen_repeat);
}

/* Several errors in one line: all reported in order, valid ones applied. */
static void test_several(void **state)
{
	(void)state;
	reset(NULL);
	assert_int_equal(parse("foo repeat=0 list seed=5 tests"), 3);
	assert_int_equal(errs.n, 3);
	assert_string_equal(errs.msg[0], "unknown option 'foo'");
	assert_string_equal(errs.msg[1], "repeat: 0 is out of range 1..1000");
	assert_string_equal(errs.msg[2], "tests: needs a value");
	assert_true(list && seen_list && seed == 5 && seen_seed);
	assert_true(repeat == UNSET && !seen_repeat);
}

static void test_too_many_errors(void **state)
{
	(void)state;
	reset(NULL);
	assert_int_equal(parse("a b c d e f g h i j"), 10);
	assert_int_equal(errs.n, CMDLINE_ERR_MAX);
	assert_int_equal(errs.dropped, 10 - CMDLINE_ERR_MAX);
	assert_string_equal(errs.msg[7], "unknown option 'h'");

	/* A new parse starts from no errors. */
	assert_int_equal(parse("list"), 0);
	assert_int_equal(errs.n, 0);
	assert_int_equal(errs.dropped, 0);
}

static void test_long_input(void **state)
{
	static const char *const cut =
		"'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'";
	static char line[4096];
	static const char *const forms[] = { "%s", "repeat=%s", "tests=%s",
					     "char.sizes=1,%s" };

	(void)state;
	for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		char value[2000];

		memset(value, 'x', sizeof(value) - 1);
		value[sizeof(value) - 1] = '\0';
		snprintf(line, sizeof(line), forms[f], value);
		reset(NULL);
		assert_int_equal(parse(line), 1);
		/* Cut to 37 characters and "...": the message stays whole. */
		assert_non_null(strstr(errs.msg[0], cut));
		assert_true(strlen(errs.msg[0]) < CMDLINE_ERR_LEN);
	}
}

static void test_cmdline_error(void **state)
{
	char big[300];

	(void)state;
	reset(NULL);
	assert_int_equal(parse(""), 0);
	cmdline_error(&errs, "%s: needs %d or more", "cpus", 2);
	assert_int_equal(errs.n, 1);
	assert_string_equal(errs.msg[0], "cpus: needs 2 or more");

	/* Cut at CMDLINE_ERR_LEN - 1 characters and NUL-terminated. */
	memset(big, 'y', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	cmdline_error(&errs, "%s", big);
	assert_int_equal(strlen(errs.msg[1]), CMDLINE_ERR_LEN - 1);

	for (int i = 0; i < 10; i++)
		cmdline_error(&errs, "more %d", i);
	assert_int_equal(errs.n, CMDLINE_ERR_MAX);
	assert_int_equal(errs.dropped, 4);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test_setup(test_empty, reset),
		cmocka_unit_test_setup(test_all_valid, reset),
		cmocka_unit_test_setup(test_numbers, reset),
		cmocka_unit_test_setup(test_not_a_number, reset),
		cmocka_unit_test_setup(test_overflow, reset),
		cmocka_unit_test_setup(test_out_of_range, reset),
		cmocka_unit_test_setup(test_unknown_option, reset),
		cmocka_unit_test_setup(test_values, reset),
		cmocka_unit_test_setup(test_strings, reset),
		cmocka_unit_test_setup(test_lists, reset),
		cmocka_unit_test_setup(test_given_twice, reset),
		cmocka_unit_test_setup(test_several, reset),
		cmocka_unit_test_setup(test_too_many_errors, reset),
		cmocka_unit_test_setup(test_long_input, reset),
		cmocka_unit_test_setup(test_cmdline_error, reset),
	};

	return cmocka_run_group_tests(t, NULL, NULL);
}

/*
 * Unit tests for lib/json.c: exact output of every member type, escaping,
 * the fixed-point decimals at their extremes, and truncation at every
 * buffer size (a clean prefix, the flag set, no byte written past the end).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* cmocka.h needs the headers above. */
#include <cmocka.h>

#include "lib/json.h"
#include "lib/string.h"

/* The metric line of OUTPUT.md, shortened. */
static void build_metric(struct json *j)
{
	json_begin(j, NULL);
	json_str(j, "name", "drain.cost");
	json_str(j, "unit", "cycles/record");
	json_milli(j, "median", 2100);
	json_milli(j, "p99", 2600);
	json_u64(j, "n", 200);
	json_bool(j, "hw", false);
	json_end(j);
}

static const char metric[] =
	"{\"name\":\"drain.cost\",\"unit\":\"cycles/record\","
	"\"median\":2.1,\"p99\":2.6,\"n\":200,\"hw\":false}";

static void test_metric(void **state)
{
	char buf[256];
	struct json j;

	(void)state;
	json_init(&j, buf, sizeof(buf));
	build_metric(&j);
	assert_false(j.truncated);
	assert_string_equal(buf, metric);
	assert_int_equal(j.len, strlen(metric));
}

static void test_structure(void **state)
{
	char buf[256];
	struct json j;

	(void)state;
	json_init(&j, buf, sizeof(buf));
	assert_string_equal(buf, "");
	json_begin(&j, NULL);
	json_end(&j);
	assert_string_equal(buf, "{}");

	json_init(&j, buf, sizeof(buf));
	json_begin(&j, NULL);
	json_begin(&j, "a");
	json_u64(&j, "b", 1);
	json_begin(&j, "e");
	json_end(&j);
	json_end(&j);
	json_bool(&j, "c", true);
	json_str(&j, "d", NULL);
	json_end(&j);
	assert_string_equal(buf, "{\"a\":{\"b\":1,\"e\":{}},\"c\":true,"
				 "\"d\":null}");
}

static void test_integers(void **state)
{
	char buf[256];
	struct json j;

	(void)state;
	json_init(&j, buf, sizeof(buf));
	json_begin(&j, NULL);
	json_u64(&j, "a", 0);
	json_u64(&j, "b", UINT64_MAX);
	json_i64(&j, "c", INT64_MIN);
	json_i64(&j, "d", INT64_MAX);
	json_i64(&j, "e", -1);
	json_end(&j);
	assert_string_equal(buf, "{\"a\":0,\"b\":18446744073709551615,"
				 "\"c\":-9223372036854775808,"
				 "\"d\":9223372036854775807,\"e\":-1}");
}

static void test_milli(void **state)
{
	static const struct {
		int64_t milli;
		const char *text;
	} cases[] = {
		{ 0, "0.0" },
		{ 1, "0.001" },
		{ -1, "-0.001" },
		{ 10, "0.01" },
		{ 100, "0.1" },
		{ -500, "-0.5" },
		{ 999, "0.999" },
		{ 1000, "1.0" },
		{ 2100, "2.1" },
		{ 2120, "2.12" },
		{ 2125, "2.125" },
		{ 3000, "3.0" },
		{ -3000, "-3.0" },
		{ 1000000, "1000.0" },
		{ INT64_MAX, "9223372036854775.807" },
		{ INT64_MIN, "-9223372036854775.808" },
	};
	char buf[64], want[64];
	struct json j;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_init(&j, buf, sizeof(buf));
		json_begin(&j, NULL);
		json_milli(&j, "v", cases[i].milli);
		json_end(&j);
		strcpy(want, "{\"v\":");
		strcat(want, cases[i].text);
		strcat(want, "}");
		assert_string_equal(buf, want);
	}
}

static void test_escaping(void **state)
{
	char buf[256];
	struct json j;

	(void)state;
	json_init(&j, buf, sizeof(buf));
	json_begin(&j, NULL);
	json_str(&j, "q\"k", "say \"hi\"");
	json_str(&j, "b", "C:\\dir\\");
	json_str(&j, "c", "tab\there\nnl\x01\x1f");
	json_str(&j, "d", "\x7f caf\xc3\xa9 /");
	json_str(&j, "e", "");
	json_end(&j);
	assert_false(j.truncated);
	assert_string_equal(buf,
			    "{\"q\\\"k\":\"say \\\"hi\\\"\","
			    "\"b\":\"C:\\\\dir\\\\\","
			    "\"c\":\"tab\\u0009here\\u000anl\\u0001\\u001f\","
			    "\"d\":\"\x7f caf\xc3\xa9 /\",\"e\":\"\"}");
}

/*
 * At every size, the buffer holds a NUL-terminated prefix of the full text,
 * the flag says whether it is all of it, and nothing past size is touched.
 */
static void test_truncation(void **state)
{
	const size_t full = strlen(metric);
	char buf[256];
	struct json j;

	(void)state;
	for (size_t size = 0; size <= full + 2; size++) {
		memset(buf, 'Z', sizeof(buf));
		json_init(&j, buf, size);
		build_metric(&j);
		assert_int_equal(j.truncated, size <= full);
		for (size_t i = size; i < sizeof(buf); i++)
			assert_int_equal(buf[i], 'Z');
		if (!size)
			continue;
		assert_int_equal(strnlen(buf, size), j.len);
		assert_true(j.len < size);
		assert_memory_equal(buf, metric, j.len);
	}
}

/* After the first piece that does not fit, nothing more is written. */
static void test_truncation_sticks(void **state)
{
	char buf[12];
	struct json j;

	(void)state;
	json_init(&j, buf, sizeof(buf));
	json_begin(&j, NULL);
	json_str(&j, "long", "too long to fit");
	json_u64(&j, "n", 1);
	json_end(&j);
	assert_true(j.truncated);
	assert_string_equal(buf, "{\"long\":\"to");

	json_init(&j, NULL, 0);
	json_begin(&j, NULL);
	json_end(&j);
	assert_true(j.truncated);
	assert_int_equal(j.len, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metric),
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_milli),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_truncation_sticks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

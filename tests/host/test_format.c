/*
 * Unit tests for lib/format.c. Where C defines the output, it is checked
 * against the host's snprintf with the same arguments; where btslab
 * chooses (%p, NULL strings, unknown conversions) against the documented
 * text. Truncation is checked byte by byte, past the end of the buffer too.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* cmocka.h needs the headers above. */
#include <cmocka.h>

#include "lib/format.h"
#include "lib/string.h"

/* Same format, same arguments: same text and same return value as libc. */
#define CHECK(...)                                                    \
	do {                                                          \
		char want[512], got[512];                             \
		int wn = snprintf(want, sizeof(want), __VA_ARGS__);   \
		int gn = lib_snprintf(got, sizeof(got), __VA_ARGS__); \
		assert_string_equal(got, want);                       \
		assert_int_equal(gn, wn);                             \
	} while (0)

/* btslab's own choice: the exact text expected. */
#define EXPECT(want, ...)                                             \
	do {                                                          \
		char got[512];                                        \
		int gn = lib_snprintf(got, sizeof(got), __VA_ARGS__); \
		assert_string_equal(got, want);                       \
		assert_int_equal(gn, (int)strlen(want));              \
	} while (0)

static void test_plain(void **state)
{
	(void)state;
	CHECK("%s", "");
	EXPECT("", "%s", "");
	EXPECT("hello", "hello");
	EXPECT("100%", "100%%");
	EXPECT("%%", "%%%%");
}

static void test_signed(void **state)
{
	static const int v[] = { 0, 1, -1, 42, -42, 123456, INT_MAX, INT_MIN };

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		CHECK("%d|%i", v[i], v[i]);
		CHECK("[%5d][%-5d][%05d]", v[i], v[i], v[i]);
		CHECK("[%+d][% d][%+5d][% -5d]", v[i], v[i], v[i], v[i]);
		CHECK("[%.0d][%.1d][%.3d][%8.3d][%-8.3d]", v[i], v[i], v[i],
		      v[i], v[i]);
		CHECK("[%+.0d][% .0d][%+08d][%-+8d]", v[i], v[i], v[i], v[i]);
		CHECK("[%1d][%.20d][%30.20d]", v[i], v[i], v[i]);
		/* '0' with a width the number already fills. */
		CHECK("[%0d][%+0d][% 01d][%02d]", v[i], v[i], v[i], v[i]);
	}
}

static void test_unsigned(void **state)
{
	static const unsigned int v[] = { 0,   1,    7,		 8,
					  0xf, 0x10, 0xdeadbeef, UINT_MAX };

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		CHECK("%u %o %x %X", v[i], v[i], v[i], v[i]);
		CHECK("[%#o][%#x][%#X]", v[i], v[i], v[i]);
		CHECK("[%#0o][%#0x][%#01x][%#02x]", v[i], v[i], v[i], v[i]);
		CHECK("[%#.0o][%#.0x][%.0u][%.0o]", v[i], v[i], v[i], v[i]);
		CHECK("[%#5o][%#-10x][%#010x][%#10.4x]", v[i], v[i], v[i],
		      v[i]);
		CHECK("[%#.3o][%#.12o][%08X][%-8o]", v[i], v[i], v[i], v[i]);
		CHECK("[%12u][%-12u][%012u][%.12u]", v[i], v[i], v[i], v[i]);
	}
}

static void test_length_modifiers(void **state)
{
	(void)state;
	/* An int argument, converted to char or short by the modifier. */
	// cppcheck-suppress invalidPrintfArgType_sint
	// cppcheck-suppress invalidPrintfArgType_uint
	CHECK("%hhd %hhd %hhu %hhx", 300, -129, -1, 0x1ff);
	// cppcheck-suppress invalidPrintfArgType_sint
	// cppcheck-suppress invalidPrintfArgType_uint
	CHECK("%hd %hd %hu %ho", 70000, -32769, -1, 0x1ffff);
	CHECK("%ld %ld %lu %lx", LONG_MAX, LONG_MIN, ULONG_MAX, ULONG_MAX);
	CHECK("%lld %lld %llu %llo", LLONG_MAX, LLONG_MIN, ULLONG_MAX,
	      ULLONG_MAX);
	CHECK("%zu %zx %zd %zd", SIZE_MAX, SIZE_MAX, (ssize_t)-5, (ssize_t)5);
	CHECK("%jd %jd %ju %jX", INTMAX_MAX, INTMAX_MIN, UINTMAX_MAX,
	      UINTMAX_MAX);
	/* %tu takes ptrdiff_t's unsigned type, which has no name. */
	// cppcheck-suppress invalidPrintfArgType_uint
	CHECK("%td %td %tu %tx", PTRDIFF_MAX, PTRDIFF_MIN, (size_t)-1,
	      (size_t)-1);
	CHECK("[%+25lld][%-#30llx][%.25llu]", LLONG_MIN, ULLONG_MAX, 1ULL);
	/* Arguments after a long one are still found. */
	CHECK("%hhd %lld %d %zu %s", (signed char)1, 2LL, 3, (size_t)4, "five");
}

static void test_star(void **state)
{
	(void)state;
	CHECK("[%*d][%*d][%-*d]", 6, 42, -6, 42, 6, 42);
	CHECK("[%.*d][%.*d][%.*d]", 4, 42, -1, 42, 0, 0);
	CHECK("[%*.*x][%*.*s]", 10, 6, 0xabc, -8, 2, "hello");
	CHECK("[%-*.*s]", 7, 3, "hello");
}

static void test_char_and_string(void **state)
{
	const char unterminated[3] = { 'a', 'b', 'c' };
	char buf[8];

	(void)state;
	CHECK("[%c][%3c][%-3c]", 'x', 'y', 'z');
	CHECK("[%c]", 0xe9);
	CHECK("[%s][%10s][%-10s][%.2s][%5.1s][%-5.3s]", "abc", "abc", "abc",
	      "abc", "abc", "abc");
	CHECK("[%.0s][%.10s][%1s]", "abc", "abc", "abc");
	/* A precision bounds the read: no NUL needed (ASan checks it). */
	EXPECT("ab", "%.2s", unterminated);
	EXPECT("abc", "%.3s", unterminated);
	/* %c of NUL emits a NUL and counts it. */
	assert_int_equal(lib_snprintf(buf, sizeof(buf), "a%cb", 0), 3);
	assert_memory_equal(buf, "a\0b", 4);
}

static void test_pointer(void **state)
{
	(void)state;
	EXPECT("0x0000000000000000", "%p", (void *)NULL);
	EXPECT("0x0000000000001234", "%p", (void *)0x1234);
	EXPECT("0xffffffff80000000", "%p", (void *)0xffffffff80000000ULL);
	EXPECT("  0x00000000000000ab", "%20p", (void *)0xab);
	EXPECT("0x00000000000000ab  |", "%-20p|", (void *)0xab);
}

/*
 * From here on, gcc's format checks would reject what is tested on purpose:
 * ignored flags, NULL strings, unknown conversions, huge widths.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
#pragma GCC diagnostic ignored "-Wformat-overflow"

/* Legal but odd: flags C says to ignore, checked against libc anyway. */
static void test_ignored_flags(void **state)
{
	static const int v[] = { 0, 7, -7, 123456 };

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		const unsigned int u = v[i];

		CHECK("[%-05d][%+u][% x][%+o][%-010x]", v[i], u, u, u, u);
		CHECK("[%05.2d][%0-5d][%#d][%--5d][%++d]", v[i], v[i], v[i],
		      v[i], v[i]);
		CHECK("[%012.0d][%#010.4x][%08.0o]", v[i], u, u);
	}
	CHECK("[%#c][%05s][%+s]", 'q', "ab", "ab");
}

static void test_null_string(void **state)
{
	const char *none = NULL;

	(void)state;
	EXPECT("(null)", "%s", none);
	EXPECT("  (null)", "%8s", none);
	EXPECT("(null)  |", "%-8s|", none);
	EXPECT("(nu", "%.3s", none);
}

/* Unknown or cut-off conversions are printed as written; nothing crashes. */
static void test_unknown(void **state)
{
	int n = 0;

	(void)state;
	EXPECT("%y", "%y");
	EXPECT("[%-5y]", "[%-5y]");
	EXPECT("a%", "a%");
	EXPECT("a%-08.3", "a%-08.3");
	EXPECT("a%ll", "a%ll");
	EXPECT("%n", "%n", &n);
	assert_int_equal(n, 0);
	EXPECT("%f 7", "%f %d", 7);
	EXPECT("%L 7", "%L %d", 7);
	EXPECT("%lq", "%lq");
}

static void test_truncation(void **state)
{
	char buf[16];

	(void)state;
	/* n == 0: nothing written, buf may be NULL. */
	assert_int_equal(lib_snprintf(NULL, 0, "hello %d", 12345), 11);
	memset(buf, 'Z', sizeof(buf));
	assert_int_equal(lib_snprintf(buf, 0, "hello"), 5);
	assert_int_equal(buf[0], 'Z');

	for (size_t n = 1; n <= 12; n++) {
		memset(buf, 'Z', sizeof(buf));
		assert_int_equal(lib_snprintf(buf, n, "hello %s", "world"), 11);
		assert_int_equal(strlen(buf), n - 1 < 11 ? n - 1 : 11);
		assert_memory_equal(buf, "hello world", strlen(buf));
		for (size_t i = n; i < sizeof(buf); i++)
			assert_int_equal(buf[i], 'Z');
	}
}

static void test_huge_width(void **state)
{
	char buf[8];

	(void)state;
	assert_int_equal(lib_snprintf(buf, sizeof(buf), "%100000d", 1), 100000);
	assert_string_equal(buf, "       ");
	assert_int_equal(lib_snprintf(buf, sizeof(buf), "%-100000d|", 1),
			 100001);
	assert_string_equal(buf, "1      ");
	assert_int_equal(lib_snprintf(buf, sizeof(buf), "%.99999d", 1), 99999);
	assert_string_equal(buf, "0000000");
}

#pragma GCC diagnostic pop

struct collect {
	char text[64];
	size_t n;
};

static void collect_put(void *ctx, char c)
{
	struct collect *col = ctx;

	if (col->n < sizeof(col->text) - 1)
		col->text[col->n++] = c;
}

static int cbprintf(struct collect *col, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = lib_vcbprintf(collect_put, col, fmt, ap);
	va_end(ap);
	return ret;
}

static void test_callback(void **state)
{
	struct collect col = { .n = 0 };

	(void)state;
	assert_int_equal(cbprintf(&col, "%s=%u%c", "cpus", 12u, '!'), 8);
	assert_int_equal(col.n, 8);
	assert_string_equal(col.text, "cpus=12!");
	col.n = 0;
	assert_int_equal(cbprintf(&col, ""), 0);
	assert_int_equal(col.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_signed),
		cmocka_unit_test(test_unsigned),
		cmocka_unit_test(test_length_modifiers),
		cmocka_unit_test(test_star),
		cmocka_unit_test(test_char_and_string),
		cmocka_unit_test(test_null_string),
		cmocka_unit_test(test_pointer),
		cmocka_unit_test(test_ignored_flags),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_huge_width),
		cmocka_unit_test(test_callback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

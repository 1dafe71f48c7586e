/*
 * Unit tests for lib/string.c: the kernel's own memcpy, strlen, ... (built
 * on the host as lib_memcpy, lib_strlen, ...) checked against libc over
 * every small length and alignment, overlaps in both directions, bytes with
 * the top bit set, and the edge cases of the C standard.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* cmocka.h needs the headers above. */
#include <cmocka.h>

#include "lib/string.h"

#define BUF   512
#define GUARD 0xa5

static int sign(int x)
{
	return (x > 0) - (x < 0);
}

/* Distinct, non-zero bytes, some with the top bit set. */
static void pattern(unsigned char *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(seed + i * 7 + 1) | 1;
}

static void test_memcpy(void **state)
{
	unsigned char src[BUF], dst[BUF], want[BUF];

	(void)state;
	pattern(src, sizeof(src), 3);
	for (size_t n = 0; n <= 300; n++) {
		for (size_t so = 0; so < 8; so++) {
			for (size_t doff = 0; doff < 8; doff++) {
				memset(dst, GUARD, sizeof(dst));
				memset(want, GUARD, sizeof(want));
				memcpy(want + doff, src + so, n);
				assert_ptr_equal(
					lib_memcpy(dst + doff, src + so, n),
					dst + doff);
				assert_memory_equal(dst, want, sizeof(dst));
			}
		}
	}
}

/* Every overlap of two windows of one buffer, in both directions. */
static void test_memmove_overlap(void **state)
{
	unsigned char buf[BUF], want[BUF];

	(void)state;
	for (size_t n = 0; n <= 70; n++) {
		for (size_t src = 0; src < 80; src++) {
			for (size_t dst = 0; dst < 80; dst++) {
				pattern(buf, sizeof(buf), n);
				pattern(want, sizeof(want), n);
				memmove(want + dst, want + src, n);
				assert_ptr_equal(
					lib_memmove(buf + dst, buf + src, n),
					buf + dst);
				assert_memory_equal(buf, want, 160);
			}
		}
	}
}

static void test_memmove_large(void **state)
{
	static unsigned char buf[1 << 16], want[1 << 16];

	(void)state;
	pattern(buf, sizeof(buf), 1);
	pattern(want, sizeof(want), 1);
	lib_memmove(buf + 1001, buf + 3, 40000);
	memmove(want + 1001, want + 3, 40000);
	assert_memory_equal(buf, want, sizeof(buf));
	lib_memmove(buf + 5, buf + 2000, 50000);
	memmove(want + 5, want + 2000, 50000);
	assert_memory_equal(buf, want, sizeof(buf));
}

static void test_memset(void **state)
{
	unsigned char buf[BUF], want[BUF];
	const int values[] = { 0, 1, 0x7f, 0x80, 0xff, 0x1ff, -1, -128 };

	(void)state;
	for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
		for (size_t n = 0; n <= 300; n++) {
			for (size_t off = 0; off < 8; off++) {
				memset(buf, GUARD, sizeof(buf));
				memset(want, GUARD, sizeof(want));
				memset(want + off, values[v], n);
				assert_ptr_equal(
					lib_memset(buf + off, values[v], n),
					buf + off);
				assert_memory_equal(buf, want, sizeof(buf));
			}
		}
	}
}

static void test_memcmp(void **state)
{
	unsigned char a[64], b[64];

	(void)state;
	pattern(a, sizeof(a), 9);
	memcpy(b, a, sizeof(b));
	assert_int_equal(lib_memcmp(a, b, sizeof(a)), 0);
	assert_int_equal(lib_memcmp(a, "different", 0), 0);
	/* The first difference decides, bytes compare as unsigned char. */
	for (size_t i = 0; i < sizeof(a); i++) {
		unsigned char keep = a[i];

		a[i] = 0x7f;
		b[i] = 0x80;
		assert_true(lib_memcmp(a, b, sizeof(a)) < 0);
		assert_true(lib_memcmp(b, a, sizeof(a)) > 0);
		assert_int_equal(lib_memcmp(a, b, i), 0);
		a[i] = b[i] = keep;
	}
	assert_true(lib_memcmp("\x01", "\xff", 1) < 0);
}

static void test_strlen(void **state)
{
	char s[BUF];

	(void)state;
	assert_int_equal(lib_strlen(""), 0);
	for (size_t n = 0; n < 300; n++) {
		for (size_t off = 0; off < 8; off++) {
			memset(s, 'x', sizeof(s));
			s[off + n] = '\0';
			assert_int_equal(lib_strlen(s + off), n);
		}
	}
	assert_int_equal(lib_strlen("\xff\x80"), 2);
}

static void test_strnlen(void **state)
{
	char unterminated[4] = { 'a', 'b', 'c', 'd' };

	(void)state;
	assert_int_equal(lib_strnlen("hello", 0), 0);
	assert_int_equal(lib_strnlen("hello", 3), 3);
	assert_int_equal(lib_strnlen("hello", 5), 5);
	assert_int_equal(lib_strnlen("hello", 6), 5);
	assert_int_equal(lib_strnlen("hello", SIZE_MAX), 5);
	assert_int_equal(lib_strnlen("", 10), 0);
	/* Never reads past max: ASan would catch it here. */
	assert_int_equal(lib_strnlen(unterminated, sizeof(unterminated)), 4);
}

static void test_strcmp(void **state)
{
	static const char *const words[] = {
		"",  "a",    "ab",   "abc",  "abd",   "b",
		"B", "\x7f", "\x80", "\xff", "a\xff", "ab\x01",
	};
	const size_t n = sizeof(words) / sizeof(words[0]);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			assert_int_equal(sign(lib_strcmp(words[i], words[j])),
					 sign(strcmp(words[i], words[j])));
		}
	}
}

static void test_strncmp(void **state)
{
	static const char *const words[] = {
		"", "a", "ab", "abc", "abd", "abcdef", "b", "\x80", "\xff",
	};
	const size_t n = sizeof(words) / sizeof(words[0]);

	(void)state;
	for (size_t len = 0; len < 8; len++) {
		for (size_t i = 0; i < n; i++) {
			for (size_t j = 0; j < n; j++) {
				const char *a = words[i], *b = words[j];

				assert_int_equal(sign(lib_strncmp(a, b, len)),
						 sign(strncmp(a, b, len)));
			}
		}
	}
	/* Stops at the NUL even when n is larger: nothing after is read. */
	assert_int_equal(lib_strncmp("ab", "ab", SIZE_MAX), 0);
	assert_int_equal(lib_strncmp("abX", "abY", 2), 0);
}

static void test_strchr(void **state)
{
	const char *s = "a.b.c\xe9";

	(void)state;
	assert_ptr_equal(lib_strchr(s, '.'), s + 1);
	assert_ptr_equal(lib_strchr(s, 'a'), s);
	assert_ptr_equal(lib_strchr(s, 'z'), NULL);
	assert_ptr_equal(lib_strchr(s, '\0'), s + 6);
	/* c is converted to char: 0xe9 and -23 both find the last byte. */
	assert_ptr_equal(lib_strchr(s, 0xe9), s + 5);
	assert_ptr_equal(lib_strchr(s, (char)0xe9), s + 5);
	assert_ptr_equal(lib_strchr(s, 0x100 + '.'), s + 1);
	assert_ptr_equal(lib_strchr("", 'a'), NULL);
}

static void test_strrchr(void **state)
{
	const char *s = "a.b.c\xe9";

	(void)state;
	assert_ptr_equal(lib_strrchr(s, '.'), s + 3);
	assert_ptr_equal(lib_strrchr(s, 'a'), s);
	assert_ptr_equal(lib_strrchr(s, 'z'), NULL);
	assert_ptr_equal(lib_strrchr(s, '\0'), s + 6);
	assert_ptr_equal(lib_strrchr(s, 0xe9), s + 5);
	assert_ptr_equal(lib_strrchr(s + 6, '\0'), s + 6);
	assert_ptr_equal(lib_strrchr(s + 6, 'a'), NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memcpy),
		cmocka_unit_test(test_memmove_overlap),
		cmocka_unit_test(test_memmove_large),
		cmocka_unit_test(test_memset),
		cmocka_unit_test(test_memcmp),
		cmocka_unit_test(test_strlen),
		cmocka_unit_test(test_strnlen),
		cmocka_unit_test(test_strcmp),
		cmocka_unit_test(test_strncmp),
		cmocka_unit_test(test_strchr),
		cmocka_unit_test(test_strrchr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * libFuzzer target for lib/format.c, checked against the host's snprintf.
 * The fuzzer does not write format strings (most would be undefined
 * behaviour for both sides): it picks a conversion, a set of flags valid
 * for it, the '*' width and precision, the value and the buffer size, and
 * both implementations must produce the same text and return value.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/format.h"
#include "lib/string.h"

#define OUT_MAX 1400 /* widths and precisions stay under 600 */

enum arg {
	A_INT,
	A_UINT,
	A_LONG,
	A_ULONG,
	A_LLONG,
	A_ULLONG,
	A_SIZE,
	A_INTMAX,
	A_UINTMAX,
	A_PTRDIFF,
	A_STR
};

static const struct {
	const char *conv;
	const char *flags; /* the flags C defines for it */
	enum arg arg;
} convs[] = {
	{ "d", "-+ 0", A_INT },	    { "i", "-+ 0", A_INT },
	{ "hhd", "-+ 0", A_INT },   { "hd", "-+ 0", A_INT },
	{ "ld", "-+ 0", A_LONG },   { "lld", "-+ 0", A_LLONG },
	{ "jd", "-+ 0", A_INTMAX }, { "td", "-+ 0", A_PTRDIFF },
	{ "u", "-0", A_UINT },	    { "hhu", "-0", A_UINT },
	{ "hu", "-0", A_UINT },	    { "lu", "-0", A_ULONG },
	{ "llu", "-0", A_ULLONG },  { "zu", "-0", A_SIZE },
	{ "ju", "-0", A_UINTMAX },  { "x", "-#0", A_UINT },
	{ "X", "-#0", A_UINT },	    { "hhx", "-#0", A_UINT },
	{ "lx", "-#0", A_ULONG },   { "llX", "-#0", A_ULLONG },
	{ "zx", "-#0", A_SIZE },    { "o", "-#0", A_UINT },
	{ "llo", "-#0", A_ULLONG }, { "c", "-", A_INT },
	{ "s", "-", A_STR },
};

struct input {
	const uint8_t *p;
	size_t left;
};

static uint64_t take(struct input *in, size_t bytes)
{
	uint64_t v = 0;

	for (; bytes && in->left; bytes--, in->left--)
		v = v << 8 | *in->p++;
	return v;
}

#define BOTH(value)                                                    \
	do {                                                           \
		want_n = snprintf(want, n, fmt, width, prec, value);   \
		got_n = lib_snprintf(got, n, fmt, width, prec, value); \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	static char want[OUT_MAX], got[OUT_MAX];
	char fmt[32], str[64];
	size_t c = take(&in, 1) % (sizeof(convs) / sizeof(convs[0]));
	unsigned int flag_bits = take(&in, 1);
	int width = (int)(take(&in, 2) % 1201) - 600;
	int prec = (int)(take(&in, 2) % 611) - 10;
	size_t n = take(&in, 2) % OUT_MAX;
	uint64_t v = take(&in, 8);
	size_t len = 0, slen, cmp;
	int want_n = 0, got_n = 0;

	/* "<%" flags "*.*" conversion ">" */
	fmt[len++] = '<';
	fmt[len++] = '%';
	for (const char *f = convs[c].flags; *f; f++, flag_bits >>= 1) {
		if (flag_bits & 1)
			fmt[len++] = *f;
	}
	len += sprintf(fmt + len, "*.*%s>", convs[c].conv);

	slen = in.left < sizeof(str) - 1 ? in.left : sizeof(str) - 1;
	memcpy(str, in.p, slen);
	str[slen] = '\0';

	switch (convs[c].arg) {
	case A_INT:
		BOTH((int)v);
		break;
	case A_UINT:
		BOTH((unsigned int)v);
		break;
	case A_LONG:
		BOTH((long)v);
		break;
	case A_ULONG:
		BOTH((unsigned long)v);
		break;
	case A_LLONG:
		BOTH((long long)v);
		break;
	case A_ULLONG:
		BOTH((unsigned long long)v);
		break;
	case A_SIZE:
		BOTH((size_t)v);
		break;
	case A_INTMAX:
		BOTH((intmax_t)v);
		break;
	case A_UINTMAX:
		BOTH((uintmax_t)v);
		break;
	case A_PTRDIFF:
		BOTH((ptrdiff_t)v);
		break;
	case A_STR:
		BOTH(str);
		break;
	}

	/* The text that fits and its NUL (%c can also write a NUL). */
	cmp = n ? ((size_t)want_n < n ? (size_t)want_n + 1 : n) : 0;
	if (want_n != got_n || memcmp(want, got, cmp)) {
		fprintf(stderr,
			"format \"%s\" width %d prec %d n %zu\n"
			"libc (%d): \"%s\"\nours (%d): \"%s\"\n",
			fmt, width, prec, n, want_n, want, got_n, got);
		abort();
	}
	return 0;
}

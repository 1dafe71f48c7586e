/*
 * printf-style formatting (see lib/format.h for what is supported).
 *
 * One pass over the format string: each conversion is parsed into a struct
 * spec, its argument fetched according to the length modifier, and rendered
 * as [spaces] [sign or 0x] [zeros] digits [spaces].
 */
#include <stdbool.h>
#include <stdint.h>

#include "lib/format.h"
#include "lib/string.h"

/* Debian's gcc <limits.h> needs libc's, absent with -nostdinc. */
#define INT_MAX __INT_MAX__

struct sink {
	void (*put)(void *ctx, char c);
	void *ctx;
	size_t count;
};

enum {
	F_LEFT = 1 << 0,  /* '-' */
	F_ZERO = 1 << 1,  /* '0' */
	F_PLUS = 1 << 2,  /* '+' */
	F_SPACE = 1 << 3, /* ' ' */
	F_ALT = 1 << 4,	  /* '#' */
};

/* Length modifiers: the type of the argument. */
enum length {
	L_INT, /* none: int */
	L_HH,  /* hh: char */
	L_H,   /* h: short */
	L_L,   /* l: long */
	L_LL,  /* ll: long long */
	L_Z,   /* z: size_t */
	L_J,   /* j: intmax_t */
	L_T,   /* t: ptrdiff_t */
};

struct spec {
	unsigned int flags;
	int width; /* 0 when absent */
	int prec;  /* -1 when absent */
	enum length len;
	char conv; /* '\0' when the format ends inside the spec */
};

static void emit(struct sink *o, char c)
{
	o->put(o->ctx, c);
	o->count++;
}

static void emit_n(struct sink *o, char c, long long n)
{
	for (; n > 0; n--)
		emit(o, c);
}

static void emit_s(struct sink *o, const char *s, size_t len)
{
	while (len--)
		emit(o, *s++);
}

static unsigned int flag_bit(char c)
{
	switch (c) {
	case '-':
		return F_LEFT;
	case '0':
		return F_ZERO;
	case '+':
		return F_PLUS;
	case ' ':
		return F_SPACE;
	case '#':
		return F_ALT;
	default:
		return 0;
	}
}

/* Decimal digits at *pp, saturating at INT_MAX. */
static int parse_num(const char **pp)
{
	const char *p = *pp;
	int v = 0;

	for (; *p >= '0' && *p <= '9'; p++) {
		int d = *p - '0';

		v = v > (INT_MAX - d) / 10 ? INT_MAX : v * 10 + d;
	}
	*pp = p;
	return v;
}

/* Parse the spec after a '%'; returns a pointer to its conversion char. */
static const char *parse_spec(const char *p, struct spec *sp, va_list *ap)
{
	sp->flags = 0;
	for (; flag_bit(*p); p++)
		sp->flags |= flag_bit(*p);

	if (*p == '*') {
		int w = va_arg(*ap, int);

		/* A negative '*' width means '-' and its absolute value. */
		if (w < 0) {
			sp->flags |= F_LEFT;
			w = w < -INT_MAX ? INT_MAX : -w;
		}
		sp->width = w;
		p++;
	} else {
		sp->width = parse_num(&p);
	}

	sp->prec = -1;
	if (*p == '.') {
		p++;
		if (*p == '*') {
			int pr = va_arg(*ap, int);

			sp->prec = pr < 0 ? -1 : pr; /* < 0: as if absent */
			p++;
		} else {
			sp->prec = parse_num(&p);
		}
	}

	sp->len = L_INT;
	switch (*p) {
	case 'h':
		sp->len = p[1] == 'h' ? L_HH : L_H;
		p += sp->len == L_HH ? 2 : 1;
		break;
	case 'l':
		sp->len = p[1] == 'l' ? L_LL : L_L;
		p += sp->len == L_LL ? 2 : 1;
		break;
	case 'z':
		sp->len = L_Z;
		p++;
		break;
	case 'j':
		sp->len = L_J;
		p++;
		break;
	case 't':
		sp->len = L_T;
		p++;
		break;
	}
	sp->conv = *p;
	return p;
}

static intmax_t fetch_signed(enum length len, va_list *ap)
{
	switch (len) {
	case L_HH:
		return (signed char)va_arg(*ap, int);
	case L_H:
		return (short)va_arg(*ap, int);
	case L_L:
		return va_arg(*ap, long);
	case L_LL:
		return va_arg(*ap, long long);
	/* %zd takes the signed type of size_t's width: ptrdiff_t's here. */
	case L_Z:
		return (ptrdiff_t)va_arg(*ap, size_t);
	case L_J:
		return va_arg(*ap, intmax_t);
	case L_T:
		return va_arg(*ap, ptrdiff_t);
	default:
		return va_arg(*ap, int);
	}
}

static uintmax_t fetch_unsigned(enum length len, va_list *ap)
{
	switch (len) {
	case L_HH:
		return (unsigned char)va_arg(*ap, unsigned int);
	case L_H:
		return (unsigned short)va_arg(*ap, unsigned int);
	case L_L:
		return va_arg(*ap, unsigned long);
	case L_LL:
		return va_arg(*ap, unsigned long long);
	case L_Z:
		return va_arg(*ap, size_t);
	case L_J:
		return va_arg(*ap, uintmax_t);
	case L_T:
		return (size_t)va_arg(*ap, ptrdiff_t);
	default:
		return va_arg(*ap, unsigned int);
	}
}

/* The sign of a signed conversion: '-', or what '+' or ' ' ask for. */
static char sign_char(const struct spec *sp, bool negative)
{
	if (negative)
		return '-';
	if (sp->flags & F_PLUS)
		return '+';
	if (sp->flags & F_SPACE)
		return ' ';
	return 0;
}

static void fmt_int(struct sink *o, const struct spec *sp, uintmax_t v,
		    char sign)
{
	const char *set =
		sp->conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
	unsigned int base = 10;
	char digits[24]; /* 64 bits are at most 22 octal digits */
	char prefix[2];
	int nd = 0, np = 0;
	long long zeros, pad;

	if (sp->conv == 'o')
		base = 8;
	else if (sp->conv == 'x' || sp->conv == 'X' || sp->conv == 'p')
		base = 16;
	for (; v; v /= base)
		digits[sizeof(digits) - ++nd] = set[v % base];

	/* The precision is a minimum digit count; 0 prints 0 as nothing. */
	zeros = (sp->prec < 0 ? 1 : sp->prec) - nd;
	if (zeros < 0)
		zeros = 0;
	if (sign)
		prefix[np++] = sign;
	if (base == 8 && (sp->flags & F_ALT) && !zeros)
		zeros = 1; /* '#': the first digit of octal is 0 */
	if (sp->conv == 'p' || (base == 16 && (sp->flags & F_ALT) && nd)) {
		prefix[np++] = '0';
		prefix[np++] = sp->conv == 'X' ? 'X' : 'x';
	}

	pad = sp->width - (np + zeros + nd);
	if (pad < 0)
		pad = 0;
	if (!(sp->flags & F_LEFT)) {
		/* '0' pads between prefix and digits, unless a precision. */
		if ((sp->flags & F_ZERO) && sp->prec < 0)
			zeros += pad;
		else
			emit_n(o, ' ', pad);
	}
	emit_s(o, prefix, np);
	emit_n(o, '0', zeros);
	emit_s(o, digits + sizeof(digits) - nd, nd);
	if (sp->flags & F_LEFT)
		emit_n(o, ' ', pad);
}

static void fmt_str(struct sink *o, const struct spec *sp, const char *s,
		    size_t len)
{
	long long pad = sp->width - (long long)len;

	if (!(sp->flags & F_LEFT))
		emit_n(o, ' ', pad);
	emit_s(o, s, len);
	if (sp->flags & F_LEFT)
		emit_n(o, ' ', pad);
}

/* Render one conversion; false if it is not one we know. */
static bool convert(struct sink *o, struct spec *sp, va_list *ap)
{
	intmax_t sv;
	const char *s;
	size_t len;
	char c;

	switch (sp->conv) {
	case 'd':
	case 'i':
		sv = fetch_signed(sp->len, ap);
		/* Negate as unsigned: -INTMAX_MIN does not fit in intmax_t. */
		fmt_int(o, sp, sv < 0 ? -(uintmax_t)sv : (uintmax_t)sv,
			sign_char(sp, sv < 0));
		return true;
	case 'u':
	case 'o':
	case 'x':
	case 'X':
		fmt_int(o, sp, fetch_unsigned(sp->len, ap), 0);
		return true;
	case 'p':
		sp->prec = 16;
		fmt_int(o, sp, (uintptr_t)va_arg(*ap, void *), 0);
		return true;
	case 'c':
		c = (char)va_arg(*ap, int);
		fmt_str(o, sp, &c, 1);
		return true;
	case 's':
		s = va_arg(*ap, const char *);
		if (!s)
			s = "(null)";
		len = sp->prec < 0 ? strlen(s) : strnlen(s, sp->prec);
		fmt_str(o, sp, s, len);
		return true;
	case '%':
		emit(o, '%');
		return true;
	default:
		return false;
	}
}

int lib_vcbprintf(void (*put)(void *ctx, char c), void *ctx, const char *fmt,
		  va_list ap)
{
	struct sink o = { .put = put, .ctx = ctx, .count = 0 };
	va_list args;

	va_copy(args, ap);
	while (*fmt) {
		const char *start = fmt;
		struct spec sp;

		if (*fmt != '%') {
			emit(&o, *fmt++);
			continue;
		}
		fmt = parse_spec(fmt + 1, &sp, &args);
		if (!convert(&o, &sp, &args)) {
			/* Unknown, or cut off by the end: print as written. */
			emit_s(&o, start, fmt - start + (*fmt != '\0'));
		}
		if (*fmt)
			fmt++;
	}
	va_end(args);
	return o.count > INT_MAX ? -1 : (int)o.count;
}

struct buf_sink {
	char *buf;
	size_t size;
	size_t pos;
};

static void buf_put(void *ctx, char c)
{
	struct buf_sink *b = ctx;

	if (b->pos + 1 < b->size)
		b->buf[b->pos++] = c;
}

int lib_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
{
	struct buf_sink b = { .buf = buf, .size = n, .pos = 0 };
	int ret = lib_vcbprintf(buf_put, &b, fmt, ap);

	if (n)
		buf[b.pos] = '\0';
	return ret;
}

int lib_snprintf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = lib_vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return ret;
}

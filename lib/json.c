/*
 * One-line JSON builder (see lib/json.h). Every piece goes through put(),
 * which either appends all of it or sets truncated and appends nothing more.
 */
#include <stdarg.h>

#include "lib/format.h"
#include "lib/json.h"
#include "lib/string.h"

static void put(struct json *j, const char *s, size_t n)
{
	if (j->truncated)
		return;
	if (n >= j->size - j->len) {
		j->truncated = true;
		return;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void __attribute__((format(printf, 2, 3)))
put_fmt(struct json *j, const char *fmt, ...)
{
	char tmp[32]; /* the longest number is 21 characters */
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = lib_vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	put(j, tmp, n);
}

static void put_string(struct json *j, const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			put_fmt(j, "\\%c", c);
		else if (c < 0x20)
			put_fmt(j, "\\u%04x", c);
		else
			put(j, s, 1);
	}
}

/* The separator and "key": of a member; nothing for a bare value. */
static void put_key(struct json *j, const char *key)
{
	if (j->comma)
		put(j, ",", 1);
	j->comma = true;
	if (key) {
		put(j, "\"", 1);
		put_string(j, key);
		put(j, "\":", 2);
	}
}

void json_init(struct json *j, char *buf, size_t size)
{
	j->buf = buf;
	j->size = size;
	j->len = 0;
	j->truncated = false;
	j->comma = false;
	if (size)
		buf[0] = '\0';
}

void json_begin(struct json *j, const char *key)
{
	put_key(j, key);
	put(j, "{", 1);
	j->comma = false;
}

void json_end(struct json *j)
{
	put(j, "}", 1);
	j->comma = true;
}

void json_str(struct json *j, const char *key, const char *val)
{
	put_key(j, key);
	if (!val) {
		put(j, "null", 4);
		return;
	}
	put(j, "\"", 1);
	put_string(j, val);
	put(j, "\"", 1);
}

void json_u64(struct json *j, const char *key, uint64_t val)
{
	put_key(j, key);
	put_fmt(j, "%llu", (unsigned long long)val);
}

void json_i64(struct json *j, const char *key, int64_t val)
{
	put_key(j, key);
	put_fmt(j, "%lld", (long long)val);
}

void json_bool(struct json *j, const char *key, bool val)
{
	put_key(j, key);
	if (val)
		put(j, "true", 4);
	else
		put(j, "false", 5);
}

void json_milli(struct json *j, const char *key, int64_t milli)
{
	/* Negate as unsigned: -INT64_MIN does not fit in an int64_t. */
	uint64_t mag = milli < 0 ? -(uint64_t)milli : (uint64_t)milli;
	uint64_t frac = mag % 1000;
	int digits = 3;

	for (; digits > 1 && frac % 10 == 0; digits--)
		frac /= 10;
	put_key(j, key);
	put_fmt(j, "%s%llu.%0*llu", milli < 0 ? "-" : "",
		(unsigned long long)(mag / 1000), digits,
		(unsigned long long)frac);
}

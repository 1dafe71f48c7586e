/*
 * A small builder for one-line JSON objects in a caller's buffer, for the
 * "# metric {...}" lines of the serial log:
 *
 *	struct json j;
 *
 *	json_init(&j, buf, sizeof(buf));
 *	json_begin(&j, NULL);
 *	json_str(&j, "name", "drain.cost");
 *	json_milli(&j, "median", 2100);		-> "median":2.1
 *	json_u64(&j, "n", 200);
 *	json_end(&j);
 *	if (j.truncated)
 *		...
 *
 * Nothing is ever written past the buffer, and it always holds a
 * NUL-terminated string (when size > 0). Once a piece does not fit,
 * truncated is set and everything after is dropped, so buf holds a clean
 * prefix of the object. Keys and strings are escaped ('"', '\\' and control
 * characters); bytes >= 0x80 pass through, so UTF-8 stays UTF-8.
 */
#ifndef LIB_JSON_H
#define LIB_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json {
	char *buf;
	size_t size;	/* bytes in buf, the NUL included */
	size_t len;	/* characters written, the NUL excluded */
	bool truncated; /* something did not fit and was dropped */
	bool comma;	/* the next member needs a ',' before it */
};

void json_init(struct json *j, char *buf, size_t size);

/* Open an object: a member named key, or a bare one when key is NULL. */
void json_begin(struct json *j, const char *key);
void json_end(struct json *j);

/* Members. A NULL string is written as null. */
void json_str(struct json *j, const char *key, const char *val);
void json_u64(struct json *j, const char *key, uint64_t val);
void json_i64(struct json *j, const char *key, int64_t val);
void json_bool(struct json *j, const char *key, bool val);

/*
 * A fixed-point decimal given in thousandths: 2100 -> 2.1, 2125 -> 2.125,
 * -500 -> -0.5, 3000 -> 3.0. Always at least one digit after the point, so
 * a reader sees a number of one type whatever the value.
 */
void json_milli(struct json *j, const char *key, int64_t milli);

#endif

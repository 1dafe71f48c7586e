/*
 * Command line parser (see lib/cmdline.h).
 *
 * The line is never copied or modified: a token is a pair of pointers into
 * it, and a value reaches its destination only once all of it is valid.
 * Each token gives at most one error, so one typo gives one message. The
 * parser resets errs; cmdline_error() can add to it afterwards.
 */
#include <stdarg.h>

#include "lib/cmdline.h"
#include "lib/format.h"
#include "lib/string.h"

/* User text quoted in a message is cut to this, so the message stays whole. */
#define CLIP_MAX 40

struct token {
	const char *name, *val; /* val is NULL when there is no '=' */
	size_t name_len, val_len;
};

enum num_result {
	NUM_OK,
	NUM_BAD,
	NUM_BIG
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * Copy user text for a message: cut to CLIP_MAX characters with "...", and
 * anything but printable ASCII shown as '?', so that garbage on the command
 * line cannot put escape sequences into the log.
 */
static const char *clip(char buf[CLIP_MAX + 1], const char *s, size_t len)
{
	size_t n = len > CLIP_MAX ? CLIP_MAX - 3 : len;

	for (size_t i = 0; i < n; i++)
		buf[i] = s[i] >= ' ' && s[i] <= '~' ? s[i] : '?';
	if (n < len) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}

/* Find the next token at or after *pp; false at the end of the line. */
static bool next_token(const char **pp, struct token *t)
{
	const char *p = *pp;

	while (is_space(*p))
		p++;
	if (!*p)
		return false;
	t->name = p;
	t->val = NULL;
	for (; *p && !is_space(*p); p++) {
		if (*p == '=' && !t->val)
			t->val = p + 1;
	}
	t->name_len = (t->val ? t->val - 1 : p) - t->name;
	t->val_len = t->val ? (size_t)(p - t->val) : 0;
	*pp = p;
	return true;
}

static bool same_name(const struct token *a, const struct token *b)
{
	return a->name_len == b->name_len &&
	       !memcmp(a->name, b->name, a->name_len);
}

/* Does a token before t in line have t's name? */
static bool given_before(const char *line, const struct token *t)
{
	struct token u;

	while (next_token(&line, &u) && u.name != t->name) {
		if (same_name(&u, t))
			return true;
	}
	return false;
}

static const struct cmdline_opt *find_opt(const struct cmdline_opt *opts,
					  size_t nopts, const struct token *t)
{
	for (size_t i = 0; i < nopts; i++) {
		if (!strncmp(opts[i].name, t->name, t->name_len) &&
		    !opts[i].name[t->name_len])
			return &opts[i];
	}
	return NULL;
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decimal or 0x-hex, digits only: no sign, no spaces, no suffix. */
static enum num_result parse_u64(const char *s, size_t len, uint64_t *out)
{
	enum num_result r = NUM_OK;
	unsigned int base = 10;
	uint64_t v = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		len -= 2;
	}
	if (!len)
		return NUM_BAD;
	for (; len; s++, len--) {
		int d = digit_value(*s);

		if (d < 0 || (unsigned int)d >= base)
			return NUM_BAD; /* junk wins over overflow */
		if (v > (UINT64_MAX - d) / base)
			r = NUM_BIG;
		v = v * base + d;
	}
	*out = v;
	return r;
}

/* Parse a number of option o and check its range; false after an error. */
static bool get_num(const struct cmdline_opt *o, const char *s, size_t len,
		    uint64_t *out, struct cmdline_errors *errs)
{
	char q[CLIP_MAX + 1];

	switch (parse_u64(s, len, out)) {
	case NUM_BAD:
		cmdline_error(errs, "%s: '%s' is not a number", o->name,
			      clip(q, s, len));
		return false;
	case NUM_BIG:
		cmdline_error(errs, "%s: '%s' does not fit in 64 bits", o->name,
			      clip(q, s, len));
		return false;
	case NUM_OK:
		break;
	}
	if (*out < o->min || *out > o->max) {
		cmdline_error(errs, "%s: %s is out of range %llu..%llu",
			      o->name, clip(q, s, len),
			      (unsigned long long)o->min,
			      (unsigned long long)o->max);
		return false;
	}
	return true;
}

static bool get_list(const struct cmdline_opt *o, const struct token *t,
		     struct cmdline_list *list, struct cmdline_errors *errs)
{
	const char *s = t->val, *end = t->val + t->val_len;
	char q[CLIP_MAX + 1];

	list->n = 0;
	for (;;) {
		const char *comma = s;

		while (comma < end && *comma != ',')
			comma++;
		if (comma == s) {
			cmdline_error(errs, "%s: empty element in '%s'",
				      o->name, clip(q, t->val, t->val_len));
			return false;
		}
		if (list->n == CMDLINE_LIST_MAX) {
			cmdline_error(errs, "%s: more than %d elements in '%s'",
				      o->name, CMDLINE_LIST_MAX,
				      clip(q, t->val, t->val_len));
			return false;
		}
		if (!get_num(o, s, comma - s, &list->v[list->n++], errs))
			return false;
		if (comma == end)
			return true;
		s = comma + 1;
	}
}

static bool get_str(const struct cmdline_opt *o, const struct token *t,
		    struct cmdline_errors *errs)
{
	char q[CLIP_MAX + 1];

	if (t->val_len > o->max) {
		cmdline_error(errs, "%s: '%s' is longer than %llu characters",
			      o->name, clip(q, t->val, t->val_len),
			      (unsigned long long)o->max);
		return false;
	}
	memcpy(o->dst, t->val, t->val_len);
	((char *)o->dst)[t->val_len] = '\0';
	return true;
}

/* Check t's value against o and store it; false after an error. */
static bool apply(const struct cmdline_opt *o, const struct token *t,
		  struct cmdline_errors *errs)
{
	struct cmdline_list list;
	uint64_t v;

	if (o->type == CL_FLAG) {
		if (t->val) {
			cmdline_error(errs, "%s: takes no value", o->name);
			return false;
		}
		*(bool *)o->dst = true;
		return true;
	}
	if (!t->val_len) {
		cmdline_error(errs, "%s: needs a value", o->name);
		return false;
	}
	switch (o->type) {
	case CL_UINT:
		if (!get_num(o, t->val, t->val_len, &v, errs))
			return false;
		*(uint64_t *)o->dst = v;
		return true;
	case CL_STR:
		return get_str(o, t, errs);
	case CL_UINT_LIST:
		if (!get_list(o, t, &list, errs))
			return false;
		memcpy(o->dst, &list, sizeof(list));
		return true;
	default:
		cmdline_error(errs, "%s: unknown option type %d in the table",
			      o->name, (int)o->type);
		return false;
	}
}

size_t cmdline_parse(const char *line, const struct cmdline_opt *opts,
		     size_t nopts, struct cmdline_errors *errs)
{
	const char *text = line ? line : "", *p = text;
	const struct cmdline_opt *o;
	char q[CLIP_MAX + 1];
	struct token t;

	errs->n = 0;
	errs->dropped = 0;
	while (next_token(&p, &t)) {
		if (!t.name_len)
			cmdline_error(errs, "missing option name in '%s'",
				      clip(q, t.name, t.val_len + 1));
		else if (!(o = find_opt(opts, nopts, &t)))
			cmdline_error(errs, "unknown option '%s'",
				      clip(q, t.name, t.name_len));
		else if (given_before(text, &t))
			cmdline_error(errs, "%s: given twice", o->name);
		else if (apply(o, &t, errs) && o->seen)
			*o->seen = true;
	}
	return errs->n + errs->dropped;
}

void cmdline_error(struct cmdline_errors *errs, const char *fmt, ...)
{
	va_list ap;

	if (errs->n == CMDLINE_ERR_MAX) {
		errs->dropped++;
		return;
	}
	va_start(ap, fmt);
	lib_vsnprintf(errs->msg[errs->n++], CMDLINE_ERR_LEN, fmt, ap);
	va_end(ap);
}

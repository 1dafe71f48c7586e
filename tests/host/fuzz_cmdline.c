/*
 * libFuzzer target for lib/cmdline.c: any text against a table with every
 * option type. Besides the sanitizers, it checks what callers rely on: the
 * count is stored + dropped, at most one error per token, every message is
 * printable ASCII, not empty and NUL-terminated inside its slot, and a
 * destination is either untouched or holds a value inside its bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/cmdline.h"
#include "lib/string.h"

#define UNSET	0x5a5a5a5a5a5a5a5aULL
#define STR_MAX 8

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
			abort();                                               \
		}                                                              \
	} while (0)

static bool flag, dotted_flag;
static uint64_t small, full;
static char str[STR_MAX + 1];
static struct cmdline_list list;
static bool seen[6];

static const struct cmdline_opt opts[] = {
	{ "f", CL_FLAG, 0, 0, &flag, &seen[0], "flag" },
	{ "a.b", CL_FLAG, 0, 0, &dotted_flag, &seen[1], "dotted flag" },
	{ "n", CL_UINT, 3, 0x1000, &small, &seen[2], "bounded number" },
	{ "u", CL_UINT, 0, UINT64_MAX, &full, &seen[3], "any number" },
	{ "s", CL_STR, 0, STR_MAX, str, &seen[4], "string" },
	{ "l", CL_UINT_LIST, 1, 100, &list, &seen[5], "list" },
};

static void reset(void)
{
	flag = dotted_flag = false;
	small = full = UNSET;
	memset(str, 'Z', sizeof(str));
	memset(&list, 0x5a, sizeof(list));
	memset(seen, 0, sizeof(seen));
}

static size_t count_tokens(const char *s)
{
	size_t n = 0;

	while (*s) {
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
		if (!*s)
			break;
		n++;
		while (*s && *s != ' ' && *s != '\t' && *s != '\n' &&
		       *s != '\r')
			s++;
	}
	return n;
}

static void check_result(const struct cmdline_errors *errs, size_t ret,
			 size_t tokens)
{
	CHECK(errs->n <= CMDLINE_ERR_MAX);
	CHECK(ret == errs->n + errs->dropped);
	CHECK(ret <= tokens);
	for (size_t i = 0; i < errs->n; i++) {
		const char *m = errs->msg[i];

		CHECK(memchr(m, '\0', CMDLINE_ERR_LEN) != NULL);
		CHECK(m[0] != '\0');
		for (; *m; m++)
			CHECK(*m >= ' ' && *m <= '~'); /* printable only */
	}

	CHECK(seen[0] == flag && seen[1] == dotted_flag);
	CHECK(seen[2] ? small >= 3 && small <= 0x1000 : small == UNSET);
	CHECK(seen[3] || full == UNSET);
	if (seen[4])
		CHECK(strnlen(str, sizeof(str)) <= STR_MAX);
	else
		CHECK(str[0] == 'Z' && str[STR_MAX] == 'Z');
	if (seen[5]) {
		CHECK(list.n >= 1 && list.n <= CMDLINE_LIST_MAX);
		for (size_t i = 0; i < list.n; i++)
			CHECK(list.v[i] >= 1 && list.v[i] <= 100);
	} else {
		CHECK(list.n == (size_t)UNSET);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cmdline_errors errs, again;
	const size_t nopts = sizeof(opts) / sizeof(opts[0]);
	char *line = malloc(size + 1);
	size_t ret;

	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0'; /* an embedded NUL just ends the line early */

	reset();
	ret = cmdline_parse(line, opts, nopts, &errs);
	check_result(&errs, ret, count_tokens(line));

	/* Parsing is deterministic and starts from a clean errs. */
	memset(&again, 0xff, sizeof(again));
	reset();
	CHECK(cmdline_parse(line, opts, nopts, &again) == ret);
	CHECK(again.n == errs.n && again.dropped == errs.dropped);
	for (size_t i = 0; i < errs.n; i++)
		CHECK(!strcmp(again.msg[i], errs.msg[i]));

	free(line);
	return 0;
}

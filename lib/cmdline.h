/*
 * Table-driven parser for the kernel command line.
 *
 * The same text reaches the kernel from GRUB, from QEMU -append and (later)
 * from EFI load options: space-separated tokens "name" or "name=value".
 * Nothing here knows which options exist; the kernel passes a table. Every
 * problem becomes a message that names the option: a bad value is never
 * replaced by a default.
 */
#ifndef LIB_CMDLINE_H
#define LIB_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cmdline_type {
	CL_FLAG, /* "name" alone; dst is bool *; "name=..." is an error */
	CL_UINT, /* "name=N", decimal or 0x-hex, min..max; dst uint64_t * */
	CL_STR,	 /* "name=text", 1..max chars; dst char[max + 1] */
	CL_UINT_LIST, /* "name=N,N,...", each min..max; dst struct cmdline_list * */
};

#define CMDLINE_LIST_MAX 32

struct cmdline_list {
	size_t n;
	uint64_t v[CMDLINE_LIST_MAX];
};

struct cmdline_opt {
	const char *name;
	enum cmdline_type type;
	uint64_t min, max; /* bounds for numbers; max length for CL_STR */
	void *dst;
	bool *seen; /* optional: set when the option appears */
	const char *help;
};

#define CMDLINE_ERR_MAX 8
#define CMDLINE_ERR_LEN 128

struct cmdline_errors {
	size_t n;	/* messages stored in msg[] */
	size_t dropped; /* further errors not stored */
	char msg[CMDLINE_ERR_MAX][CMDLINE_ERR_LEN];
};

/*
 * Parse line (NUL-terminated; NULL means empty) against opts. Destinations of
 * options that appear are written only when their value is valid. Returns
 * the number of errors found (stored + dropped); 0 means the whole line was
 * valid. Errors: unknown option, missing value, value given to a flag,
 * malformed number, number out of range, overflow, string too long, empty
 * list element, too many list elements, option given twice.
 */
size_t cmdline_parse(const char *line, const struct cmdline_opt *opts,
		     size_t nopts, struct cmdline_errors *errs);

/* Add a formatted message to errs (used by callers for semantic checks). */
void cmdline_error(struct cmdline_errors *errs, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif

/*
 * The kernel command line: the option table, the settings it fills, and
 * test selection (kernel/options.c).
 */
#ifndef KERNEL_OPTIONS_H
#define KERNEL_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/test.h"
#include "lib/cmdline.h"

#define OPT_TESTS_MAX 255
#define OPT_GLOBS_MAX 32

struct settings {
	char tests[OPT_TESTS_MAX + 1];
	bool tests_given;
	const char *globs[OPT_GLOBS_MAX];
	unsigned nglobs;
	bool list;
	bool reboot;
	char save[8]; /* "save=": "efi" (default) or "none" */
	uint64_t repeat;
	uint64_t seed;
	bool seed_given;
	uint64_t watchdog_ms;
	/* Characterization (tests/kernel/char.c, drain_cost.c). */
	struct cmdline_list char_sizes; /* buffer sizes, records */
	struct cmdline_list char_rates; /* records per millisecond */
	uint64_t char_repeat;		/* samples per measurement */
	char globs_buf[OPT_TESTS_MAX + 1];
};

extern struct settings settings;

/*
 * Parse the command line into settings, then check what the table cannot
 * (each tests= pattern selects something). Returns the number of errors.
 */
size_t options_parse(const char *cmdline, struct cmdline_errors *errs);

/* Whether the settings select this test. */
bool test_selected(const struct test_case *tc);

#endif

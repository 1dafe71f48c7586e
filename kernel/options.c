/*
 * Kernel options. Each is checked for syntax and range by lib/cmdline.c;
 * a bad one fails the run's cmdline.parse test instead of falling back to
 * a default, so a typo can never silently change what a run measures.
 */
#include "kernel/options.h"

#include "kernel/bts.h"
#include "kernel/runner.h"
#include "lib/glob.h"
#include "lib/string.h"

#define REPEAT_MAX	    1000
#define WATCHDOG_MS_MIN	    10
#define WATCHDOG_MS_MAX	    3600000
#define WATCHDOG_MS_DEFAULT 10000

struct settings settings = {
	.repeat = 1,
	.watchdog_ms = WATCHDOG_MS_DEFAULT,
	.char_sizes = { 5, { 64, 256, 1024, 4096, 16384 } },
	.char_rates = { 9,
			{ 100, 300, 1000, 3000, 10000, 30000, 100000, 300000,
			  1000000 } },
	.char_repeat = 11,
};

static const struct cmdline_opt option_table[] = {
	{ "tests", CL_STR, 1, OPT_TESTS_MAX, settings.tests,
	  &settings.tests_given, "run the tests matching GLOB[,GLOB...]" },
	{ "list", CL_FLAG, 0, 0, &settings.list, 0,
	  "print the test names and stop" },
	{ "repeat", CL_UINT, 1, REPEAT_MAX, &settings.repeat, 0,
	  "run each selected test N times" },
	{ "seed", CL_UINT, 0, UINT64_MAX, &settings.seed, &settings.seed_given,
	  "seed for randomized tests" },
	{ "watchdog_ms", CL_UINT, WATCHDOG_MS_MIN, WATCHDOG_MS_MAX,
	  &settings.watchdog_ms, 0, "default per-test time limit" },
	{ "reboot", CL_FLAG, 0, 0, &settings.reboot, 0,
	  "reboot at the end instead of halting (real hardware)" },
	{ "save", CL_STR, 1, sizeof(settings.save) - 1, settings.save, 0,
	  "efi: keep the log tail in EFI variables (EFI boot); none" },
	{ "bts.records", CL_UINT, 16, 65536, &bts_settings.records, 0,
	  "BTS buffer size in records" },
	{ "bts.threshold", CL_UINT, 1, 65535, &bts_settings.threshold,
	  &bts_settings.threshold_given, "BTS interrupt threshold in records" },
	{ "dump", CL_UINT, 0, 4096, &bts_settings.dump, 0,
	  "print the first N drained BTS records" },
	{ "char.sizes", CL_UINT_LIST, 16, 65536, &settings.char_sizes, 0,
	  "buffer sizes (records) for char.drain_cost" },
	{ "char.rates", CL_UINT_LIST, 1, 1000000, &settings.char_rates, 0,
	  "producer rates (records per ms) for char.duty_cycle" },
	{ "char.repeat", CL_UINT, 3, 1000, &settings.char_repeat, 0,
	  "samples per characterization measurement" },
};

/* The group of a pattern is named literally if no wildcard precedes '.'. */
static bool names_group(const char *glob)
{
	for (; *glob && *glob != '.'; glob++)
		if (*glob == '*' || *glob == '?')
			return false;
	return true;
}

static bool glob_selects(const char *glob, const struct test_case *tc)
{
	if ((tc->flags & TEST_EXPLICIT) && !names_group(glob))
		return false;
	return glob_match(glob, tc->name);
}

bool test_selected(const struct test_case *tc)
{
	if (!settings.tests_given)
		return !(tc->flags & TEST_EXPLICIT);
	for (unsigned i = 0; i < settings.nglobs; i++)
		if (glob_selects(settings.globs[i], tc))
			return true;
	return false;
}

static void split_globs(struct cmdline_errors *errs)
{
	char *p = settings.globs_buf;

	memcpy(settings.globs_buf, settings.tests, sizeof(settings.tests));
	for (;;) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = 0;
		if (!*p)
			cmdline_error(errs, "tests: empty pattern in '%s'",
				      settings.tests);
		else if (settings.nglobs == OPT_GLOBS_MAX)
			cmdline_error(errs, "tests: more than %d patterns",
				      OPT_GLOBS_MAX);
		else
			settings.globs[settings.nglobs++] = p;
		if (!comma)
			break;
		p = comma + 1;
	}
}

/* Values each valid alone but not together. */
static void check_bts(struct cmdline_errors *errs)
{
	struct bts_config cfg;
	char why[128];

	bts_default_config(&cfg);
	if (bts_config_check(&cfg, why, sizeof(why)))
		cmdline_error(errs, "bts.records/bts.threshold: %s", why);
}

size_t options_parse(const char *cmdline, struct cmdline_errors *errs)
{
	cmdline_parse(cmdline, option_table,
		      sizeof(option_table) / sizeof(option_table[0]), errs);

	check_bts(errs);
	if (settings.save[0] && strcmp(settings.save, "efi") &&
	    strcmp(settings.save, "none"))
		cmdline_error(errs, "save: '%s' is not efi or none",
			      settings.save);
	if (!settings.tests_given)
		return errs->n + errs->dropped;
	split_globs(errs);
	for (unsigned i = 0; i < settings.nglobs; i++) {
		bool any = false;

		for (const struct test_case *tc = tests_begin();
		     tc < tests_end() && !any; tc++)
			any = glob_selects(settings.globs[i], tc);
		if (!any)
			cmdline_error(errs,
				      "tests: pattern '%s' matches no test",
				      settings.globs[i]);
	}
	return errs->n + errs->dropped;
}

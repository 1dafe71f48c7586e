/*
 * Writing a kernel test.
 *
 * A test is a function registered with TEST_CASE in the .tests section, so
 * the whole set (and the TAP plan) is known at boot. It checks, skips with
 * a reason, or prints metrics:
 *
 *	static void check_thing(struct test_run *t)
 *	{
 *		if (!have_thing())
 *			return t_skip(t, "no thing (CPUID.1:ECX[5]=0)");
 *		T_EXPECT_EQ(t, "thing count", 3, thing_count());
 *	}
 *	TEST_CASE(thing, .name = "area.thing", .fn = check_thing);
 *
 * A test that faults or runs past its watchdog is failed by the runner and
 * the run goes on with the next one.
 */
#ifndef KERNEL_TEST_H
#define KERNEL_TEST_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/trap.h"

struct test_run;
typedef void (*test_fn)(struct test_run *t);

struct test_case {
	const char *name; /* area.case[.variant], lower case */
	test_fn fn;
	const void *arg; /* variant parameter, see t_arg() */
	uint32_t flags;
	uint32_t timeout_ms; /* 0: the watchdog_ms option */
};

/*
 * Only run when a tests= pattern names the group literally (for example
 * tests=selftest.*): '*' alone does not select these.
 */
#define TEST_EXPLICIT 0x1u

#define TEST_CASE(id, ...)                                           \
	static const struct test_case test_case_##id __attribute__(( \
		used, section(".tests"), aligned(8))) = { __VA_ARGS__ }

enum test_result {
	RESULT_PASS,
	RESULT_FAIL,
	RESULT_SKIP,
	RESULT_TIMEOUT,
	RESULT_EXCEPTION,
};

struct test_run {
	const struct test_case *tc;
	unsigned number;
	enum test_result result;
	unsigned failures;
	char message[256];
	char expected[96];
	char got[96];
	const char *file;
	int line;
	uint32_t timeout_ms;
	uint64_t deadline_tick;
	uint64_t deadline_tsc;	 /* 0: use deadline_tick */
	struct trap_frame frame; /* where it faulted or was stopped */
	uint64_t cr2;
};

const void *t_arg(const struct test_run *t);

void t_fail_at(struct test_run *t, const char *file, int line, const char *fmt,
	       ...) __attribute__((format(printf, 4, 5)));
bool t_assert_at(struct test_run *t, const char *file, int line, bool ok,
		 const char *text);
bool t_expect_u64_at(struct test_run *t, const char *file, int line,
		     const char *what, uint64_t expected, uint64_t got);
void t_skip(struct test_run *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A comment line in the log, "# ...". */
void t_diag(struct test_run *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A "# metric {json}" line; json is one object on one line. */
void t_metric(struct test_run *t, const char *json);
bool t_failed(const struct test_run *t);

/* Deterministic pseudo-random numbers from the seed= option. */
uint64_t t_rand(void);

#define t_fail(t, ...) t_fail_at(t, __FILE__, __LINE__, __VA_ARGS__)

#define T_ASSERT(t, cond) t_assert_at(t, __FILE__, __LINE__, !!(cond), #cond)

#define T_EXPECT_EQ(t, what, expected, got)                                \
	t_expect_u64_at(t, __FILE__, __LINE__, what, (uint64_t)(expected), \
			(uint64_t)(got))

#endif

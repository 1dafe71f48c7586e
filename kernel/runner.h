/*
 * The test runner: selection, the TAP plan and verdict lines, the per-test
 * watchdog, and recovery from tests that fault or hang (kernel/runner.c).
 */
#ifndef KERNEL_RUNNER_H
#define KERNEL_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/test.h"

struct trap_frame;

struct run_totals {
	unsigned passed, failed, skipped;
};

/* All registered tests. */
const struct test_case *tests_begin(void);
const struct test_case *tests_end(void);

/* Run one test on the test stack and print its verdict line. */
void runner_run(const struct test_case *tc, unsigned number,
		uint32_t default_timeout_ms, struct run_totals *tot);

/* Print a failed verdict for a test that never ran (command-line errors). */
void runner_report_fail(unsigned number, const char *name,
			const char *const *messages, size_t n,
			struct run_totals *tot);

/*
 * Called from trap_dispatch for an exception nobody fixed up: when a test
 * is running on this CPU, fail it, redirect the frame back to the runner
 * and return true.
 */
bool runner_abort_exception(struct trap_frame *f);
/* Called on every watchdog tick with the interrupted frame. */
void runner_tick(struct trap_frame *f);

void runner_set_seed(uint64_t seed);

/*
 * Called when a test is aborted (fault or timeout), in the trap that
 * aborts it (possibly an NMI): subsystems stop what the test left running
 * (a BTS session...). Hooks must not take exceptions.
 */
#define RUNNER_MAX_ABORT_HOOKS 8
void runner_on_abort(void (*hook)(void));

#endif

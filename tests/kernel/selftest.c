/*
 * selftest.*: tests that fail, fault and hang on purpose, so `make test`
 * can check that the runner reports each one correctly and still reaches
 * the closing line. Selected only by naming the group (tests=selftest.*).
 */
#include "kernel/arch.h"
#include "kernel/cpu.h"
#include "kernel/test.h"
#include "kernel/watchdog.h"

static void selftest_pass(struct test_run *t)
{
	T_ASSERT(t, 1 + 1 == 2);
}
TEST_CASE(st_pass, .name = "selftest.pass", .fn = selftest_pass,
	  .flags = TEST_EXPLICIT);

static void selftest_skip(struct test_run *t)
{
	t_skip(t, "selftest: skipping on purpose");
}
TEST_CASE(st_skip, .name = "selftest.skip", .fn = selftest_skip,
	  .flags = TEST_EXPLICIT);

static void selftest_fail(struct test_run *t)
{
	T_EXPECT_EQ(t, "the answer", 42, 41);
}
TEST_CASE(st_fail, .name = "selftest.fail", .fn = selftest_fail,
	  .flags = TEST_EXPLICIT);

static void selftest_metric(struct test_run *t)
{
	t_metric(t, "{\"name\":\"selftest.metric\",\"unit\":\"cycles\","
		    "\"value\":1}");
}
TEST_CASE(st_metric, .name = "selftest.metric", .fn = selftest_metric,
	  .flags = TEST_EXPLICIT);

/* Each fault is raised in a function of its own, so the RIP names it. */
static __attribute__((noinline)) void selftest_fault_gp(struct test_run *t)
{
	(void)t;
	/* A non-canonical address: #GP, not #PF. */
	*(volatile uint64_t *)0x8000000000000000ull = 1;
}
TEST_CASE(st_gp, .name = "selftest.fault.gp", .fn = selftest_fault_gp,
	  .flags = TEST_EXPLICIT);

static __attribute__((noinline)) void selftest_fault_pf(struct test_run *t)
{
	(void)t;
	/* Canonical but beyond the 4 GiB identity map. */
	*(volatile uint64_t *)0x0000700000000000ull = 1;
}
TEST_CASE(st_pf, .name = "selftest.fault.pf", .fn = selftest_fault_pf,
	  .flags = TEST_EXPLICIT);

static __attribute__((noinline)) void selftest_fault_ud(struct test_run *t)
{
	(void)t;
	asm volatile("ud2");
}
TEST_CASE(st_ud, .name = "selftest.fault.ud", .fn = selftest_fault_ud,
	  .flags = TEST_EXPLICIT);

static __attribute__((noinline)) void selftest_fault_de(struct test_run *t)
{
	uint32_t zero = 0;

	(void)t;
	asm volatile("xor %%edx, %%edx; mov $1, %%eax; divl %0"
		     :
		     : "r"(zero)
		     : "eax", "edx");
}
TEST_CASE(st_de, .name = "selftest.fault.de", .fn = selftest_fault_de,
	  .flags = TEST_EXPLICIT);

static void selftest_hang(struct test_run *t)
{
	(void)t;
	for (;;)
		cpu_relax();
}
TEST_CASE(st_hang, .name = "selftest.hang", .fn = selftest_hang,
	  .flags = TEST_EXPLICIT, .timeout_ms = 300);

static void selftest_hang_cli(struct test_run *t)
{
	if (!watchdog_catches_cli())
		return t_skip(t, "the watchdog tick is not an NMI (%s)",
			      watchdog_no_nmi_reason());
	irq_disable();
	for (;;)
		cpu_relax();
}
TEST_CASE(st_hang_cli, .name = "selftest.hang_cli", .fn = selftest_hang_cli,
	  .flags = TEST_EXPLICIT, .timeout_ms = 300);

/* Scribble over the bottom of the test stack, as an overflow would. */
static void selftest_stack(struct test_run *t)
{
	volatile uint8_t *bottom = this_cpu()->test_stack;

	(void)t;
	for (unsigned i = 0; i < 256; i++)
		bottom[i] = 0;
}
TEST_CASE(st_stack, .name = "selftest.stack_overflow", .fn = selftest_stack,
	  .flags = TEST_EXPLICIT);

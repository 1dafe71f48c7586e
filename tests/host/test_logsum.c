/*
 * Unit tests for lib/logsum.c: the summary screen's facts come from the
 * log lines exactly as the kernel prints them, and garbled or overlong
 * lines are cut, never overrun.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* cmocka.h needs the headers above. */
#include <cmocka.h>

#include "lib/logsum.h"
#include "lib/string.h"

static void feed(struct logsum *s, const char *line)
{
	logsum_line(s, line, strlen(line));
}

static void test_header(void **state)
{
	struct logsum s;

	(void)state;
	logsum_init(&s);
	feed(&s, "TAP version 13");
	feed(&s, "# btslab 0.1.0 (git abc) boot=efi firmware=uefi\r\n");
	feed(&s, "# cpu vendor=GenuineIntel family=6 model=0x9e stepping=10 "
		 "\"Intel(R) Core(TM) i7-8700\"");
	feed(&s, "# cpu ds=1 dtes64=1 x2apic=1 tsc_hz=3192000000 "
		 "tsc_source=cpuid15 invariant_tsc=1");
	feed(&s, "# bts hw=unavailable reason=\"CPUID.1:EDX[21]=0 (no Debug "
		 "Store)\"");
	feed(&s, "# apic mode=x2apic id=0 base=0xfee00000");
	feed(&s, "# smp online=12 listed=12 failed=0");
	feed(&s, "# hypervisor vendor=\"KVMKVMKVM\" note=\"...\"");
	feed(&s, "1..42");
	assert_string_equal(s.title,
			    "btslab 0.1.0 (git abc) boot=efi firmware=uefi");
	assert_string_equal(s.cpu, "Intel(R) Core(TM) i7-8700");
	assert_string_equal(s.tsc_hz, "3192000000");
	assert_string_equal(s.bts,
			    "unavailable: CPUID.1:EDX[21]=0 (no Debug Store)");
	assert_string_equal(s.apic, "x2apic");
	assert_string_equal(s.cpus, "12");
	assert_string_equal(s.hypervisor, "KVMKVMKVM");
	assert_int_equal(s.plan, 42);
	feed(&s, "# bts hw=available reason=\"CPUID.1:EDX[21]=1\"");
	assert_string_equal(s.bts, "available");
	/* The closing line is not a title. */
	feed(&s, "# btslab done: 1 passed, 0 failed, 0 skipped");
	assert_string_equal(s.title,
			    "btslab 0.1.0 (git abc) boot=efi firmware=uefi");
}

static void test_verdicts(void **state)
{
	struct logsum s;
	char name[64];

	(void)state;
	logsum_init(&s);
	feed(&s, "ok 1 - kernel.fixup");
	feed(&s, "ok 2 - apic.self_ipi.x2apic # SKIP CPU has no x2APIC");
	feed(&s, "not ok 3 - bts.threshold.hw");
	feed(&s, "not ok 4 - selftest.hang # TIMEOUT after 1000 ms");
	for (int i = 0; i < LOGSUM_FAILED + 3; i++) {
		snprintf(name, sizeof(name), "not ok %d - many.%d", 5 + i, i);
		feed(&s, name);
	}
	feed(&s, "Bail out! kernel panic: #GP");
	assert_int_equal(s.ok, 1);
	assert_int_equal(s.skipped, 1);
	assert_int_equal(s.nfailed, LOGSUM_FAILED + 5);
	assert_string_equal(s.failed[0], "bts.threshold.hw");
	assert_string_equal(s.failed[1], "selftest.hang");
	assert_string_equal(s.failed[LOGSUM_FAILED - 1], "many.13");
	assert_string_equal(s.bail_out, "Bail out! kernel panic: #GP");
}

static void test_metrics(void **state)
{
	struct logsum s;

	(void)state;
	logsum_init(&s);
	feed(&s, "# metric {\"name\":\"drain.cost\",\"strategy\":\"switch\","
		 "\"unit\":\"cycles/record\",\"min\":1.9,\"median\":2.1,"
		 "\"p99\":2.6,\"max\":4.0,\"n\":200}");
	feed(&s, "# metric {\"name\":\"kernel.tick.period\",\"unit\":"
		 "\"cycles\",\"value\":22483392}");
	for (int i = 0; i < LOGSUM_METRICS + 2; i++)
		feed(&s,
		     "# metric {\"name\":\"x\",\"unit\":\"u\",\"value\":1}");
	assert_int_equal(s.nmetrics, LOGSUM_METRICS + 4);
	assert_string_equal(s.metrics[0].name, "drain.cost");
	assert_string_equal(s.metrics[0].value, "2.1");
	assert_string_equal(s.metrics[0].unit, "cycles/record");
	assert_string_equal(s.metrics[1].name, "kernel.tick.period");
	assert_string_equal(s.metrics[1].value, "22483392");
	assert_string_equal(s.metrics[1].unit, "cycles");
}

/* Long and broken lines: cut at the field sizes, nothing overrun (ASan). */
static void test_garbage(void **state)
{
	static char big[4096];
	struct logsum s;

	(void)state;
	logsum_init(&s);
	memset(big, 'x', sizeof(big));
	memcpy(big, "not ok 1 - ", 11);
	logsum_line(&s, big, sizeof(big));
	assert_int_equal(strlen(s.failed[0]), LOGSUM_NAME - 1);
	memcpy(big, "# cpu vendor=\"", 14);
	logsum_line(&s, big, sizeof(big));
	assert_int_equal(strlen(s.cpu), LOGSUM_TEXT - 1);
	memcpy(big, "# metric {\"name\":\"", 18);
	logsum_line(&s, big, sizeof(big));
	assert_int_equal(strlen(s.metrics[0].name), LOGSUM_NAME - 1);
	feed(&s, "not ok");
	feed(&s, "not ok 2 -");
	feed(&s, "# cpu vendor=\"unterminated");
	feed(&s, "# metric ");
	feed(&s, "# bts hw=");
	feed(&s, "1..");
	logsum_line(&s, "", 0);
	assert_int_equal(s.nfailed, 2);
	assert_string_equal(s.cpu, "unterminated");
	assert_int_equal(s.plan, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

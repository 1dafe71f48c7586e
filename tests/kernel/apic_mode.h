/*
 * Running a test once per APIC mode: the .xapic and .x2apic variants of a
 * test share one function, which enters the mode named by its argument and
 * leaves the APIC as it found it.
 */
#ifndef TESTS_KERNEL_APIC_MODE_H
#define TESTS_KERNEL_APIC_MODE_H

#include "drivers/lapic.h"
#include "kernel/test.h"

extern const enum apic_mode apic_mode_xapic, apic_mode_x2apic;

/* Register name.xapic and name.x2apic for fn. */
#define APIC_MODE_TESTS(id, test_name, test_fn)                            \
	TEST_CASE(id##_xapic, .name = test_name ".xapic", .fn = test_fn,   \
		  .arg = &apic_mode_xapic);                                \
	TEST_CASE(id##_x2apic, .name = test_name ".x2apic", .fn = test_fn, \
		  .arg = &apic_mode_x2apic)

/*
 * Switch to the test's mode, or skip the test with the reason and return
 * false. *saved receives the mode to restore with apic_mode_leave().
 */
bool apic_mode_enter(struct test_run *t, enum apic_mode *saved);
void apic_mode_leave(enum apic_mode saved);
const char *apic_mode_of(struct test_run *t);

#endif

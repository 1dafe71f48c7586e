/* Per-APIC-mode test variants (see apic_mode.h). */
#include "tests/kernel/apic_mode.h"

const enum apic_mode apic_mode_xapic = APIC_MODE_XAPIC;
const enum apic_mode apic_mode_x2apic = APIC_MODE_X2APIC;

bool apic_mode_enter(struct test_run *t, enum apic_mode *saved)
{
	enum apic_mode m = *(const enum apic_mode *)t_arg(t);

	if (!apic) {
		t_skip(t, "no local APIC (CPUID.1:EDX[9]=0)");
		return false;
	}
	if (!lapic_mode_available(m)) {
		if (m == APIC_MODE_X2APIC)
			t_skip(t, "CPU has no x2APIC (CPUID.1:ECX[21]=0)");
		else
			t_skip(t,
			       "the xAPIC page 0x%lx is outside the "
			       "identity map",
			       apic_boot.mmio_base);
		return false;
	}
	*saved = lapic_mode();
	lapic_set_mode(m);
	return true;
}

void apic_mode_leave(enum apic_mode saved)
{
	lapic_set_mode(saved);
}

const char *apic_mode_of(struct test_run *t)
{
	return lapic_mode_name(*(const enum apic_mode *)t_arg(t));
}

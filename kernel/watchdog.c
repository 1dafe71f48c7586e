/*
 * Watchdog tick. The PIT's channel 0 runs at WATCHDOG_HZ. When the ACPI
 * MADT describes an I/O APIC, the PIT's GSI (ISA IRQ 0, usually GSI 2 by
 * an interrupt source override) is routed to the boot CPU with NMI
 * delivery and the 8259s stay masked: the tick then arrives even with
 * interrupts disabled. NMIs carry no source, so every NMI counts as a
 * chance to check the deadline, and deadlines are kept in TSC cycles.
 */
#include "kernel/watchdog.h"

#include "drivers/ioapic.h"
#include "drivers/lapic.h"
#include "drivers/pic8259.h"
#include "drivers/pit.h"
#include "kernel/acpi_tables.h"
#include "kernel/arch.h"
#include "kernel/nmi.h"
#include "kernel/runner.h"
#include "kernel/time.h"
#include "kernel/trap.h"
#include "kernel/vectors.h"

#define MPS_POLARITY_MASK 0x3
#define MPS_POLARITY_LOW  0x3
#define MPS_TRIGGER_MASK  0xC
#define MPS_TRIGGER_LEVEL 0xC

static uint64_t ticks;
static bool nmi_mode;
static const char *no_nmi_reason = "not initialized";
static uint32_t pit_gsi;

static void nmi_tick(struct trap_frame *f)
{
	__atomic_add_fetch(&ticks, 1, __ATOMIC_RELAXED);
	runner_tick(f);
}

static void irq0_tick(struct trap_frame *f)
{
	__atomic_add_fetch(&ticks, 1, __ATOMIC_RELAXED);
	pic_eoi(0);
	runner_tick(f);
}

static bool route_pit_as_nmi(void)
{
	const struct acpi_madt *madt = &acpi_info.madt;
	uint16_t flags = 0;
	uint32_t gsi;
	uint64_t entry;

	if (!madt->present) {
		no_nmi_reason = "no usable ACPI MADT";
		return false;
	}
	if (!madt->nioapics) {
		no_nmi_reason = "the MADT lists no I/O APIC";
		return false;
	}
	for (size_t i = 0; i < madt->nioapics; i++)
		ioapic_add(madt->ioapics[i].address, madt->ioapics[i].gsi_base);
	if (!ioapic_count()) {
		no_nmi_reason = "no I/O APIC answered at the MADT's address";
		return false;
	}
	gsi = acpi_isa_irq_gsi(&acpi_info, 0, &flags);
	/* NMI delivery is edge-triggered only. */
	if ((flags & MPS_TRIGGER_MASK) == MPS_TRIGGER_LEVEL) {
		no_nmi_reason = "the PIT's GSI is level-triggered";
		return false;
	}
	entry = IOAPIC_DM_NMI | IOAPIC_DEST(apic->id());
	if ((flags & MPS_POLARITY_MASK) == MPS_POLARITY_LOW)
		entry |= IOAPIC_ACTIVE_LOW;
	pit_gsi = gsi;
	if (!ioapic_route(gsi, entry)) {
		no_nmi_reason = "no I/O APIC handles the PIT's GSI";
		return false;
	}
	return true;
}

static void use_8259(void)
{
	trap_set_handler(VEC_PIC_BASE + 0, irq0_tick);
	pic_unmask(0);
}

/* Wait up to 'ms' for 'n' more ticks. */
static bool ticks_arrive(unsigned n, unsigned ms)
{
	uint64_t t0 = watchdog_ticks();
	uint64_t end = rdtsc() + ms_to_tsc(ms);

	while (rdtsc() < end)
		if (watchdog_ticks() - t0 >= n)
			return true;
	return false;
}

void watchdog_init(void)
{
	uint64_t flags = irq_save();

	pit_start_periodic(WATCHDOG_HZ);
	if (!apic) {
		no_nmi_reason = "no local APIC (CPUID.1:EDX[9]=0)";
	} else if (route_pit_as_nmi()) {
		nmi_set_tick_hook(nmi_tick);
		/*
		 * Ten ticks should come in 100 ms. KVM's in-kernel PIT (lost
		 * tick policy "delay") waits for an EOI that an NMI never
		 * gives, and stops after the first tick.
		 */
		if (ticks_arrive(3, 200)) {
			nmi_mode = true;
			no_nmi_reason = "";
			irq_restore(flags);
			return;
		}
		nmi_set_tick_hook(0);
		ioapic_mask(pit_gsi);
		no_nmi_reason = "the PIT stopped after its first NMI (KVM's "
				"PIT waits for an EOI; QEMU option -global "
				"kvm-pit.lost_tick_policy=discard)";
	}
	use_8259();
	irq_restore(flags);
}

uint64_t watchdog_ticks(void)
{
	return __atomic_load_n(&ticks, __ATOMIC_RELAXED);
}

unsigned watchdog_hz(void)
{
	return WATCHDOG_HZ;
}

const char *watchdog_source(void)
{
	return nmi_mode ? "pit-ioapic-nmi" : "pit-8259-irq0";
}

bool watchdog_catches_cli(void)
{
	return nmi_mode;
}

const char *watchdog_no_nmi_reason(void)
{
	return no_nmi_reason;
}

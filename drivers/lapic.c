/*
 * Local APIC driver: xAPIC through its MMIO page, x2APIC through MSRs,
 * one struct apic_ops for each, chosen at run time.
 *
 * Mode changes follow the SDM's state diagram for IA32_APIC_BASE: xAPIC to
 * x2APIC by setting EXTD with EN set; x2APIC back to xAPIC only through the
 * disabled state (EN and EXTD clear), which resets the APIC's registers, so
 * every mode change reprograms them.
 */
#include "drivers/lapic.h"

#include "kernel/arch.h"
#include "kernel/fixup.h"
#include "kernel/trap.h"
#include "kernel/vectors.h"

#define MSR_IA32_APIC_BASE  0x1B
#define APIC_BASE_BSP	    (1ull << 8)
#define APIC_BASE_EXTD	    (1ull << 10)
#define APIC_BASE_EN	    (1ull << 11)
#define APIC_BASE_ADDR_MASK 0x000FFFFFFFFFF000ull
#define APIC_DEFAULT_BASE   0xFEE00000ull

#define X2APIC_MSR(reg)	    (0x800u + ((reg) >> 4))
#define X2APIC_ICR_MSR	    0x830
#define X2APIC_SELF_IPI_MSR 0x83F

/* Polls of the ICR delivery status before an xAPIC send is given up. */
#define ICR_IDLE_SPINS 1000000

struct apic_boot_state apic_boot;
const struct apic_ops *apic;

static enum apic_mode current_mode;
static unsigned long spurious, errors;

/* --- xAPIC ---------------------------------------------------------------- */

static volatile uint32_t *xapic_reg(unsigned reg)
{
	return (volatile uint32_t *)(apic_boot.mmio_base + reg);
}

static uint32_t xapic_read(unsigned reg)
{
	return *xapic_reg(reg);
}

static void xapic_write(unsigned reg, uint32_t v)
{
	*xapic_reg(reg) = v;
}

bool lapic_wait_idle(void)
{
	if (current_mode == APIC_MODE_X2APIC)
		return true; /* the x2APIC ICR has no delivery status */
	for (unsigned i = 0; i < ICR_IDLE_SPINS; i++) {
		if (!(xapic_read(APIC_ICR) & APIC_DELIVERY_PENDING))
			return true;
		cpu_relax();
	}
	return false;
}

static void xapic_send(uint32_t dest, uint32_t icr)
{
	lapic_wait_idle();
	xapic_write(APIC_ICR_HIGH, dest << 24);
	xapic_write(APIC_ICR, icr); /* the low half sends */
}

static uint32_t xapic_id(void)
{
	return xapic_read(APIC_ID) >> 24;
}

static const struct apic_ops xapic_ops = {
	.name = "xapic",
	.read = xapic_read,
	.write = xapic_write,
	.send = xapic_send,
	.id = xapic_id,
};

/* --- x2APIC --------------------------------------------------------------- */

static uint32_t x2apic_read(unsigned reg)
{
	return (uint32_t)rdmsr(X2APIC_MSR(reg));
}

/*
 * x2APIC MSR writes are not serializing: without a fence, an interrupt
 * could be sent before earlier stores to memory are visible to its handler.
 */
static void x2apic_write(unsigned reg, uint32_t v)
{
	asm volatile("mfence; lfence" : : : "memory");
	wrmsr(X2APIC_MSR(reg), v);
}

static void x2apic_send(uint32_t dest, uint32_t icr)
{
	asm volatile("mfence; lfence" : : : "memory");
	wrmsr(X2APIC_ICR_MSR, ((uint64_t)dest << 32) | icr);
}

static uint32_t x2apic_id(void)
{
	return (uint32_t)rdmsr(X2APIC_MSR(APIC_ID));
}

static const struct apic_ops x2apic_ops = {
	.name = "x2apic",
	.read = x2apic_read,
	.write = x2apic_write,
	.send = x2apic_send,
	.id = x2apic_id,
};

/* --- common --------------------------------------------------------------- */

static void spurious_handler(struct trap_frame *f)
{
	(void)f;
	/* A spurious interrupt sets no ISR bit: no EOI. */
	__atomic_add_fetch(&spurious, 1, __ATOMIC_RELAXED);
}

static void error_handler(struct trap_frame *f)
{
	(void)f;
	/* ESR latches on a write; the write also clears it. */
	apic->write(APIC_ESR, 0);
	__atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
	lapic_eoi();
}

bool lapic_probe(void)
{
	uint64_t base;

	if (!(cpuid(1, 0).edx & (1u << 9)))
		return false;
	if (rdmsr_safe(MSR_IA32_APIC_BASE, &base))
		return false;
	apic_boot.base_msr = base;
	apic_boot.mmio_base = base & APIC_BASE_ADDR_MASK;
	apic_boot.moved = apic_boot.mmio_base != APIC_DEFAULT_BASE;
	apic_boot.x2apic_at_boot =
		(base & APIC_BASE_EN) && (base & APIC_BASE_EXTD);
	apic_boot.x2apic_capable = cpuid(1, 0).ecx & (1u << 21);
	trap_set_handler(VEC_APIC_SPURIOUS, spurious_handler);
	trap_set_handler(VEC_APIC_ERROR, error_handler);
	return true;
}

bool lapic_mode_available(enum apic_mode mode)
{
	if (mode == APIC_MODE_X2APIC)
		return apic_boot.x2apic_capable;
	/* xAPIC needs the MMIO page inside the 4 GiB identity map. */
	return apic_boot.mmio_base < (4ull << 30);
}

const char *lapic_mode_name(enum apic_mode mode)
{
	return mode == APIC_MODE_X2APIC ? "x2apic" : "xapic";
}

enum apic_mode lapic_mode(void)
{
	return current_mode;
}

static void program(bool bsp)
{
	apic->write(APIC_TPR, 0);
	apic->write(APIC_LVT_TIMER, APIC_LVT_MASKED | VEC_APIC_TIMER);
	apic->write(APIC_LVT_PERF, APIC_LVT_MASKED | VEC_PMI);
	apic->write(APIC_LVT_ERROR, VEC_APIC_ERROR);
	/* Virtual wire: the 8259 reaches the boot CPU through LINT0. */
	apic->write(APIC_LVT_LINT0,
		    bsp ? APIC_DM_EXTINT : APIC_LVT_MASKED | APIC_DM_EXTINT);
	apic->write(APIC_LVT_LINT1, bsp ? APIC_DM_NMI : APIC_LVT_MASKED);
	apic->write(APIC_SVR, APIC_SVR_ENABLE | VEC_APIC_SPURIOUS);
	apic->write(APIC_ESR, 0);
	apic->write(APIC_ESR, 0);
}

int lapic_set_mode(enum apic_mode mode)
{
	uint64_t base, flags;
	bool bsp;

	if (!lapic_mode_available(mode))
		return -1;
	flags = irq_save();
	base = rdmsr(MSR_IA32_APIC_BASE);
	bsp = base & APIC_BASE_BSP;
	if (mode == APIC_MODE_X2APIC) {
		if (!(base & APIC_BASE_EN))
			wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_EN);
		wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_EN | APIC_BASE_EXTD);
		apic = &x2apic_ops;
	} else {
		if (base & APIC_BASE_EXTD) {
			base &= ~(APIC_BASE_EN | APIC_BASE_EXTD);
			wrmsr(MSR_IA32_APIC_BASE, base);
		}
		wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_EN);
		apic = &xapic_ops;
	}
	current_mode = mode;
	program(bsp);
	irq_restore(flags);
	return 0;
}

void lapic_eoi(void)
{
	apic->write(APIC_EOI, 0);
}

void lapic_self_ipi_msr(uint8_t vector)
{
	asm volatile("mfence; lfence" : : : "memory");
	wrmsr(X2APIC_SELF_IPI_MSR, vector);
}

void lapic_lvtpc_set(enum lvtpc_delivery how, bool masked)
{
	uint32_t v = how == LVTPC_NMI ? APIC_DM_NMI : APIC_DM_FIXED | VEC_PMI;

	apic->write(APIC_LVT_PERF, v | (masked ? APIC_LVT_MASKED : 0));
}

void lapic_lvtpc_unmask(void)
{
	apic->write(APIC_LVT_PERF,
		    apic->read(APIC_LVT_PERF) & ~APIC_LVT_MASKED);
}

bool lapic_lvtpc_masked(void)
{
	return apic->read(APIC_LVT_PERF) & APIC_LVT_MASKED;
}

unsigned long lapic_spurious_count(void)
{
	return spurious;
}

unsigned long lapic_error_count(void)
{
	return errors;
}

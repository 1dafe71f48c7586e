/*
 * Local APIC, in xAPIC (MMIO) or x2APIC (MSR) mode behind one interface
 * (drivers/lapic.c). Registers are named by their xAPIC MMIO offset; the
 * x2APIC implementation turns an offset into MSR 0x800 + offset / 16.
 */
#ifndef DRIVERS_LAPIC_H
#define DRIVERS_LAPIC_H

#include <stdbool.h>
#include <stdint.h>

enum apic_mode {
	APIC_MODE_XAPIC,
	APIC_MODE_X2APIC,
};

/* Register offsets (SDM Vol. 3, "Local APIC Register Address Map"). */
#define APIC_ID		   0x020
#define APIC_VERSION	   0x030
#define APIC_TPR	   0x080
#define APIC_EOI	   0x0B0
#define APIC_SVR	   0x0F0
#define APIC_ISR	   0x100 /* 8 registers, 0x10 apart */
#define APIC_IRR	   0x200 /* 8 registers, 0x10 apart */
#define APIC_ESR	   0x280
#define APIC_ICR	   0x300
#define APIC_ICR_HIGH	   0x310 /* xAPIC only */
#define APIC_LVT_TIMER	   0x320
#define APIC_LVT_PERF	   0x340
#define APIC_LVT_LINT0	   0x350
#define APIC_LVT_LINT1	   0x360
#define APIC_LVT_ERROR	   0x370
#define APIC_TIMER_INITIAL 0x380
#define APIC_TIMER_CURRENT 0x390
#define APIC_TIMER_DIVIDE  0x3E0
#define APIC_SELF_IPI	   0x3F0 /* x2APIC only */

/* LVT and ICR fields. */
#define APIC_DM_FIXED		(0u << 8)
#define APIC_DM_NMI		(4u << 8)
#define APIC_DM_INIT		(5u << 8)
#define APIC_DM_STARTUP		(6u << 8)
#define APIC_DM_EXTINT		(7u << 8)
#define APIC_DM_MASK		(7u << 8)
#define APIC_DELIVERY_PENDING	(1u << 12)
#define APIC_LEVEL_ASSERT	(1u << 14)
#define APIC_TRIGGER_LEVEL	(1u << 15)
#define APIC_LVT_MASKED		(1u << 16)
#define APIC_TIMER_PERIODIC	(1u << 17)
#define APIC_TIMER_TSC_DEADLINE (2u << 17)
#define APIC_DEST_SELF		(1u << 18)
#define APIC_DEST_ALL_BUT_SELF	(3u << 18)
#define APIC_SVR_ENABLE		(1u << 8)

struct apic_ops {
	const char *name;
	uint32_t (*read)(unsigned reg);
	void (*write)(unsigned reg, uint32_t v);
	/* ICR write to a physical destination; icr holds the low 32 bits. */
	void (*send)(uint32_t dest, uint32_t icr);
	uint32_t (*id)(void);
};

/* The interface for the mode in use on this CPU. */
extern const struct apic_ops *apic;

/* What the firmware handed over, and what this CPU supports. */
struct apic_boot_state {
	uint64_t base_msr;   /* IA32_APIC_BASE at boot */
	uint64_t mmio_base;  /* xAPIC register page */
	bool x2apic_at_boot; /* firmware left x2APIC enabled */
	bool x2apic_capable; /* CPUID.1:ECX[21] */
	bool moved;	     /* base is not the default 0xFEE00000 */
};

extern struct apic_boot_state apic_boot;

/* Probe the boot state; false when there is no local APIC (CPUID.1:EDX[9]). */
bool lapic_probe(void);
/*
 * Switch this CPU's APIC to a mode and program it (software enable,
 * spurious vector, TPR 0, LVT error; LINT0 as ExtINT and LINT1 as NMI on
 * the boot CPU). x2APIC to xAPIC goes through disabled, as the SDM
 * requires. Returns 0, or -1 if the mode is not available.
 */
int lapic_set_mode(enum apic_mode mode);
enum apic_mode lapic_mode(void);
bool lapic_mode_available(enum apic_mode mode);
const char *lapic_mode_name(enum apic_mode mode);

void lapic_eoi(void);
/* Self-IPI by the x2APIC SELF IPI register (fixed vectors only). */
void lapic_self_ipi_msr(uint8_t vector);
/* Wait for an xAPIC ICR send to be accepted; false on timeout. */
bool lapic_wait_idle(void);

/*
 * The performance-counter LVT entry: PMIs delivered as NMI or as a fixed
 * vector. The APIC sets the entry's mask bit when it delivers a PMI; the
 * handler unmasks it again (HARDWARE.md: Linux does it late, after the
 * counters are re-armed, to avoid a spurious PMI).
 */
enum lvtpc_delivery {
	LVTPC_NMI,
	LVTPC_VECTOR
};
void lapic_lvtpc_set(enum lvtpc_delivery how, bool masked);
void lapic_lvtpc_unmask(void);
bool lapic_lvtpc_masked(void);

unsigned long lapic_spurious_count(void);
unsigned long lapic_error_count(void);

#endif

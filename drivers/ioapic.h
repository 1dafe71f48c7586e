/* I/O APIC redirection (drivers/ioapic.c). */
#ifndef DRIVERS_IOAPIC_H
#define DRIVERS_IOAPIC_H

#include <stdbool.h>
#include <stdint.h>

/* Redirection entry fields (82093AA datasheet, I/O APIC spec 3.2.4). */
#define IOAPIC_DM_FIXED	     (0ull << 8)
#define IOAPIC_DM_NMI	     (4ull << 8)
#define IOAPIC_ACTIVE_LOW    (1ull << 13)
#define IOAPIC_LEVEL	     (1ull << 15)
#define IOAPIC_MASKED	     (1ull << 16)
#define IOAPIC_DEST(apic_id) ((uint64_t)(apic_id) << 56)

/* Register an I/O APIC and mask all its pins. False if it does not answer. */
bool ioapic_add(uint64_t address, uint32_t gsi_base);
/* Program the entry for a GSI; false if no I/O APIC has it. */
bool ioapic_route(uint32_t gsi, uint64_t entry);
void ioapic_mask(uint32_t gsi);
unsigned ioapic_count(void);

#endif

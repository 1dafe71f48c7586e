/*
 * HPET description table (see lib/acpi.h): where the event timer block is
 * and what it can do, from the IA-PC HPET Specification 1.0a, 3.2.4. The
 * kernel uses it to calibrate the TSC when CPUID does not give the
 * frequency.
 */
#include "lib/acpi.h"
#include "lib/acpi_internal.h"
#include "lib/string.h"

/*
 * HPET Description Table, IA-PC HPET 1.0a 3.2.4, table 3; the base address
 * is a Generic Address Structure, ACPI 6.5 5.2.3.2.
 */
struct acpi_hpet_table {
	struct acpi_sdt_header hdr;
	uint32_t block_id;
	uint8_t address_space;
	uint8_t bit_width;
	uint8_t bit_offset;
	uint8_t access_size;
	uint64_t address;
	uint8_t number;
	uint16_t min_tick;
	uint8_t page_protection;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_hpet_table) == 56, "HPET table layout");

#define GAS_SYSTEM_MEMORY 0

/* Event Timer Block ID fields, IA-PC HPET 1.0a 3.2.4 table 3. */
#define HPET_ID_LEGACY_CAPABLE	  (1u << 15)
#define HPET_ID_COUNT_64BIT	  (1u << 13)
#define HPET_ID_COMPARATORS_SHIFT 8
#define HPET_ID_COMPARATORS_MASK  0x1Fu /* number of comparators - 1 */

void acpi_parse_hpet(struct acpi_info *info, const uint8_t *tab, uint32_t len,
		     uint64_t phys)
{
	struct acpi_hpet *h = &info->hpet;
	struct acpi_hpet_table raw;

	if (len < sizeof(raw)) {
		acpi_msg(info, "HPET at 0x%llx: length %u (min %zu), ignored",
			 (unsigned long long)phys, len, sizeof(raw));
		return;
	}
	if (h->present) {
		/* One table per event timer block; the first is enough. */
		h->extra_tables++;
		return;
	}
	memcpy(&raw, tab, sizeof(raw));
	h->present = true;
	h->block_id = raw.block_id;
	h->pci_vendor = raw.block_id >> 16;
	h->legacy_capable = raw.block_id & HPET_ID_LEGACY_CAPABLE;
	h->counter_64bit = raw.block_id & HPET_ID_COUNT_64BIT;
	h->comparators = ((raw.block_id >> HPET_ID_COMPARATORS_SHIFT) &
			  HPET_ID_COMPARATORS_MASK) +
			 1;
	h->hw_rev = raw.block_id & 0xFF;
	h->address_space = raw.address_space;
	h->bit_width = raw.bit_width;
	h->bit_offset = raw.bit_offset;
	h->address = raw.address;
	h->number = raw.number;
	h->min_tick = raw.min_tick;
	h->page_protection = raw.page_protection;
	/* The timer block is memory-mapped: an I/O-space base is unusable. */
	h->usable = raw.address_space == GAS_SYSTEM_MEMORY && raw.address;
	if (!h->usable)
		acpi_msg(info,
			 "HPET at 0x%llx: base 0x%llx in address space "
			 "%u (want non-zero, space 0 = memory), not usable",
			 (unsigned long long)phys,
			 (unsigned long long)raw.address, raw.address_space);
}

/*
 * ACPI at boot: locate the RSDP and hand the tables to the parser in
 * lib/acpi.c through an accessor over the identity map. Multiboot2 loaders
 * pass a copy of the RSDP; otherwise (multiboot1) the BIOS areas are
 * searched as the ACPI specification describes: the first KiB of the EBDA,
 * then 0xE0000-0xFFFFF.
 */
#include "kernel/acpi_tables.h"

#include "kernel/arch.h"
#include "kernel/boot_info.h"

#define IDENTITY_LIMIT	 (4ull << 30)
#define BDA_EBDA_SEGMENT 0x40E
#define BIOS_ROM_START	 0xE0000
#define BIOS_ROM_LEN	 0x20000

struct acpi_info acpi_info;
static const char *rsdp_source = "none";

static const void *identity_map(void *ctx, uint64_t phys, size_t len)
{
	(void)ctx;
	if (phys >= IDENTITY_LIMIT || len > IDENTITY_LIMIT - phys)
		return 0;
	return (const void *)phys;
}

static const struct acpi_mem identity = { identity_map, 0 };

static bool find_rsdp(const struct boot_info *bi, uint64_t *phys)
{
	uint64_t ebda = (uint64_t) * (const volatile uint16_t *)phys_ptr(
					     BDA_EBDA_SEGMENT)
			<< 4;

	if (bi->rsdp_len) {
		/* The copy lives in boot_info: identity-mapped, so phys. */
		*phys = (uint64_t)bi->rsdp;
		rsdp_source = "loader";
		return true;
	}
	if (ebda >= 0x80000 && ebda < 0xA0000 &&
	    acpi_rsdp_scan(phys_ptr(ebda), 1024, ebda, phys)) {
		rsdp_source = "ebda";
		return true;
	}
	if (acpi_rsdp_scan(phys_ptr(BIOS_ROM_START), BIOS_ROM_LEN,
			   BIOS_ROM_START, phys)) {
		rsdp_source = "bios-rom";
		return true;
	}
	return false;
}

bool acpi_tables_init(const struct boot_info *bi)
{
	uint64_t rsdp;

	if (!find_rsdp(bi, &rsdp))
		return false;
	return acpi_parse(&identity, rsdp, &acpi_info);
}

const char *acpi_rsdp_source(void)
{
	return rsdp_source;
}

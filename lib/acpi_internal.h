/*
 * Private to lib/acpi*.c: raw layouts shared by the table parsers and the
 * helpers they all use. Users of the parser include lib/acpi.h only.
 */
#ifndef LIB_ACPI_INTERNAL_H
#define LIB_ACPI_INTERNAL_H

#include <stdint.h>

#include "lib/acpi.h"

/* System Description Table Header, ACPI 6.5 5.2.6. */
struct acpi_sdt_header {
	char signature[4];
	uint32_t length; /* of the whole table, header included */
	uint8_t revision;
	uint8_t checksum; /* all bytes of the table sum to 0 (mod 256) */
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_sdt_header) == 36, "ACPI SDT header");

/* Add a message to info->msgs (or count it as dropped). */
void acpi_msg(struct acpi_info *info, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Parse a MADT whose header, length (>= 36) and checksum were checked:
 * table points at len readable bytes at physical address phys.
 */
void acpi_parse_madt(struct acpi_info *info, const uint8_t *table, uint32_t len,
		     uint64_t phys);

/* Parse a checked HPET table (length >= 36, checksum good). */
void acpi_parse_hpet(struct acpi_info *info, const uint8_t *tab, uint32_t len,
		     uint64_t phys);

#endif

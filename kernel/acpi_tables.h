/* Finding and reading the ACPI tables at boot (kernel/acpi_tables.c). */
#ifndef KERNEL_ACPI_TABLES_H
#define KERNEL_ACPI_TABLES_H

#include "lib/acpi.h"

struct boot_info;

extern struct acpi_info acpi_info;

/* RSDP from the loader, else the BIOS areas; then parse. */
bool acpi_tables_init(const struct boot_info *bi);
/* Where the RSDP came from: "loader", "ebda", "bios-rom" or "none". */
const char *acpi_rsdp_source(void);

#endif

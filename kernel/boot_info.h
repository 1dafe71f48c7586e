/*
 * What the boot path hands to kernel_main, whichever loader it was:
 * multiboot2 (GRUB), multiboot1 (QEMU -kernel) or EFI (boot/efi_loader.c).
 */
#ifndef KERNEL_BOOT_INFO_H
#define KERNEL_BOOT_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum boot_path {
	BOOT_MULTIBOOT1,
	BOOT_MULTIBOOT2,
	BOOT_EFI
};
enum firmware_kind {
	FIRMWARE_BIOS,
	FIRMWARE_UEFI
};

/* Memory types as in the E820 / multiboot memory map. */
enum mem_type {
	MEM_USABLE = 1,
	MEM_RESERVED = 2,
	MEM_ACPI_RECLAIM = 3,
	MEM_ACPI_NVS = 4,
	MEM_BAD = 5,
};

struct mem_region {
	uint64_t base, len;
	uint32_t type;
};

#define BOOT_MAX_REGIONS 128
#define BOOT_CMDLINE_MAX 1024

struct boot_info {
	enum boot_path path;
	enum firmware_kind firmware;
	char loader[64];

	char cmdline[BOOT_CMDLINE_MAX];
	bool cmdline_truncated;

	struct mem_region mem[BOOT_MAX_REGIONS];
	size_t nmem;
	size_t mem_dropped;

	/* A copy of the RSDP as the loader gave it (multiboot2 tags). */
	uint8_t rsdp[36];
	unsigned rsdp_len; /* 0: not given */

	struct {
		bool present;
		uint64_t addr;
		uint32_t pitch, width, height;
		uint8_t bpp, type; /* type: 0 indexed, 1 RGB, 2 EGA text */
		/* Type 1: bit position and width of each colour (0: unknown). */
		uint8_t red_pos, red_size, green_pos, green_size;
		uint8_t blue_pos, blue_size;
	} fb;

	/* EFI boot only: the runtime services table, identity-mapped (the
	 * loader never calls SetVirtualAddressMap); 0 otherwise. */
	uint64_t efi_runtime;

	uint32_t magic;	    /* what the loader put in EAX */
	uint64_t entry_tsc; /* TSC at the first kernel instruction */
};

const char *boot_path_name(enum boot_path p);
const char *firmware_name(enum firmware_kind f);

__attribute__((noreturn)) void kernel_main(struct boot_info *bi);

#endif

/*
 * The C side of the direct EFI entry (boot/efi_entry.asm): the loader
 * (boot/efi_loader.c) filled a struct boot_info in memory the kernel
 * does not own; copy it into the kernel's .bss first, start keeping the
 * log for EFI variables (kernel/efi_log.c), then run the same kernel_main
 * as the multiboot paths.
 */
#include "kernel/boot_info.h"
#include "kernel/efi_log.h"

#include "lib/string.h"

extern uint64_t boot_entry_tsc;

static struct boot_info efi_boot_info;

void __attribute__((noreturn)) efi_boot_main(const struct boot_info *src);

void efi_boot_main(const struct boot_info *src)
{
	struct boot_info *bi = &efi_boot_info;

	memcpy(bi, src, sizeof(*bi));
	bi->path = BOOT_EFI;
	bi->firmware = FIRMWARE_UEFI;
	bi->entry_tsc = boot_entry_tsc;
	bi->cmdline[BOOT_CMDLINE_MAX - 1] = 0;
	bi->loader[sizeof(bi->loader) - 1] = 0;
	if (bi->nmem > BOOT_MAX_REGIONS)
		bi->nmem = BOOT_MAX_REGIONS;
	efi_log_init(bi);
	kernel_main(bi);
}

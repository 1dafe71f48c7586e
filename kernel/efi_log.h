/*
 * Results that survive the run on machines without a serial port
 * (kernel/efi_log.c): after an EFI boot, the tail of the log is kept in
 * EFI variables, where Linux shows it in efivarfs and tools/efivars puts
 * it back together.
 */
#ifndef KERNEL_EFI_LOG_H
#define KERNEL_EFI_LOG_H

struct boot_info;

/*
 * On an EFI boot with runtime services, start keeping the log's tail (a
 * console). When the closing line has been written, the tail is saved,
 * replacing the previous run's, unless the command line says save=none.
 */
void efi_log_init(const struct boot_info *bi);

#endif
